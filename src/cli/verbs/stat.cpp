// stat: an object's metadata (HeadObject), and a cheap change check.

#include "../context.hpp"
#include "../json_writer.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../verbs.hpp"

#include <floe/s3/conditional.hpp>

#include <cstdio>

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_stat(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  s3::read_conditions cond;
  cond.if_match = x.cl.if_match;
  cond.if_none_match = x.cl.if_none_match;
  op_trace trace(x, "HeadObject", "HEAD", u->bucket, std::string_view(u->key));
  auto r = co_await x.c.async_head_object(u->bucket, u->key, cond);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "HeadObject", resource_of(u->bucket, u->key));
  auto const& i = r->info;
  std::string uri = uri_of(u->bucket, u->key);
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("uri", uri).field("not_modified", r->not_modified).field("size", i.size);
    w.field("etag", r->not_modified ? std::string_view(s3::normalize_etag(x.cl.if_none_match)) : std::string_view(i.etag));
    w.field("last_modified", i.last_modified).field("content_type", i.content_type).field("version_id", i.version_id);
    w.key("metadata").begin_object();
    for (auto const& [k, v] : i.metadata) w.field(k, v);
    w.end_object();
    // The checksums the store returned (asked with x-amz-checksum-mode).
    w.key("checksums").begin_object();
    for (auto const& c : i.checksums) w.field(checksum::s3_name(c.alg), c.value);
    w.end_object().field("checksum_type", i.checksum_type).end_object();
    write_stdout(w.line());
  } else if (!r->not_modified) {
    std::string s = "uri:           " + printable(uri) + "\n";
    s += "size:          " + std::to_string(i.size) + "\n";
    s += "etag:          " + printable(i.etag) + "\n";
    s += "last-modified: " + printable(i.last_modified) + "\n";
    s += "content-type:  " + printable(i.content_type) + "\n";
    if (!i.version_id.empty()) s += "version-id:    " + printable(i.version_id) + "\n";
    for (auto const& [k, v] : i.metadata) s += "meta " + printable(k) + ": " + printable(v) + "\n";
    for (auto const& c : i.checksums) {
      s += "checksum:      " + std::string(checksum::s3_name(c.alg)) + " " + printable(c.value);
      if (!i.checksum_type.empty()) s += " (" + printable(i.checksum_type) + ")";
      s += "\n";
    }
    // A store that ignores checksums (Swift) returns none, nor does one for
    // an object uploaded without.
    if (i.checksums.empty()) s += "checksum:      none returned by the store\n";
    write_stdout(s);
  }
  if (r->not_modified) {
    // If-None-Match held the ETag: the condition for "changed" is not met.
    if (!x.g.json) {
      std::string line = "floe: stat " + printable(resource_of(u->bucket, u->key)) + ": 304 not modified (ETag " +
                         printable(s3::normalize_etag(x.cl.if_none_match)) + ")\n";
      std::fwrite(line.data(), 1, line.size(), stderr);
    }
    co_return exit_condition;
  }
  co_return exit_ok;
}

result<void> check_stat(command_line const& cl) {
  if (!cl.if_none_match.empty() && cl.if_none_match == "*") return usage("stat --if-none-match takes an ETag");
  return {};
}

constexpr option_spec stat_if_none_match{"if-none-match", 0, "ETAG",
                                    "exit 3 (\"not modified\") when the ETag is still ETAG: a cheap\nchange check",
                                    set_if_none_match};
constexpr option_spec stat_if_match{"if-match", 0, "ETAG", "exit 3 (precondition failed) unless the ETag is ETAG",
                               set_if_match};
constexpr option_spec const* stat_options[] = {&stat_if_none_match, &stat_if_match};

constexpr verb_spec stat_verbs[] = {
    {.name = "stat",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET/KEY",
     .summary = "object metadata",
     .description = "HeadObject: size, ETag, last modified, content type, version id, metadata,\n"
                    "and the checksums the store keeps (asked with x-amz-checksum-mode; \"none\n"
                    "returned\" for a store that keeps none, or an object uploaded without).\n",
     .options = stat_options,
     .check = check_stat,
     .run = cmd_stat},
};

}  // namespace

namespace verbs {
extern family const stat = stat_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
