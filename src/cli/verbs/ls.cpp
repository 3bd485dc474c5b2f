// ls: the buckets, or the objects under a prefix.

#include "../context.hpp"
#include "../json_writer.hpp"
#include "../list_pages.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../verbs.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace floe::cli {

namespace {

using boost::asio::awaitable;

// `floe ls` / `floe ls s3://`: ListBuckets.
awaitable<int> cmd_ls_buckets(context& x) {
  if (x.cl.recursive) co_return usage_error(x, "--recursive needs a bucket: floe ls s3://BUCKET --recursive");
  op_trace trace(x, "ListBuckets", "GET", "", std::nullopt);
  auto r = co_await x.c.async_list_buckets();
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "ListBuckets", "");
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().key("buckets").begin_array();
    for (auto const& b : r->buckets) {
      w.begin_object().field("name", b.name).field("creation_date", b.creation_date).field("region", b.region);
      w.end_object();
    }
    w.end_array();
    w.key("owner").begin_object().field("id", r->owner_id).field("display_name", r->owner_display_name).end_object();
    w.end_object();
    out = w.line();
  } else {
    for (auto const& b : r->buckets) {
      std::string date = b.creation_date;
      date.resize(24, ' ');
      out += printable(date) + " " + printable(b.name) + "\n";
    }
  }
  if (!write_stdout(out)) co_return exit_error;
  co_return exit_ok;
}

awaitable<int> cmd_ls(context& x) {
  if (x.cl.args.empty() || (x.cl.args[0].size() == 5 && is_s3_uri(x.cl.args[0]))) co_return co_await cmd_ls_buckets(x);
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  // Printed a page at a time, as the pages arrive: a listing is never held
  // whole. --json streams its objects; the prefixes (one per "directory")
  // follow them.
  list_pages pages(x, u->bucket, u->key, x.cl.recursive ? "" : "/");
  s3::list_page page;
  json_writer w;
  std::vector<std::string> held_prefixes;
  bool begun = false;  // --json: part of the document is on stdout
  auto end_document = [&] {
    w.end_array().key("prefixes").begin_array();
    for (auto const& p : held_prefixes) w.value(p);
    w.end_array().end_object();
    return write_stdout(w.take() + "\n");
  };
  if (x.g.json) w.begin_object().field("bucket", u->bucket).field("prefix", u->key).key("objects").begin_array();
  for (;;) {
    auto more = co_await pages.next(page);
    if (!more) {
      // A listing that fails after pages were printed still leaves a whole
      // document on stdout (what was listed); the error and the exit code
      // say it is not all. Before that, as ever, nothing but the error.
      int const rc = fail(x, more.error(), "ListObjectsV2", resource_of(u->bucket, u->key));
      if (begun) end_document();
      co_return rc;
    }
    if (!*more) break;
    std::string out;
    if (x.g.json) {
      for (auto& p : page.common_prefixes) held_prefixes.push_back(std::move(p));
      for (auto const& o : page.objects) {
        w.begin_object().field("key", o.key).field("size", o.size).field("etag", o.etag);
        w.field("last_modified", o.last_modified).field("storage_class", o.storage_class).end_object();
      }
      out = w.take();
      begun = true;
    } else {
      for (auto const& p : page.common_prefixes) out += std::string(34, ' ') + "PRE " + printable(p) + "\n";
      for (auto const& o : page.objects) {
        char size[32];
        std::snprintf(size, sizeof size, "%12llu", static_cast<unsigned long long>(o.size));
        std::string lm = o.last_modified;
        lm.resize(24, ' ');
        out += lm + " " + size + " " + printable(o.key) + "\n";
      }
    }
    if (!write_stdout(out)) co_return exit_error;
  }
  if (x.g.json && !end_document()) co_return exit_error;
  co_return exit_ok;
}

constexpr option_spec recursive{"recursive", 'r', "", "every key under the prefix, not grouped at '/'",
                                set_flag<&command_line::recursive>};
constexpr option_spec const* ls_options[] = {&recursive};

constexpr verb_spec ls_verbs[] = {
    {.name = "ls",
     .min_args = 0,
     .max_args = 1,
     .operands = "[s3://BUCKET[/PREFIX]]",
     .summary = "list buckets or objects",
     .description = "With no bucket ('floe ls' or 'floe ls s3://'): lists the buckets (ListBuckets).\n"
                    "Text: CREATION-DATE NAME; --json: {\"buckets\": [{\"name\", \"creation_date\",\n"
                    "\"region\"}], \"owner\": {\"id\", \"display_name\"}}.\n\n"
                    "Lists objects under PREFIX. Without --recursive, keys are grouped at '/'\n"
                    "(shown as PRE lines). Text: LAST-MODIFIED SIZE KEY; --json: one object with\n"
                    "\"objects\" and \"prefixes\".\n",
     .options = ls_options,
     .run = cmd_ls},
};

}  // namespace

namespace verbs {
extern family const ls = ls_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
