// Fuzz target: SQS JSON replies and JSON-protocol error replies on
// arbitrary bytes.
//
// With clang and -Dfuzzing=true this is a libFuzzer target (ASan + UBSan);
// with replay_main.cpp (any compiler) a replay program (fuzz/README.md).
//
// Besides "no crash, no throw, no sanitizer report", the target checks the
// promises of the parsers and aborts when one breaks:
//   - a batch reply that parses puts every entry of the request in exactly
//     one of successful / failed;
//   - a received message handed over always matches its MD5OfBody, and a
//     send accepted always had the MD5 of the body sent;
//   - a decoded error has a bare code (no '#', no ':'), secrets redacted;
//   - describe_json_reply's error code is the one of its kind, and its
//     message holds no control character;
//   - the JSON writer writes any valid UTF-8 so that it reads back
//     unchanged, refuses anything else when told to, and otherwise writes
//     JSON that reads back whatever the bytes.

#include <floe/errors/json_error.hpp>
#include <floe/json/writer.hpp>
#include <floe/sqs/protocol.hpp>

#include <simdjson.h>

#include "fuzz_support.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using floe_fuzz::check;

namespace sqs = floe::sqs;
namespace errors = floe::errors;
namespace json = floe::json;

std::string const url = "http://127.0.0.1:1/123456789012/floe-q";

// Entry ids and bodies the seed replies use (tests/data/sqs/moto/), so
// mutations of real replies reach the per-entry logic.
sqs::send_message_batch_params send_batch() {
  sqs::send_message_batch_params p;
  p.queue_url = url;
  p.entries = {{.id = "a", .body = "first"}, {.id = "b", .body = "second \xc3\xbc\xf0\x9f\x9a\x80"}, {.id = "c", .body = "late"}};
  return p;
}

template <class Batch, class Result>
void check_partition(Batch const& p, Result const& r, std::size_t successful) {
  check(successful + r.failed.size() == p.entries.size(), "a batch entry lost or counted twice");
  for (auto const& f : r.failed) {
    bool known = false;
    for (auto const& e : p.entries) known = known || e.id == f.id;
    check(known, "a failure for an Id the request did not have");
  }
}

void check_error_body(floe::xml::error_body const& b) {
  check(!b.code.empty(), "an error without a code was accepted");
  check(b.code.find('#') == std::string::npos && b.code.find(':') == std::string::npos, "code not bare");
  for (auto const& [name, value] : b.other) {
    std::string lower;
    for (char c : name) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (lower.find("token") != std::string::npos || lower.find("signature") != std::string::npos ||
        lower.find("secret") != std::string::npos) {
      check(value == "(redacted)", "a secret-looking member was not redacted");
    }
  }
}

void replies(std::string_view bytes) {
  (void)sqs::parse_reply(sqs::create_queue_params{}, bytes);
  (void)sqs::parse_reply(sqs::get_queue_url_params{}, bytes);
  (void)sqs::parse_reply(sqs::get_queue_attributes_params{}, bytes);
  (void)sqs::parse_reply(sqs::purge_queue_params{}, bytes);

  sqs::send_message_params send{.queue_url = url, .body = "hello floe"};
  if (auto r = sqs::parse_reply(send, bytes)) check(sqs::md5_matches(r->md5_of_body, send.body), "send MD5 not checked");

  if (auto r = sqs::parse_reply(sqs::receive_message_params{}, bytes)) {
    for (auto const& m : r->messages) {
      check(sqs::md5_matches(m.md5_of_body, m.body), "a received body that fails its MD5 was handed over");
      check(!m.receipt_handle.empty(), "a message without a receipt handle");
      (void)m.receive_count();
      (void)m.sent_time();
      (void)m.first_receive_time();
    }
  }

  auto const batch = send_batch();
  if (auto r = sqs::parse_reply(batch, bytes)) {
    check_partition(batch, *r, r->successful.size());
    for (auto const& s : r->successful) {
      for (auto const& e : batch.entries) {
        if (e.id == s.id) check(sqs::md5_matches(s.md5_of_body, e.body), "a batch success with a wrong MD5");
      }
    }
  }
  sqs::delete_message_batch_params del{.queue_url = url, .entries = {{"ok", "h1"}, {"bad", "h2"}}};
  if (auto r = sqs::parse_reply(del, bytes)) check_partition(del, *r, r->successful.size());
  sqs::change_message_visibility_batch_params vis{.queue_url = url, .entries = {{"ok", "h1", {}}, {"bad", "h2", {}}}};
  if (auto r = sqs::parse_reply(vis, bytes)) check_partition(vis, *r, r->successful.size());
}

