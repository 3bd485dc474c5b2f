// rm: one object (optionally only if its ETag still matches), or every key
// under a prefix (remove_prefix.hpp).

#include "../conditional_write.hpp"
#include "../context.hpp"
#include "../json_writer.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../remove_prefix.hpp"
#include "../s3_uri.hpp"
#include "../transfer.hpp"
#include "../transfer_options.hpp"
#include "../verbs.hpp"

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_rm(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (!x.cl.recursive) {
    if (u->key.empty()) co_return usage_error(x, "the URI names no object (use --recursive for a prefix)");
    if (x.cl.dryrun) {
      print_op_line(x, "delete", uri_of(u->bucket, u->key), "");
      co_return exit_ok;
    }
    op_trace trace(x, "DeleteObject", "DELETE", u->bucket, std::string_view(u->key));
    result<void> r;
    if (x.cl.if_match.empty()) {
      r = co_await x.c.async_delete_object(u->bucket, u->key);
    } else {
      std::string const etag = x.cl.if_match;
      auto o = co_await s3::async_delete_if_match(x.c, u->bucket, u->key, etag);
      if (!o) {
        r = o.error();
      } else {
        auto w = written_or_error(*o, "DeleteObject", resource_of(u->bucket, u->key));
        if (!w) r = w.error();
      }
    }
    trace.done(r);
    if (!r) co_return fail(x, r.error(), "DeleteObject", resource_of(u->bucket, u->key));
    if (x.g.json) {
      json_writer w;
      w.begin_object().key("deleted").begin_array().value(u->key).end_array();
      w.key("errors").begin_array().end_array().end_object();
      write_stdout(w.line());
    } else {
      print_op_line(x, "delete", uri_of(u->bucket, u->key), "");
    }
    co_return exit_ok;
  }
  if (!x.cl.if_match.empty()) co_return usage_error(x, "--if-match applies to one object, not --recursive");
  // A page at a time (remove_prefix): --json streams "deleted" as each
  // batch is done; "errors" and "not_done" (few) follow. A command that
  // failed before deleting anything prints no document, only its error.
  delete_tally tally;
  json_writer w;
  bool begun = false;  // --json: the document was started on stdout
  auto begin = [&] {
    if (!begun) w.begin_object().key("deleted").begin_array();
    begun = true;
  };
  if (x.g.json) {
    tally.on_deleted = [&](std::vector<std::string> const& keys) {
      begin();
      for (auto const& k : keys) w.value(k);
      write_stdout(w.take());
    };
  }
  int const rc = co_await remove_prefix(x, u->bucket, dir_prefix(u->key), tally);
  if (x.g.json && (begun || rc == exit_ok)) {
    begin();
    w.end_array();
    write_tally_rest(x, w, tally);
    w.end_object();
    write_stdout(w.take() + "\n");
  }
  co_return rc;
}

constexpr option_spec rm_recursive{"recursive", 'r', "", "delete every key under the prefix",
                                set_flag<&command_line::recursive>};
constexpr option_spec rm_if_match{"if-match", 0, "ETAG", "delete only if the object's ETag is ETAG (else exit 3)",
                               set_if_match};
constexpr option_spec const* rm_options[] = {&rm_recursive,     &rm_if_match,     &exclude_option,         &include_option,
                                             &dryrun_option, &quiet_option, &only_show_errors_option};

result<void> check_rm(command_line const& cl) { return check_output_and_filters(cl, cl.recursive); }

constexpr verb_spec rm_verbs[] = {
    {.name = "rm",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET/KEY|PREFIX",
     .summary = "delete",
     .description = "Deletes an object (a missing key is not an error: S3 answers 204), or with\n"
                    "--recursive every key under the prefix (DeleteObjects, a listing page of up\n"
                    "to 1000 at a time).\n",
     .options = rm_options,
     .check = check_rm,
     .run = cmd_rm},
};

}  // namespace

namespace verbs {
extern family const rm = rm_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
