// Fuzz target: SQS message bodies as S3 events (watch::parse_event_message),
// key decoding and object patterns, on arbitrary bytes.
//
// With clang and -Dfuzzing=true this is a libFuzzer target (ASan + UBSan);
// with replay_main.cpp (any compiler) a replay program (fuzz/README.md).
//
// Besides "no crash, no throw, no sanitizer report", the target checks
// invariants and aborts when one breaks, so the fuzzer reports it.

#include <floe/json/writer.hpp>
#include <floe/watch/event.hpp>
#include <floe/watch/pattern.hpp>

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using floe_fuzz::check;

bool printable_message(std::string const& m) { return !m.empty() && floe_fuzz::printable_line(m); }

// The inverse of decode_event_key for the round trip: every byte that is
// not unreserved is %XX, a space is '+'.
std::string form_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

void check_message(floe::watch::event_message const& m) {
  using namespace floe::watch;
  if (m.kind == message_kind::test_event) {
    check(m.events.empty(), "a test event with object events");
    check(asks_for_nothing(m), "a test event asks for something");
    return;
  }
  check(!m.events.empty(), "an object-events message without events");
  check(m.events.size() <= event_limits{}.max_records, "more records than the limit");
  bool any = false;
  for (auto const& e : m.events) {
    check(!e.bucket.empty() && e.bucket.find('/') == std::string::npos, "a bad bucket was accepted");
    check(!e.key.empty() && e.key.size() <= 1024, "a key outside 1..1024 bytes was accepted");
    check(floe::json::valid_utf8(e.key), "a key that is not UTF-8 was accepted");
    check(!e.name.empty(), "an event without a name");
    check(e.etag.size() < 2 || e.etag.front() != '"' || e.etag.back() != '"', "an ETag kept its quotes");
    check(e.version_id != "null", "version id \"null\" kept");
    check((e.kind == event_kind::object_created) == wants_action(e), "wants_action disagrees with the kind");
    any = any || wants_action(e);
  }
  check(asks_for_nothing(m) == !any, "asks_for_nothing disagrees with the events");
  check(m.sns_envelope || m.sns_message_id.empty(), "an SNS message id without an envelope");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);
  using namespace floe::watch;

  // 1. The whole body.
  auto m = parse_event_message(bytes);
  if (m) {
    check_message(*m);
  } else {
    check(m.error().code == floe::make_error_code(floe::errc::malformed_reply) ||
              m.error().code == floe::make_error_code(floe::errc::reply_too_large),
          "an unexpected error code");
    check(printable_message(m.error().diag.message), "an error without a printable reason");
    check(m.error().diag.message.size() < 1024, "an error reason that is too long");
  }

  // 2. Key decoding: at most as long as its input, UTF-8, and a round trip.
  auto k = decode_event_key(bytes);
  if (k) {
    check(k->size() <= bytes.size(), "a decoded key longer than its encoding");
    check(floe::json::valid_utf8(*k), "a decoded key that is not UTF-8");
    auto again = decode_event_key(form_encode(*k));
    check(again && *again == *k, "decode(encode(key)) is not the key");
  }

  // 3. Patterns: the input as the key part of a pattern, matched against
  //    itself and against a few keys made from it.
  std::string const text = "s3://b/" + std::string(bytes.substr(0, 2100));
  auto p = pattern::parse(text);
  if (p) {
    std::string_view const key = std::string_view(text).substr(7);
    bool const literal = key.find('*') == std::string_view::npos && !key.empty() && key.back() != '/';
    bool const self = p->matches("b", key);
    if (literal) check(self, "a pattern without wildcards does not match its own key");
    check(!p->matches("other", key), "a pattern matched another bucket");
    (void)p->matches("b", std::string(key) + "/x");
    (void)p->matches("b", "x/" + std::string(key));
  } else {
    check(p.error().code == floe::make_error_code(floe::errc::invalid_argument), "a pattern error of the wrong kind");
  }
  (void)match_segment(bytes.substr(0, 64), bytes.substr(size / 2));
  return 0;
}
