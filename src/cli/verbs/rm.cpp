// rm: one object (optionally only if its ETag still matches), or every key
// under a prefix.

#include "../conditional_write.hpp"
#include "../context.hpp"
#include "../json_writer.hpp"
#include "../list_pages.hpp"
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
  // A page at a time: each page's keys go in one DeleteObjects (a page
  // holds at most 1000) and are printed before the next page is asked for.
  // --json streams "deleted"; "errors" and "not_done" (few) follow.
  std::string const prefix = dir_prefix(u->key);
  list_pages pages(x, u->bucket, prefix, "");
  s3::list_page page;
  std::vector<s3::delete_failure> failures;
  std::vector<std::string> not_done;
  json_writer w;
  bool begun = false;  // --json: the document was started on stdout
  int rc = exit_ok;
  for (;;) {
    auto more = co_await pages.next(page);
    if (!more) {
      rc = fail(x, more.error(), "ListObjectsV2", resource_of(u->bucket, prefix));
      break;
    }
    if (!*more) break;
    if (page.objects.empty()) continue;
    std::vector<std::string> keys;
    keys.reserve(page.objects.size());
    for (auto& o : page.objects) keys.push_back(std::move(o.key));
    op_trace trace(x, "DeleteObjects", "POST", u->bucket, std::nullopt);
    auto r = co_await x.c.async_delete_objects(u->bucket, keys);
    trace.done(r);
    if (!r) {
      // The batch failed whole: its keys are the ones not done.
      rc = fail(x, r.error(), "DeleteObjects", resource_of(u->bucket, prefix));
      for (auto& k : keys) not_done.push_back(std::move(k));
      break;
    }
    for (auto const& f : r->errors) {
      error e(errc::service_error);
      e.diag.code = f.code;
      e.diag.message = f.message;
      report_error(x.g, e, "DeleteObjects", resource_of(u->bucket, f.key));
    }
    std::string out;
    if (x.g.json) {
      if (!begun) w.begin_object().key("deleted").begin_array();
      begun = true;
      for (auto const& k : r->deleted) w.value(k);
      out = w.take();
    } else {
      for (auto const& k : r->deleted) out += "delete: " + printable(uri_of(u->bucket, k)) + "\n";
    }
    write_stdout(out);
    for (auto& f : r->errors) failures.push_back(std::move(f));
    // A batch failed after others ran: the keys deleted so far are printed,
    // the error that stopped it is reported and decides the exit code.
    if (!r->complete()) {
      rc = fail(x, r->failure, "DeleteObjects", resource_of(u->bucket, prefix));
      for (auto& k : r->not_done) not_done.push_back(std::move(k));
      break;
    }
  }
  // As when the listing was whole: a command that failed before deleting
  // anything prints no document, only its error.
  if (x.g.json && (begun || rc == exit_ok)) {
    if (!begun) w.begin_object().key("deleted").begin_array();
    w.end_array().key("errors").begin_array();
    for (auto const& f : failures)
      w.begin_object().field("key", f.key).field("code", f.code).field("message", f.message).end_object();
    // Keys a failed batch left: in the failed request or never sent.
    w.end_array().key("not_done").begin_array();
    for (auto const& k : not_done) w.value(k);
    w.end_array().end_object();
    write_stdout(w.take() + "\n");
  }
  if (rc != exit_ok) co_return rc;
  co_return failures.empty() ? exit_ok : exit_error;
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
