// mb and rb: make and remove a bucket.

#include "../context.hpp"
#include "../json_writer.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../remove_prefix.hpp"
#include "../s3_uri.hpp"
#include "../verbs.hpp"

#include <floe/s3/addressing.hpp>

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_bucket(context& x, bool create) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (!u->key.empty()) co_return usage_error(x, "expected s3://BUCKET with no key");
  if (create) {
    auto strict = s3::validate_bucket_name(u->bucket, s3::bucket_name_rules::aws_create);
    if (!strict) co_return usage_error(x, strict.error().diag.message);
  }
  delete_tally tally;
  if (!create && x.cl.force) {
    // Emptied first; a key that could not be deleted keeps the bucket.
    int const emptied = co_await remove_prefix(x, u->bucket, "", tally);
    if (emptied != exit_ok) {
      if (x.g.json) {
        json_writer w;
        w.begin_object().field("bucket", u->bucket).field("removed", false);
        write_tally_fields(x, w, tally);
        w.end_object();
        write_stdout(w.line());
      }
      co_return emptied;
    }
  }
  char const* op = create ? "CreateBucket" : "DeleteBucket";
  op_trace trace(x, op, create ? "PUT" : "DELETE", u->bucket, std::nullopt);
  result<void> r;
  if (create) r = co_await x.c.async_create_bucket(u->bucket);
  else r = co_await x.c.async_delete_bucket(u->bucket);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), op, u->bucket);
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("bucket", u->bucket).field(create ? "created" : "removed", true);
    if (x.cl.force) write_tally_fields(x, w, tally);
    w.end_object();
    write_stdout(w.line());
  } else {
    write_stdout(std::string(create ? "make_bucket: " : "remove_bucket: ") + u->bucket + "\n");
  }
  co_return exit_ok;
}

awaitable<int> cmd_mb(context& x) { return cmd_bucket(x, true); }
awaitable<int> cmd_rb(context& x) { return cmd_bucket(x, false); }

constexpr option_spec force{"force", 0, "", "delete every object first, then the bucket",
                            set_flag<&command_line::force>};
constexpr option_spec const* rb_options[] = {&force};

constexpr verb_spec bucket_verbs[] = {
    {.name = "mb",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET",
     .summary = "make a bucket",
     .description = "Creates a bucket (in --region).\n",
     .run = cmd_mb},
    {.name = "rb",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET",
     .summary = "remove a bucket",
     .description = "Deletes an empty bucket; with --force, deletes its objects first, each named\n"
                    "(\"delete: s3://b/k\"), and the bucket only when all went. Object versions\n"
                    "and unfinished multipart uploads are not touched: a versioned bucket\n"
                    "keeps them and is refused by the store. --json --force: the bucket's\n"
                    "document with the \"deleted\", \"errors\" and \"not_done\" of floe rm's.\n",
     .options = rb_options,
     .run = cmd_rb},
};

}  // namespace

namespace verbs {
extern family const bucket = bucket_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
