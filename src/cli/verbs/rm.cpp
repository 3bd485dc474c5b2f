// rm: one object (optionally only if its ETag still matches), or every key
// under a prefix.

#include "../conditional_write.hpp"
#include "../context.hpp"
#include "../json_writer.hpp"
#include "../list_all.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../verbs.hpp"

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_rm(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (!x.cl.recursive) {
    if (u->key.empty()) co_return usage_error(x, "the URI names no object (use --recursive for a prefix)");
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
      write_stdout("delete: " + printable(uri_of(u->bucket, u->key)) + "\n");
    }
    co_return exit_ok;
  }
  if (!x.cl.if_match.empty()) co_return usage_error(x, "--if-match applies to one object, not --recursive");
  std::string const prefix = dir_prefix(u->key);
  std::string const no_delimiter;
  auto listed = co_await list_all(x, u->bucket, prefix, no_delimiter);
  if (!listed) co_return fail(x, listed.error(), "ListObjectsV2", resource_of(u->bucket, prefix));
  std::vector<std::string> keys;
  keys.reserve(listed->objects.size());
  for (auto const& o : listed->objects) keys.push_back(o.key);
  s3::delete_objects_result res;
  if (!keys.empty()) {
    op_trace trace(x, "DeleteObjects", "POST", u->bucket, std::nullopt);
    auto r = co_await x.c.async_delete_objects(u->bucket, keys);
    trace.done(r);
    if (!r) co_return fail(x, r.error(), "DeleteObjects", resource_of(u->bucket, prefix));
    res = std::move(*r);
  }
  for (auto const& f : res.errors) {
    error e(errc::service_error);
    e.diag.code = f.code;
    e.diag.message = f.message;
    report_error(x.g, e, "DeleteObjects", resource_of(u->bucket, f.key));
  }
  // A batch failed after others ran: the keys deleted so far are printed
  // below, the error that stopped it is reported and decides the exit code.
  int const stopped = res.complete() ? exit_ok : fail(x, res.failure, "DeleteObjects", resource_of(u->bucket, prefix));
  if (x.g.json) {
    json_writer w;
    w.begin_object().key("deleted").begin_array();
    for (auto const& k : res.deleted) w.value(k);
    w.end_array().key("errors").begin_array();
    for (auto const& f : res.errors)
      w.begin_object().field("key", f.key).field("code", f.code).field("message", f.message).end_object();
    // Keys a failed batch left: in the failed request or never sent.
    w.end_array().key("not_done").begin_array();
    for (auto const& k : res.not_done) w.value(k);
    w.end_array().end_object();
    write_stdout(w.line());
  } else {
    std::string s;
    for (auto const& k : res.deleted) s += "delete: " + printable(uri_of(u->bucket, k)) + "\n";
    write_stdout(s);
  }
  if (stopped != exit_ok) co_return stopped;
  co_return res.errors.empty() ? exit_ok : exit_error;
}

constexpr option_spec recursive{"recursive", 'r', "", "delete every key under the prefix",
                                set_flag<&command_line::recursive>};
constexpr option_spec if_match{"if-match", 0, "ETAG", "delete only if the object's ETag is ETAG (else exit 3)",
                               set_if_match};
constexpr option_spec const* rm_options[] = {&recursive, &if_match};

constexpr verb_spec rm_verbs[] = {
    {.name = "rm",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET/KEY|PREFIX",
     .summary = "delete",
     .description = "Deletes an object (a missing key is not an error: S3 answers 204), or with\n"
                    "--recursive every key under the prefix (DeleteObjects, 1000 at a time).\n",
     .options = rm_options,
     .run = cmd_rm},
};

}  // namespace

namespace verbs {
extern family const rm = rm_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
