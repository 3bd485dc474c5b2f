// ls: the buckets, or the objects under a prefix, as `aws s3 ls` prints
// them (listing_format.hpp), a page at a time.

#include "../context.hpp"
#include "../json_writer.hpp"
#include "../list_pages.hpp"
#include "../listing_format.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../spill_buffer.hpp"
#include "../verbs.hpp"

#include <cstdint>
#include <string>

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
    for (auto const& b : r->buckets) out += bucket_line(b.creation_date, b.name);
  }
  if (!write_stdout(out)) co_return exit_error;
  co_return exit_ok;
}

awaitable<int> cmd_ls(context& x) {
  if (x.cl.args.empty() || (x.cl.args[0].size() == 5 && is_s3_uri(x.cl.args[0]))) co_return co_await cmd_ls_buckets(x);
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  // Printed a page at a time, as the pages arrive: a listing is never held
  // whole. --json streams its objects; the prefixes (a "directory" each,
  // any number of them) follow them, kept meanwhile in a spill_buffer.
  bool const recursive = x.cl.recursive, human = x.cl.human_readable, json = x.g.json;
  list_pages pages(x, u->bucket, u->key, recursive ? "" : "/");
  s3::list_page page;
  std::uint64_t objects = 0, bytes = 0, prefixes = 0;
  json_writer w;
  json_writer held(json_elements);  // --json: writes the prefixes for held_prefixes
  spill_buffer held_prefixes;       // --json: the prefixes as JSON values, comma-separated
  bool begun = false;               // --json: part of the document is on stdout
  // The rest of the --json document after its objects.
  auto end_document = [&] {
    w.end_array().key("prefixes").begin_array().splice_values(!held_prefixes.empty());
    if (!write_stdout(w.take()) || !held_prefixes.write_to_stdout()) return false;
    w.end_array();
    if (x.cl.summarize) w.field("total_objects", objects).field("total_size", bytes);
    return write_stdout(w.end_object().line());
  };
  if (json) w.begin_object().field("bucket", u->bucket).field("prefix", u->key).key("objects").begin_array();
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
    prefixes += page.common_prefixes.size();
    for (auto const& p : page.common_prefixes) {
      if (!json) {
        out += prefix_line(p);
        continue;
      }
      if (auto r = held_prefixes.append(held.value(p).take()); !r) co_return fail(x, r.error(), "ListObjectsV2", resource_of(u->bucket, u->key));
    }
    for (auto const& o : page.objects) {
      ++objects;
      bytes += o.size;
      if (json) {
        w.begin_object().field("key", o.key).field("size", o.size).field("etag", o.etag);
        w.field("last_modified", o.last_modified).field("storage_class", o.storage_class).end_object();
      } else {
        out += object_line(o.last_modified, o.size, listed_name(o.key, recursive), human);
      }
    }
    if (json) {
      out = w.take();
      begun = true;
    }
    if (!write_stdout(out)) co_return exit_error;
  }
  if (json) {
    if (!end_document()) co_return exit_error;
  } else if (x.cl.summarize && !write_stdout(summary_lines(objects, bytes, human))) {
    co_return exit_error;
  }
  // As aws s3 ls: a prefix that matches nothing is not a success, so that
  // `if floe ls s3://b/p/; then` tests for it (a bare bucket may be empty).
  if (!u->key.empty() && objects == 0 && prefixes == 0) co_return exit_not_found;
  co_return exit_ok;
}

constexpr option_spec ls_recursive{"recursive", 'r', "", "every key under the prefix, not grouped at '/'",
                                set_flag<&command_line::recursive>};
constexpr option_spec human_readable{"human-readable", 0, "", "sizes as 1.0 KiB, 3.5 MiB, ...",
                                     set_flag<&command_line::human_readable>};
constexpr option_spec summarize{"summarize", 0, "", "end with the number of objects and their total size",
                                set_flag<&command_line::summarize>};
constexpr option_spec const* ls_options[] = {&ls_recursive, &human_readable, &summarize};

constexpr verb_spec ls_verbs[] = {
    {.name = "ls",
     .min_args = 0,
     .max_args = 1,
     .operands = "[s3://BUCKET[/PREFIX]]",
     .summary = "list buckets or objects",
     .description = "With no bucket ('floe ls' or 'floe ls s3://'): lists the buckets (ListBuckets).\n"
                    "Text: CREATION-DATE NAME; --json: {\"buckets\": [{\"name\", \"creation_date\",\n"
                    "\"region\"}], \"owner\": {\"id\", \"display_name\"}}.\n\n"
                    "Lists the keys starting with PREFIX, column for column as aws s3 ls: DATE TIME\n"
                    "(local time) SIZE NAME, where NAME is the part after the last '/' (the whole\n"
                    "key with --recursive), and, without --recursive, PRE lines for the keys\n"
                    "grouped at '/'. A PREFIX that matches nothing exits 4. --json: one object with\n"
                    "\"objects\" (whole keys) and \"prefixes\".\n",
     .options = ls_options,
     .run = cmd_ls},
};

}  // namespace

namespace verbs {
extern family const ls = ls_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
