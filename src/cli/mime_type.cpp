// The extension table behind guess_content_type. Types are those of the
// IANA registry where one exists, else the name in common use (the Apache
// data formats); the web, text, image and archive ones agree with what
// `aws s3` sends from Python's table, so a tree uploaded by either is served
// the same.

#include "mime_type.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace floe::cli {

namespace {

using entry = std::pair<std::string_view, std::string_view>;

// Sorted by extension (lower case), for the binary search below.
constexpr auto table = std::to_array<entry>({
    {"7z", "application/x-7z-compressed"},
    {"arrow", "application/vnd.apache.arrow.file"},
    {"avif", "image/avif"},
    {"avro", "application/avro"},
    {"bmp", "image/bmp"},
    {"bz2", "application/x-bzip2"},
    {"css", "text/css"},
    {"csv", "text/csv"},
    {"gif", "image/gif"},
    {"gz", "application/gzip"},
    {"htm", "text/html"},
    {"html", "text/html"},
    {"ico", "image/vnd.microsoft.icon"},
    {"jpeg", "image/jpeg"},
    {"jpg", "image/jpeg"},
    {"js", "text/javascript"},
    {"json", "application/json"},
    {"jsonl", "application/x-ndjson"},
    {"md", "text/markdown"},
    {"mjs", "text/javascript"},
    {"mp3", "audio/mpeg"},
    {"mp4", "video/mp4"},
    {"ndjson", "application/x-ndjson"},
    {"orc", "application/vnd.apache.orc"},
    {"otf", "font/otf"},
    {"parquet", "application/vnd.apache.parquet"},
    {"pdf", "application/pdf"},
    {"png", "image/png"},
    {"svg", "image/svg+xml"},
    {"tar", "application/x-tar"},
    {"tgz", "application/gzip"},
    {"tif", "image/tiff"},
    {"tiff", "image/tiff"},
    {"tsv", "text/tab-separated-values"},
    {"ttf", "font/ttf"},
    {"txt", "text/plain"},
    {"wasm", "application/wasm"},
    {"wav", "audio/x-wav"},
    {"webm", "video/webm"},
    {"webp", "image/webp"},
    {"woff", "font/woff"},
    {"woff2", "font/woff2"},
    {"xml", "application/xml"},
    {"xz", "application/x-xz"},
    {"yaml", "application/yaml"},
    {"yml", "application/yaml"},
    {"zip", "application/zip"},
    {"zst", "application/zstd"},
});

constexpr bool sorted() {
  for (std::size_t i = 1; i < table.size(); ++i)
    if (!(table[i - 1].first < table[i].first)) return false;
  return true;
}
static_assert(sorted(), "the table must stay sorted by extension");

constexpr std::size_t longest_extension = 8;

}  // namespace

std::string_view guess_content_type(std::string_view path) noexcept {
  auto const slash = path.find_last_of('/');
  std::string_view const name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  auto const dot = name.find_last_of('.');
  // No extension, or a dot file with none (".json" is a name, as in Python).
  if (dot == std::string_view::npos || dot == 0) return {};
  std::string_view const ext = name.substr(dot + 1);
  if (ext.empty() || ext.size() > longest_extension) return {};
  char lower[longest_extension];
  for (std::size_t i = 0; i < ext.size(); ++i) {
    char const c = ext[i];
    lower[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
  std::string_view const key(lower, ext.size());
  auto it = std::lower_bound(table.begin(), table.end(), key,
                             [](entry const& e, std::string_view k) { return e.first < k; });
  if (it == table.end() || it->first != key) return {};
  return it->second;
}

}  // namespace floe::cli