void json_errors(std::string_view bytes) {
  // Headers taken from the input too, so they are fuzzed as well.
  std::string_view const head = bytes.substr(0, 64);
  errors::json_error_headers const grid[] = {
      {},
      {.request_id = "rid", .query_error = "AWS.SimpleQueueService.NonExistentQueue;Sender"},
      {.query_error = head},
      {.error_type = head},
  };
  for (auto const& h : grid) {
    auto b = errors::parse_json_error(bytes, h);
    if (b) check_error_body(*b);
    else check(!b.error().diag.message.empty(), "an error without a reason");
  }
  check(errors::bare_error_code(head).find('#') == std::string_view::npos, "bare code keeps a '#'");

  static constexpr unsigned statuses[] = {0, 200, 400, 403, 404, 429, 500, 503};
  for (unsigned s : statuses) {
    for (unsigned flags = 0; flags < 8; ++flags) {
      errors::reply_facts f;
      f.status = s;
      f.method = "POST";
      f.reply_lost = s == 0;
      f.credentials_refreshable = (flags & 1) != 0;
      f.is_credential_fetch = (flags & 2) != 0;
      if ((flags & 4) != 0) f.clock_skew = std::chrono::seconds(static_cast<long>(bytes.size()) * 7 - 600);
      auto const& h = grid[flags % 4];
      auto r = errors::describe_json_reply(f, bytes, h, {.request_id = "fuzz", .operation = "Fuzz"});
      check(!r.what.reason.empty(), "classification without a reason");
      check(r.err.code == (r.what.outcome == errors::kind::success
                               ? floe::make_error_code(floe::errc::ok)
                               : floe::make_error_code(errors::to_errc(r.what.outcome))),
            "error code does not match the kind");
      if (f.is_credential_fetch) check(r.what.outcome != errors::kind::stale_credentials, "credential fetch judged stale");
      for (char c : r.err.diag.message) {
        check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "control character in a message");
      }
      (void)r.err.what();
    }
  }
}

std::string one_member(std::string_view bytes, json::bad_utf8 on_bad, bool& ok) {
  std::string doc;
  json::writer w(doc, json::writer_options{.on_bad_utf8 = on_bad});
  w.begin_object();
  w.key("MessageBody");
  w.value(bytes);
  w.end_object();
  ok = w.check().has_value();
  return doc;
}

void writer(std::string_view bytes) {
  bool const utf8 = json::valid_utf8(bytes);
  auto const body_ok = sqs::check_message_body(bytes, sqs::service_max_message_bytes, "MessageBody");
  if (body_ok) check(utf8, "a body that is not UTF-8 was accepted");

  bool refused_ok = false, replaced_ok = false;
  std::string const refused = one_member(bytes, json::bad_utf8::refuse, refused_ok);
  check(refused_ok == utf8, "the writer accepted text that is not UTF-8, or refused UTF-8");
  std::string const replaced = one_member(bytes, json::bad_utf8::replace, replaced_ok);
  check(replaced_ok, "the writer refused text while told to replace");
  simdjson::dom::parser p;
  simdjson::dom::element e;
  check(p.parse(replaced).get(e) == simdjson::SUCCESS, "the writer wrote what simdjson cannot read");
  std::string_view back;
  check(e["MessageBody"].get(back) == simdjson::SUCCESS, "a string did not read back");
  if (!utf8) return;
  check(refused == replaced, "valid UTF-8 written two ways");
  check(back == bytes, "a string did not read back unchanged");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);
  replies(bytes);
  json_errors(bytes);
  writer(bytes);
  return 0;
}
