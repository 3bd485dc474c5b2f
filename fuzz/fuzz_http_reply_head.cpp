// Fuzz target: HTTP/1.1 replies as floe reads them from bytes —
// http::parse_reply_head (a head alone) and http::detail::reply_reader (the
// sans-I/O state machine a connection feeds, head and body).
//
// Input: one options byte, one split byte, then the bytes a server sent.
//   options: bit 0 a reply to HEAD; bit 1 the caller waits for a 100
//   Continue; bits 2-3 header_limit (64 KiB, 256, 1024, 40); bits 4-5
//   body_limit and bits 6-7 error_body_limit (unbounded, 0, 16, 1000).
//   split: seeds the sizes of the pieces the bytes are fed in.
//
// With clang and -Dfuzzing=true this is a libFuzzer target (ASan + UBSan);
// with replay_main.cpp (any compiler) a replay program (fuzz/README.md).
//
// Besides "no crash, no throw, no hang, no sanitizer report":
// - parse_reply_head: a complete head's size is within the bytes and the
//   header_limit, it parses the same from exactly its own bytes, and any
//   shorter prefix needs more; the fields hold no CR, LF or NUL and every
//   name is non-empty; a refusal is malformed_reply or reply_too_large with
//   a message, reply_too_large only past the header_limit.
// - reply_reader, fed the bytes whole, one byte at a time and in pieces
//   the split byte chooses (as a connection does: the bytes it did not use
//   are fed again with more): the same outcome every way (state; for a
//   reply read, status, fields, body, keep-alive and bytes used; for a
//   failure, the error and why); a done reply's
//   head agrees with parse_reply_head's (skipping 1xx heads); its body never
//   exceeds what the framing says (Content-Length exactly, nothing with
//   framing none) nor its limit; a refusal has its code and a message.

