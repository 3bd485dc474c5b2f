// presign: a presigned URL (SigV4 query signing); nothing is sent.

#include "../context.hpp"
#include "../json_writer.hpp"
#include "../options.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../verbs.hpp"

#include <cstdio>

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_presign(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  // presign signs with what the provider holds now; a refreshing source
  // (web identity, roles, containers, IMDS) holds nothing in a fresh
  // process until asked, so ask (and wait) first.
  auto creds = co_await x.c.credentials_provider().async_get();
  if (!creds) co_return fail(x, creds.error(), "Presign", resource_of(u->bucket, u->key));
  std::string warning;
  auto r = x.c.presign(x.cl.method, u->bucket, u->key, x.cl.expires, &warning);
  if (!r) co_return fail(x, r.error(), "Presign", resource_of(u->bucket, u->key));
  if (!warning.empty()) {
    std::string line = "floe: warning: " + printable(warning) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("url", *r).field("method", x.cl.method).field("expires", x.cl.expires.count()).end_object();
    write_stdout(w.line());
  } else {
    write_stdout(*r + "\n");
  }
  co_return exit_ok;
}

// --expires and aws's name for it, --expires-in: one of them, once.
result<void> set_expires(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (cl.expires_given) return usage("--expires / --expires-in given twice");
  cl.expires_given = true;
  if (!parse_unsigned(value, n) || n < 1 || n > 604800)
    return usage("--expires / --expires-in takes seconds, 1 to 604800 (7 days)");
  cl.expires = std::chrono::seconds(static_cast<std::int64_t>(n));
  return {};
}

result<void> set_method(command_line& cl, std::string_view value) {
  std::string m(value);
  for (auto& c : m) c = static_cast<char>((c >= 'a' && c <= 'z') ? c - 32 : c);
  if (m != "GET" && m != "PUT" && m != "HEAD" && m != "DELETE") return usage("--method takes GET, PUT, HEAD or DELETE");
  cl.method = std::move(m);
  return {};
}

constexpr option_spec expires{"expires", 0, "SECONDS", "validity in seconds (default 3600, at most 604800)",
                              set_expires};
constexpr option_spec expires_in{"expires-in", 0, "SECONDS", "the same as --expires (aws s3 presign's name)",
                                 set_expires};
constexpr option_spec method{"method", 0, "METHOD", "the request the URL allows: GET (default), PUT, HEAD or DELETE",
                             set_method};
constexpr option_spec const* presign_options[] = {&expires, &expires_in, &method};

constexpr verb_spec presign_verbs[] = {
    {.name = "presign",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET/KEY",
     .summary = "presigned URL",
     .description = "Prints a presigned URL (SigV4 query signing), valid for --expires seconds.\n"
                    "Nothing is sent.\n",
     .options = presign_options,
     .run = cmd_presign},
};

}  // namespace

namespace verbs {
extern family const presign = presign_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
