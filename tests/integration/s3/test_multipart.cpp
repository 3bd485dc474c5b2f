// Uploads in parts: a large one end to end, parts in flight together, and
// every way one can fail (a part refused, cancelled, a reply without an ETag, a
// 200 <Error>) ending aborted on the store, never completed.
#include "s3_suite.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_multipart_it {

namespace {

// A proxy rule that only counts (a delay of 0 ms): `method` on
// /bucket/obj with `query` in its query string.
int counting_rule(floe::test::proxy_control& ctl, std::string const& method, std::string const& bucket,
                  std::string const& query) {
  return ctl.add_rule(R"({"match": {"method": ")" + method + R"(", "path": "^/)" + bucket + R"(/obj$", "query": ")" +
                      query + R"("}, "action": {"type": "delay", "ms": 0}})");
}

}  // namespace

TEST_CASE("a 100 MiB multipart upload downloads again with the same SHA-256") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "big");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 100ull << 20, 12345);
  auto uf = c->async_upload_file(b.name, "big/object", src, asio::use_future);
  auto u = finish(io, uf, 300s);
  REQUIRE_OK(u);
  CHECK(u->parts == 7);  // 16 MiB parts
  CHECK(u->etag.find("-7") != std::string::npos);
  auto hf = c->async_head_object(b.name, "big/object", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE_OK(h);
  CHECK(h->info.size == (100ull << 20));
  CHECK(h->info.etag == u->etag);
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "big/object", out, asio::use_future);
  auto d = finish(io, df, 300s);
  REQUIRE_OK(d);
  CHECK(d->resumes == 0);
  CHECK(fs::file_size(out) == (100ull << 20));
  CHECK(sha256_file(out) == sha256_file(src));
}

TEST_CASE("multipart parts are in flight together: with concurrency 3, parts 1-3 are held at once") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_config();
  cfg.multipart_concurrency = 3;
  // Longer than the wait below: a held part is never timed out and resent
  // (a resend would be a second request, not a second part).
  cfg.http.idle_timeout = 180s;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "parallel");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 16u << 20, 23);  // 4 parts: 5 + 5 + 5 + 1 MiB
  auto& ctl = s3_target::get().control;
  std::vector<int> holds;
  for (int part = 1; part <= 4; ++part)
    holds.push_back(ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name + R"(/obj$", "query": "partNumber=)" +
                                 std::to_string(part) + R"(&"}, "action": {"type": "hold"}})"));
  auto uf = c->async_upload_file(b.name, "obj", src, asio::use_future);
  // No part is answered while held: parts 1, 2 and 3 held together means
  // three were sent before any finished; the fourth waits for one of them.
  auto held = [&](int i) { return ctl.rule_counter(holds[static_cast<std::size_t>(i)], "held"); };
  bool const three = run_until(io, [&] { return held(0) + held(1) + held(2) >= 3; }, 60s);
  CHECK(three);
  CHECK(held(0) == 1);
  CHECK(held(1) == 1);
  CHECK(held(2) == 1);
  CHECK(ctl.rule_counter(holds[3], "matched") == 0);
  for (int id : holds) ctl.delete_rule(id);  // releases them
  auto u = finish(io, uf, 120s);
  REQUIRE_OK(u);
  CHECK(u->parts == 4);
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "obj", out, asio::use_future);
  REQUIRE_OK(finish(io, df, 120s));
  CHECK(sha256_file(out) == sha256_file(src));
}

TEST_CASE("a conditional upload above multipart_threshold goes as one PUT: its condition holds on every store") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_config();
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "condup");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 6u << 20, 7);
  auto first_f = c->async_upload_file(b.name, "obj", src, asio::use_future);
  auto first = finish(io, first_f, 120s);
  REQUIRE(first.has_value());
  CHECK(first->parts == 2);  // unconditional: in parts
  // moto and RGW 16.2 ignore If-Match on CompleteMultipartUpload; as one PUT
  // a wrong ETag is refused and the object stays.
  floe::s3::put_params wrong;
  wrong.if_match = std::string(32, '0');
  auto bad_f = c->async_upload_file(b.name, "obj", src, wrong, asio::use_future);
  auto bad = finish(io, bad_f, 120s);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code == errc::precondition_failed);
  auto hf = c->async_head_object(b.name, "obj", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE(h.has_value());
  CHECK(h->info.etag == first->etag);
}

