#pragma once
// An aws-chunked body decoder of the tests' own, written from the format
// (not from floe's encoder): "<hex size>[;ext]\r\n<bytes>\r\n" chunks, a
// "0\r\n" chunk, trailer lines "name:value\r\n", a final "\r\n". It checks
// what an S3 store checks and reports the first thing wrong. Used by the
// encoder's unit test and its fuzz target.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace floe::test {

struct aws_chunked_decoded {
  std::string payload;
  std::map<std::string, std::string> trailers;  // names lower-cased
  std::string error;                            // empty: well formed
};

inline aws_chunked_decoded decode_aws_chunked(std::string_view in) {
  aws_chunked_decoded out;
  auto fail = [&out](std::string why) {
    out.error = std::move(why);
    return out;
  };
  std::size_t at = 0;
  auto line = [&]() -> std::optional<std::string_view> {
    auto const end = in.find("\r\n", at);
    if (end == std::string_view::npos) return std::nullopt;
    auto l = in.substr(at, end - at);
    at = end + 2;
    return l;
  };
  for (;;) {
    auto l = line();
    if (!l) return fail("a chunk size line without CRLF at " + std::to_string(at));
    auto const size_text = l->substr(0, l->find(';'));
    if (size_text.empty() || size_text.size() > 15) return fail("bad chunk size '" + std::string(*l) + "'");
    std::uint64_t n = 0;
    for (char c : size_text) {
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return fail("bad chunk size '" + std::string(*l) + "'");
      n = n * 16 + static_cast<std::uint64_t>(d);
    }
    if (n == 0) break;
    if (in.size() - at < n + 2) return fail("a chunk runs past the end");
    out.payload.append(in.substr(at, n));
    at += n;
    if (in.substr(at, 2) != "\r\n") return fail("a chunk is not followed by CRLF");
    at += 2;
  }
  for (;;) {
    auto l = line();
    if (!l) return fail("the trailer does not end with an empty line");
    if (l->empty()) break;
    auto const colon = l->find(':');
    if (colon == std::string_view::npos) return fail("a trailer line without ':'");
    std::string name(l->substr(0, colon));
    for (auto& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    out.trailers[name] = std::string(l->substr(colon + 1));
  }
  if (at != in.size()) return fail("bytes after the end");
  return out;
}

}  // namespace floe::test
