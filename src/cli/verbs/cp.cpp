// cp and cat: objects to and from files, stdin and stdout, and between keys.
// A single object is transfer.hpp's; cp --recursive is recursive_copy.cpp.

#include "../context.hpp"
#include "../options.hpp"
#include "../output.hpp"
#include "../recursive_copy.hpp"
#include "../s3_uri.hpp"
#include "../transfer.hpp"
#include "../verbs.hpp"

#include <filesystem>

namespace floe::cli {

namespace {

namespace fs = std::filesystem;
using boost::asio::awaitable;

awaitable<int> cmd_cp(context& x) {
  std::string const& src = x.cl.args[0];
  std::string const& dst = x.cl.args[1];
  bool const s3_src = is_s3_uri(src), s3_dst = is_s3_uri(dst);
  if (!s3_src && !s3_dst) co_return usage_error(x, "one of SRC and DST must be an s3:// URI");
  if (x.cl.recursive) co_return co_await recursive_copy(x);
  if (s3_src) {
    auto s = parse_s3_uri(src);
    if (!s) co_return usage_error(x, s.error().diag.message);
    if (s->key.empty() || s->key.back() == '/') co_return usage_error(x, "SRC names no object (use --recursive for a prefix)");
    if (s3_dst) {
      auto d = parse_s3_uri(dst);
      if (!d) co_return usage_error(x, d.error().diag.message);
      std::string dk = d->key;
      if (dk.empty() || dk.back() == '/') dk += base_name(s->key);
      co_return co_await copy_one(x, s->bucket, s->key, d->bucket, dk, nullptr);
    }
    std::string local = dst;
    std::error_code ec;
    if (local != "-" && (local.back() == '/' || fs::is_directory(local, ec))) {
      if (local.back() != '/') local += '/';
      local += base_name(s->key);
    }
    co_return co_await download_one(x, s->bucket, s->key, local, false, nullptr);
  }
  auto d = parse_s3_uri(dst);
  if (!d) co_return usage_error(x, d.error().diag.message);
  std::string dk = d->key;
  if (dk.empty() || dk.back() == '/') {
    if (src == "-") co_return usage_error(x, "DST must name a key when SRC is stdin");
    dk += base_name(src);
  }
  if (src != "-") {
    std::error_code ec;
    if (fs::is_directory(src, ec)) co_return usage_error(x, "'" + printable(src) + "' is a directory (use --recursive)");
  }
  co_return co_await upload_one(x, src, d->bucket, dk, nullptr);
}

awaitable<int> cmd_cat(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  std::string const out = "-";
  co_return co_await download_one(x, u->bucket, u->key, out, true, nullptr);
}

result<void> set_concurrency(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (!parse_unsigned(value, n) || n < 1 || n > 64) return usage("--concurrency takes 1 to 64");
  cl.concurrency = static_cast<unsigned>(n);
  return {};
}

constexpr option_spec recursive{"recursive", 'r', "", "copy a directory or prefix", set_flag<&command_line::recursive>};
constexpr option_spec concurrency{"concurrency", 0, "N", "objects in flight with --recursive (1-64, default 8)",
                                  set_concurrency};
constexpr option_spec const* cp_options[] = {&recursive, &concurrency, &content_type_option, &metadata_option,
                                             &no_progress_option};

constexpr verb_spec cp_verbs[] = {
    {.name = "cp",
     .min_args = 2,
     .max_args = 2,
     .operands = "SRC DST",
     .summary = "copy objects and files",
     .description = "Copies local to S3, S3 to local, or S3 to S3 (server side). '-' is stdin or\n"
                    "stdout. A DST ending in '/' (or an existing directory) receives the source's\n"
                    "base name. Large files go up in parallel parts. With --recursive, SRC is a\n"
                    "directory or an S3 prefix and several objects move at once; keys that would\n"
                    "leave the destination directory ('..' segments, absolute) are refused, and\n"
                    "local entries that are not regular files (fifos, sockets, devices, links to\n"
                    "directories) are skipped, each named on stderr. --json --recursive: one\n"
                    "document, {\"source\", \"destination\", \"objects\": [{\"source\", \"destination\",\n"
                    "\"size\", \"etag\"}], \"skipped\": [{\"path\", \"reason\"}], \"errors\": [...],\n"
                    "\"copied\", \"failed\", \"bytes\", \"exit_code\"}, the same in every direction.\n",
     .options = cp_options,
     .run = cmd_cp},
    {.name = "cat",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET/KEY",
     .summary = "object to stdout",
     .description = "Writes the object to stdout.\n",
     .run = cmd_cat},
};

}  // namespace

namespace verbs {
extern family const cp = cp_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