TEST_CASE("a multipart upload whose part fails is aborted on the store") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_config();
  cfg.multipart_concurrency = 1;
  cfg.http.retry.max_attempts = 1;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "abort");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 11u << 20, 5);
  auto& ctl = s3_target::get().control;
  int const fail = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name +
                                R"(/obj$", "query": "partNumber=2&"}, "action": {"type": "reply", "status": 403, "headers": {"Content-Type": "application/xml"}, "body": "<Error><Code>AccessDenied</Code><Message>denied by the test</Message><RequestId>R</RequestId></Error>"}})");
  int const aborts = counting_rule(ctl, "DELETE", b.name, "uploadId=");
  auto uf = c->async_upload_file(b.name, "obj", src, asio::use_future);
  auto u = finish(io, uf, 120s);
  REQUIRE(!u.has_value());
  CHECK(u.error().code == errc::denied);
  CHECK(u.error().diag.operation == "UploadPart");
  CHECK(ctl.rule_counter(fail, "fired") == 1);
  // The abort runs detached (it must also run after a cancellation): give it
  // the io_context until the proxy has seen it, bounded.
  run_until(io, [&] { return ctl.rule_counter(aborts, "fired") != 0; }, 30s);
  CHECK(ctl.rule_counter(aborts, "fired") == 1);
  auto hf = c->async_head_object(b.name, "obj", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE(!h.has_value());
  CHECK(h.error().code == errc::not_found);
}

TEST_CASE("a multipart upload cancelled while its parts are in flight is aborted on the store") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_config();
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "cancel");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 11u << 20, 6);
  auto& ctl = s3_target::get().control;
  int const hold = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name +
                                R"(/obj$", "query": "partNumber="}, "action": {"type": "hold"}})");
  int const aborts = counting_rule(ctl, "DELETE", b.name, "uploadId=");
  asio::cancellation_signal cancel;
  auto uf = c->async_upload_file(b.name, "obj", src, asio::bind_cancellation_slot(cancel.slot(), asio::use_future));
  // Until a part's reply is held at the proxy (bounded), then cancel.
  run_until(io, [&] { return ctl.rule_counter(hold, "held") != 0; }, 60s);
  REQUIRE(ctl.rule_counter(hold, "held") >= 1);
  cancel.emit(asio::cancellation_type::terminal);
  auto u = finish(io, uf);
  REQUIRE(!u.has_value());
  CHECK(u.error().code == asio::error::operation_aborted);
  run_until(io, [&] { return ctl.rule_counter(aborts, "fired") != 0; }, 30s);
  CHECK(ctl.rule_counter(aborts, "fired") == 1);
  ctl.delete_rule(hold);  // releases what it held
  auto hf = c->async_head_object(b.name, "obj", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE(!h.has_value());
  CHECK(h.error().code == errc::not_found);
}

TEST_CASE("a part reply without an ETag is a malformed reply: the upload is aborted, never completed") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_config();
  cfg.multipart_concurrency = 1;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "noetag");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 11u << 20, 17);
  auto& ctl = s3_target::get().control;
  int const no_etag = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name +
                                   R"(/obj$", "query": "partNumber=2&"}, "action": {"type": "reply", "when": "after", "status": 200, "headers": {"x-amz-request-id": "NOETAG"}, "body": ""}})");
  int const completes = counting_rule(ctl, "POST", b.name, "uploadId=");
  int const aborts = counting_rule(ctl, "DELETE", b.name, "uploadId=");
  auto uf = c->async_upload_file(b.name, "obj", src, asio::use_future);
  auto u = finish(io, uf, 120s);
  CHECK(ctl.rule_counter(no_etag, "fired") == 1);
  REQUIRE_FALSE(u.has_value());
  CHECK(u.error().code == errc::malformed_reply);
  CHECK(u.error().diag.operation == "UploadPart");
  CHECK(u.error().diag.request_id == "NOETAG");
  CHECK(u.error().what().find("no ETag") != std::string::npos);
  CHECK(run_until(io, [&] { return ctl.rule_counter(aborts, "fired") == 1; }, 30s));
  CHECK(ctl.rule_counter(completes, "matched") == 0);
  auto hf = c->async_head_object(b.name, "obj", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE_FALSE(h.has_value());
  CHECK(h.error().code == errc::not_found);
}

TEST_CASE("a 200 reply with an <Error> body on CompleteMultipartUpload is an error") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_config();
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "complete");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 6u << 20, 99);
  auto& ctl = s3_target::get().control;
  std::string const error_body =
      "\n  \n  <Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again."
      "</Message><RequestId>REQ123</RequestId><HostId>HOST456</HostId></Error>";
  int const rule = ctl.add_rule(R"({"match": {"method": "POST", "path": "^/)" + b.name +
                                R"(/obj$", "query": "uploadId="}, "action": {"type": "reply", "when": "after", "status": 200, "headers": {"Content-Type": "application/xml"}, "body": )" +
                                json_str(error_body) + "}}");
  auto uf = c->async_upload_file(b.name, "obj", src, asio::use_future);
  auto u = finish(io, uf, 120s);
  CHECK(ctl.rule_counter(rule, "fired") >= 1);
  REQUIRE(!u.has_value());
  CHECK(u.error().diag.code == "InternalError");
  CHECK(u.error().diag.operation == "CompleteMultipartUpload");
  CHECK(u.error().diag.http_status == 200);
  CHECK(u.error().diag.request_id == "REQ123");
}

}  // namespace s3_multipart_it
