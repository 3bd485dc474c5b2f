// Fuzz target: error-body parsing and classification on arbitrary bytes.
//
// With clang and -Dfuzzing=true this is a libFuzzer target (ASan + UBSan);
// with replay_main.cpp (any compiler) a replay program (fuzz/README.md).
//
// Besides "no crash, no throw, no sanitizer report", the target checks a few
// invariants and aborts when one breaks, so the fuzzer reports it.

#include <floe/errors/classify.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/xml/document.hpp>
#include <floe/xml/error_body.hpp>

#include "fuzz_support.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using floe_fuzz::check;
using floe_fuzz::fnv1a;

// Walks the whole tree (bounded by the depth cap) through the element API.
std::size_t walk(floe::xml::element e, unsigned depth) {
  check(depth <= 64, "tree deeper than max_depth");
  std::size_t n = 1 + e.name().size() + e.text().size();
  if (auto v = e.text_view()) check(*v == e.text(), "text_view differs from text");
  for (auto c : e.children()) n += walk(c, depth + 1);
  return n;
}

void check_body(floe::xml::error_body const& b) {
  check(!b.code.empty(), "an error body without a code was accepted");
  for (auto const& [name, value] : b.other) {
    std::string lower;
    for (char c : name) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower.find("signature") != std::string::npos || lower.find("token") != std::string::npos) {
      check(value == "(redacted)", "a signature/token field was not redacted");
    }
  }
}

void check_classification(floe::errors::reply_facts const& f, floe::errors::classification c) {
  using floe::errors::kind;
  check(!c.reason.empty(), "classification without a reason");
  if (f.reply_lost || f.status == 0) {
    check(c.outcome == (f.conditional_write() ? kind::unknown_outcome : kind::transient), "lost reply");
  } else if (f.status == 412) {
    check(c.outcome == kind::precondition_failed, "412 must be precondition_failed");
  } else if (f.status == 501) {
    check(c.outcome == kind::unsupported, "501 must be unsupported");
  }
  if (f.is_credential_fetch) check(c.outcome != kind::stale_credentials, "credential fetch judged stale");
  if (c.outcome == kind::success) check(f.code.empty(), "an error code classified as success");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);

  // 1. The error-body parser under its default limits.
  auto body = floe::xml::parse_error_body(bytes);
  std::string_view code;
  if (body) {
    check_body(body.value());
    code = body.value().code;
  } else {
    check(!body.error().diag.message.empty(), "an error without a reason");
  }

  // 2. The generic reader with room to spare, walked through the element API.
  auto doc = floe::xml::parse(bytes, {.max_bytes = 1 << 20, .max_depth = 64});
  if (doc) (void)walk(doc.value().root(), 1);

  // 3. The classifier over a grid of facts, with the parsed code and with
  //    the raw bytes as a code (the code lists must take any string).
  static constexpr unsigned statuses[] = {0, 200, 301, 304, 400, 403, 404, 409, 412, 429, 500, 501, 503};
  std::string_view const raw_code = bytes.substr(0, 40);
  for (unsigned s : statuses) {
    for (unsigned flags = 0; flags < 64; flags += 7) {
      floe::errors::reply_facts f;
      f.status = s;
      f.code = (flags & 32) != 0 ? raw_code : code;
      f.method = (flags & 16) != 0 ? "HEAD" : "PUT";
      f.is_conditional_write = (flags & 1) != 0;
      f.if_match = (flags & 2) != 0;
      f.credentials_refreshable = (flags & 4) != 0;
      f.is_credential_fetch = (flags & 8) != 0;
      f.reply_lost = s == 0;
      if ((flags & 4) != 0) f.clock_skew = std::chrono::seconds(static_cast<long>(size) * 7 - 600);
      check_classification(f, floe::errors::classify(f));
    }
  }

  // 4. The whole path, with facts picked by the input's hash.
  auto const h = fnv1a(bytes);
  floe::errors::reply_facts f;
  f.status = statuses[h % (sizeof statuses / sizeof statuses[0])];
  f.is_conditional_write = (h >> 8 & 1) != 0;
  f.if_match = (h >> 9 & 1) != 0;
  f.credentials_refreshable = (h >> 10 & 1) != 0;
  f.reply_lost = f.status == 0;
  auto r = floe::errors::describe_reply(f, bytes, {.request_id = "fuzz", .operation = "Fuzz"});
  check(r.err.code == (r.what.outcome == floe::errors::kind::success
                           ? floe::make_error_code(floe::errc::ok)
                           : floe::make_error_code(floe::errors::to_errc(r.what.outcome))),
        "error code does not match the kind");
  for (char c : r.err.diag.message) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "control char in message");
  (void)r.err.what();
  return 0;
}