#include <floe/error.hpp>
#include <floe/http/message.hpp>
#include <floe/http/reply_reader.hpp>

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace {

using floe_fuzz::check;
namespace http = floe::http;

constexpr std::uint32_t header_limits[] = {64 * 1024, 256, 1024, 40};
constexpr std::uint64_t body_limits[] = {UINT64_MAX, 0, 16, 1000};

bool clean(std::string_view s) {
  for (char c : s)
    if (c == '\r' || c == '\n' || c == '\0') return false;
  return true;
}

void check_fields(http::fields const& f) {
  check(f.valid(), "an accepted head's fields are marked invalid");
  for (std::size_t i = 0; i < f.size(); ++i) {
    check(!f[i].name.empty(), "an empty field name");
    check(clean(f[i].name) && clean(f[i].value), "CR, LF or NUL in an accepted field");
  }
}

bool same_fields(http::fields const& a, http::fields const& b) { return a.wire() == b.wire(); }

// Reads the final (non-1xx) head the way the reader does: past every
// interim head (a 100 stops there when `interim`).
struct head_walk {
  http::head_parse parse;
  http::reply_head head;
  std::size_t offset = 0;  // where the head read last begins
};

head_walk walk_heads(std::string_view bytes, http::reply_head_params const& p, bool interim) {
  head_walk w;
  for (;;) {
    w.parse = http::parse_reply_head(bytes.substr(w.offset), w.head, p);
    if (w.parse.state != http::head_state::complete || w.head.status >= 200) return w;
    if (interim && w.head.status == 100) return w;
    w.offset += w.head.size;
  }
}

void check_head(std::string_view bytes, http::reply_head_params const& p) {
  http::reply_head h;
  auto const r = http::parse_reply_head(bytes, h, p);
  switch (r.state) {
    case http::head_state::need_more:
      check(!r.err.code, "need_more with an error");
      return;
    case http::head_state::refused:
      check(r.err.code == floe::errc::malformed_reply || r.err.code == floe::errc::reply_too_large ||
                r.err.code == boost::system::errc::not_enough_memory,
            "a head refused with an unexpected code");
      check(!r.err.diag.message.empty() && floe_fuzz::printable_line(r.err.diag.message),
            "a refusal without a one-line message");
      if (r.err.code == floe::errc::reply_too_large)
        check(bytes.size() >= p.header_limit, "reply_too_large within the header_limit");
      return;
    case http::head_state::complete: break;
  }
  check(h.size > 0 && h.size <= bytes.size(), "a head's size outside the bytes");
  check(h.size <= p.header_limit, "a head over the header_limit accepted");
  check(h.status >= 100 && h.status <= 999, "a status outside 100..999");
  check_fields(h.headers);
  if (h.framing == http::reply_framing::length) check(h.content_length > 0, "length framing of 0 bytes");
  if (h.status < 200 || h.status == 204 || h.status == 304 || p.head_request)
    check(h.framing == http::reply_framing::none, "a reply that has no body is framed for one");

  http::reply_head again;
  auto const exact = http::parse_reply_head(bytes.substr(0, h.size), again, p);
  check(exact.state == http::head_state::complete, "a head does not parse from its own bytes");
  check(again.size == h.size && again.status == h.status && same_fields(again.headers, h.headers) &&
            again.framing == h.framing && again.content_length == h.content_length &&
            again.keep_alive == h.keep_alive,
        "a head parses differently from its own bytes");
  for (std::size_t cut : {h.size - 1, h.size / 2, std::size_t{1}}) {
    if (cut == 0 || cut >= h.size) continue;
    auto const part = http::parse_reply_head(bytes.substr(0, cut), again, p);
    check(part.state == http::head_state::need_more, "a prefix of an accepted head is not need_more");
  }
}

struct outcome {
  http::detail::reply_reader::state state{};
  unsigned status = 0;
  std::string fields;
  std::string body;
  std::uint64_t body_bytes = 0;
  bool keep_alive = false;
  bool head_done = false;
  boost::system::error_code ec;
  std::string why;
  std::size_t used = 0;   // bytes of the input the reply took
  bool eof_ended = false; // the end of the stream ended the reply

  // What must not depend on the pieces: everything of a reply read (done,
  // or stopped at an awaited 100), the error of a failed one; of a reply
  // still reading at the end only that (how much of an unfinished head
  // the parser has taken is its own business).
  friend bool operator==(outcome const& a, outcome const& b) {
    using st = http::detail::reply_reader::state;
    if (a.state != b.state) return false;
    switch (a.state) {
      case st::reading: return a.eof_ended == b.eof_ended;
      case st::failed: return a.ec == b.ec && a.why == b.why;
      case st::interim:
      case st::done: break;
    }
    return a.status == b.status && a.fields == b.fields && a.body == b.body && a.body_bytes == b.body_bytes &&
           a.keep_alive == b.keep_alive && a.head_done == b.head_done && a.used == b.used &&
           a.eof_ended == b.eof_ended;
  }
};

// A tiny deterministic generator for piece sizes.
struct pieces {
  std::uint32_t s;
  std::size_t next() {
    s = s * 1103515245u + 12345u;
    auto const r = (s >> 16) & 0x7fff;
    // Mostly small pieces, now and then a large one.
    return (r & 7) == 0 ? 1 + r % 512 : 1 + r % 9;
  }
};

// Feeds `wire` as a connection does: each piece is appended to what the
// reader left, until the reply is over; then the end of the stream.
outcome read_reply(std::string_view wire, http::request const& req, http::detail::reply_limits const& limits,
                   bool interim, int mode, std::uint32_t seed) {
  http::response res;
  http::detail::reply_reader r(res, req, limits, interim);
  outcome o;
  std::string pending;
  std::size_t at = 0;  // bytes of wire handed over
  pieces gen{seed};
  using st = http::detail::reply_reader::state;
  while (r.status() == st::reading && at < wire.size()) {
    std::size_t n = mode == 0 ? wire.size() - at : mode == 1 ? 1 : gen.next();
    if (n > wire.size() - at) n = wire.size() - at;
    pending.append(wire.substr(at, n));
    at += n;
    auto const used = r.feed(pending);
    check(used <= pending.size(), "feed used more than it was given");
    pending.erase(0, used);
    o.used = at - pending.size();
    // Done or failed: what is left belongs to the next reply (or nobody).
  }
  if (r.status() == st::reading) o.eof_ended = r.feed_eof();
  o.state = r.status();
  o.status = res.status;
  o.fields = std::string(res.headers.wire());
  o.body = res.body;
  o.body_bytes = res.body_bytes;
  o.keep_alive = r.keep_alive();
  o.head_done = r.head_done();
  o.ec = r.error();
  o.why = r.why();
  if (o.state == st::done) check(o.keep_alive == res.keep_alive, "keep_alive and the response disagree");
  if (o.state == st::done || o.state == st::interim) check_fields(res.headers);
  return o;
}

void check_reader(std::string_view wire, bool head_request, bool interim, http::detail::reply_limits const& limits,
                  std::uint32_t seed) {
  http::request req;
  if (head_request) req.method = "HEAD";
  auto const whole = read_reply(wire, req, limits, interim, 0, seed);
  auto const bytewise = read_reply(wire.substr(0, 4096), req, limits, interim, 1, seed);
  if (wire.size() <= 4096) check(bytewise == whole, "one byte at a time reads differently");
  auto const split = read_reply(wire, req, limits, interim, 2, seed);
  check(split == whole, "the reply reads differently in other pieces");

  using st = http::detail::reply_reader::state;
  check(whole.used <= wire.size(), "more bytes used than sent");
  if (whole.state == st::failed) {
    check(whole.ec == floe::errc::malformed_reply || whole.ec == floe::errc::reply_too_large,
          "a reply failed with an unexpected code");
    check(!whole.why.empty() && floe_fuzz::printable_line(whole.why), "a failure without a one-line why");
    return;
  }
  check(!whole.ec && whole.why.empty(), "an error without a failure");
  if (whole.state == st::reading) {
    check(!whole.eof_ended, "the end of the stream ended a reply left reading");
    return;
  }

  // done or interim: the head read must be the one parse_reply_head reads.
  auto const w = walk_heads(wire, {limits.header_limit, head_request}, interim);
  check(w.parse.state == http::head_state::complete, "the reader took a head parse_reply_head does not");
  check(w.head.status == whole.status, "the reader and parse_reply_head disagree on the status");
  check(whole.fields.starts_with(w.head.headers.wire()), "the reader and parse_reply_head disagree on the fields");
  if (whole.state == st::interim) {
    check(whole.status == 100 && interim, "an interim state for something other than an awaited 100");
    check(whole.body_bytes == 0, "a 100 Continue with a body");
    return;
  }
  check(whole.status >= 200, "a 1xx as the final reply");
  check(whole.head_done, "done without its head");
  bool const ok = whole.status >= 200 && whole.status < 300;
  check(whole.body_bytes <= (ok ? limits.body_limit : limits.error_body_limit), "a body over its limit");
  check(whole.body.size() == whole.body_bytes, "a memory body's bytes and size differ");
  std::size_t const body_at = w.offset + w.head.size;
  switch (w.head.framing) {
    case http::reply_framing::none:
      check(whole.body_bytes == 0, "a body where the head declares none");
      check(whole.used == body_at, "a reply without a body used more than its head");
      break;
    case http::reply_framing::length:
      check(whole.body_bytes == w.head.content_length, "a body other than its Content-Length");
      check(whole.used == body_at + w.head.content_length, "a Content-Length reply used other than its bytes");
      check(wire.substr(body_at, whole.body.size()) == whole.body, "a Content-Length body other than its bytes");
      check(whole.fields == w.head.headers.wire(), "fields beyond the head's");
      break;
    case http::reply_framing::chunked:
      // The chunk lines take at least 5 bytes ("0\r\n\r\n").
      check(whole.used >= body_at + whole.body_bytes + 5, "a chunked body longer than its bytes");
      break;
    case http::reply_framing::until_close:
      check(whole.eof_ended, "a reply delimited by the close ended before it");
      check(whole.used == wire.size(), "a reply delimited by the close left bytes");
      check(wire.substr(body_at) == whole.body, "a body delimited by the close other than its bytes");
      check(!whole.keep_alive, "a body delimited by the close keeps the connection");
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size < 2) return 0;
  unsigned const options = data[0];
  std::uint32_t const seed = data[1];
  std::string_view const wire(reinterpret_cast<char const*>(data) + 2, size - 2);

  bool const head_request = (options & 1) != 0;
  bool const interim = (options & 2) != 0;
  http::detail::reply_limits limits;
  limits.header_limit = header_limits[(options >> 2) & 3];
  limits.body_limit = body_limits[(options >> 4) & 3];
  limits.error_body_limit = body_limits[(options >> 6) & 3];

  check_head(wire, {limits.header_limit, head_request});
  check_reader(wire, head_request, interim, limits, seed);
  return 0;
}
