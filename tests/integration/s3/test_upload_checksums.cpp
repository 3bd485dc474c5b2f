// Uploads carry a checksum (issue 31). The test proxy checks request bodies
// as S3 does (x-amz-content-sha256, Content-MD5, x-amz-checksum-*: 400
// XAmzContentSHA256Mismatch / BadDigest) and flips one byte of a request
// body in transit ("flip" with "where": "request_body"): the store refuses
// the bad body, floe sends it again, and the object holds the right bytes
// (read back with verification). Each PutObject and UploadPart carries
// x-amz-checksum-<alg>; a multipart upload's whole-object value is combined
// locally and sent on CompleteMultipartUpload. Run on moto and on Ceph RGW
// (which ignores the headers: the proxy is the store's check there); the
// cases that read back what the store kept are moto's.
#include "s3_suite.hpp"

#include <floe/checksum/combine.hpp>
#include <floe/checksum/hasher.hpp>
#include <floe/http/restartable_body.hpp>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_upload_checksums_it {

namespace {

using floe::checksum::algorithm;
using floe::s3::checksum_calculation;
using floe::s3::put_params;

std::string write_file(temp_dir const& dir, std::string const& name, std::string const& data) {
  auto const path = dir.file(name);
  std::ofstream out(path, std::ios::binary);
  out << data;
  return path;
}

// Flips byte `offset` of the body of the `nth` request matching `method`
// on bucket/key (and `query`, a regex on the raw query, when given).
int flip_request(std::string const& bucket, std::string const& key, std::string const& method, int nth,
                 std::size_t offset, std::string const& query = "") {
  std::string match = R"({"method": ")" + method + R"(", "path": "^/)" + bucket + "/" + key + R"($")";
  if (!query.empty()) match += R"(, "query": ")" + query + R"(")";
  match += "}";
  return s3_target::get().control.add_rule(R"({"match": )" + match + R"(, "trigger": {"nth": [)" +
                                           std::to_string(nth) +
                                           R"(]}, "action": {"type": "flip", "where": "request_body", "offset": )" +
                                           std::to_string(offset) + "}}");
}

// Counts (never fires on) requests to bucket/key carrying header `name`.
int count_with_header(std::string const& bucket, std::string const& name) {
  return s3_target::get().control.add_rule(R"({"match": {"path": "^/)" + bucket + R"(/", "headers_present": [")" +
                                           name + R"("]}, "trigger": {"nth": [1000000]}, "action": {"type": "delay", "ms": 0}})");
}

floe::result<floe::s3::put_result> upload(asio::io_context& io, client& c, std::string const& b, std::string const& k,
                                          std::string const& path, put_params p = {}) {
  auto f = c.async_upload_file(b, k, path, std::move(p), asio::use_future);
  return finish(io, f);
}

floe::result<floe::s3::get_result> head(asio::io_context& io, client& c, std::string const& b, std::string const& k) {
  auto f = c.async_head_object(b, k, asio::use_future);
  return finish(io, f);
}

std::string stored(floe::s3::object_info const& i, algorithm a) {
  for (auto const& s : i.checksums)
    if (s.alg == a) return s.value;
  return {};
}

}  // namespace

TEST_CASE("a PUT carries a CRC64NVME checksum by default: memory and file bodies, its value the bytes'") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "upsum");
  temp_dir dir;
  int const counted = count_with_header(b.name, "x-amz-sdk-checksum-algorithm");
  auto const data = pattern_bytes(300000, 1, 7);
  auto const want = floe::checksum::hasher::of(algorithm::crc64nvme, data).base64();
  auto m = put(io, *c, b.name, "mem", data);
  REQUIRE_OK(m);
  CHECK(m->checksum == want);
  CHECK(m->checksum_form == "header");
  auto f = upload(io, *c, b.name, "file", write_file(dir, "f", data));
  REQUIRE_OK(f);
  CHECK(f->checksum == want);
  // A file goes in the header form, hashed first: one request on every store.
  CHECK(f->checksum_form == "header");
  CHECK(s3_target::get().control.rule_counter(counted, "matched") == 2);
  CHECK(s3_target::get().control.stat("body_rejections") == 0);
}

TEST_CASE("a caller's stream goes in the aws-chunked trailer form where the store takes it, else without a checksum") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "upstream");
  auto const data = pattern_bytes(200000, 5, 7);
  int const trailers = count_with_header(b.name, "x-amz-trailer");
  auto put_stream = [&](std::string const& key) {
    auto pos = std::make_shared<std::size_t>(0);
    auto body = body_source::stream(
        [&data, pos](std::span<char> dst, boost::system::error_code&) {
          auto const n = std::min(dst.size(), data.size() - *pos);
          std::memcpy(dst.data(), data.data() + *pos, n);
          *pos += n;
          return n;
        },
        data.size());
    auto f = c->async_put_object(b.name, key, body, put_params{}, asio::use_future);
    return finish(io, f);
  };
  auto r = put_stream("s1");
  bool const moto = s3_target::get().name == "moto";
  if (moto) {
    // The checksum of the bytes as read, in the trailer; the store keeps it.
    REQUIRE_OK(r);
    CHECK(r->checksum_form == "trailer");
    CHECK(r->checksum == floe::checksum::hasher::of(algorithm::crc64nvme, data).base64());
    auto h = head(io, *c, b.name, "s1");
    REQUIRE_OK(h);
    CHECK(stored(h->info, algorithm::crc64nvme) == r->checksum);
  } else {
    // Ceph RGW 16.2 reads the whole body, then refuses the form (400
    // XAmzContentSHA256Mismatch): the stream is spent and cannot go again.
    // The call says so; the session sends later streams without a checksum.
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == errc::unsupported);
    CHECK(std::string(r.error().what()).find("refused the aws-chunked trailer form") != std::string::npos);
    CHECK(r.error().diag.code == "XAmzContentSHA256Mismatch");
  }
  auto r2 = put_stream("s2");
  REQUIRE_OK(r2);
  CHECK(r2->checksum_form == (moto ? "trailer" : ""));
  CHECK(s3_target::get().control.rule_counter(trailers, "matched") == (moto ? 2 : 1));
  auto g = get(io, *c, b.name, "s2");
  REQUIRE_OK(g);
  CHECK(g->body == data);
}

TEST_CASE("a restartable stream put twice goes whole both times, each put reading it from its start") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "uprestart");
  auto const data = pattern_bytes(150000, 9, 7);
  int starts = 0;
  auto body = floe::http::restartable_body(
      [&starts, &data]() -> body_source::read_fn {
        ++starts;
        auto at = std::make_shared<std::size_t>(0);
        return [at, &data](std::span<char> dst, boost::system::error_code&) -> std::size_t {
          auto const n = std::min(dst.size(), data.size() - *at);
          std::copy_n(data.data() + *at, n, dst.data());
          *at += n;
          return n;
        };
      },
      data.size());
  for (char const* key : {"one", "two"}) {
    CAPTURE(key);
    auto f = c->async_put_object(b.name, key, body, put_params{}, asio::use_future);
    REQUIRE_OK(finish(io, f));
    auto g = get(io, *c, b.name, key);
    REQUIRE_OK(g);
    CHECK(g->body == data);
  }
  // moto: each put once, in the trailer form. Ceph RGW reads the first one
  // whole before refusing the form: it goes again (without a checksum, as
  // a stream after a refusal), and the second goes so at once.
  bool const moto = s3_target::get().name == "moto";
  CHECK(starts == (moto ? 2 : 3));
  if (moto) {
    // A byte flipped in transit: the proxy refuses the trailer's CRC64NVME
    // (BadDigest) and the put goes again, read and hashed from the start.
    auto& ctl = s3_target::get().control;
    int const rule = flip_request(b.name, "three", "PUT", 1, 70000);
    auto f = c->async_put_object(b.name, "three", body, put_params{}, asio::use_future);
    auto r = finish(io, f);
    REQUIRE_OK(r);
    CHECK(r->checksum_form == "trailer");
    CHECK(r->checksum == floe::checksum::hasher::of(algorithm::crc64nvme, data).base64());
    CHECK(ctl.rule_counter(rule, "matched") == 2);
    CHECK(starts == 4);
    auto g = get(io, *c, b.name, "three");
    REQUIRE_OK(g);
    CHECK(g->body == data);
  }
}

TEST_CASE("the store keeps the checksum a PUT sent, and HeadObject returns it (moto only)") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "upkeep");
  auto const data = pattern_bytes(12345, 2, 7);
  REQUIRE_OK(put(io, *c, b.name, "k", data));
  auto h = head(io, *c, b.name, "k");
  REQUIRE_OK(h);
  CHECK(stored(h->info, algorithm::crc64nvme) == floe::checksum::hasher::of(algorithm::crc64nvme, data).base64());
  // Another algorithm, asked per call.
  for (auto a : {algorithm::crc32, algorithm::crc32c, algorithm::sha1, algorithm::sha256}) {
    CAPTURE(floe::checksum::s3_name(a));
    put_params p;
    p.checksum_algorithm = a;
    auto body = body_source::memory(data);
    auto pf = c->async_put_object(b.name, "k", body, p, asio::use_future);
    auto r = finish(io, pf);
    REQUIRE_OK(r);
    auto h2 = head(io, *c, b.name, "k");
    REQUIRE_OK(h2);
    CHECK(stored(h2->info, a) == floe::checksum::hasher::of(a, data).base64());
  }
}

TEST_CASE("a byte flipped in a PUT's body in transit is refused by the store and sent again: the right bytes are stored") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "upflip");
  temp_dir dir;
  auto const data = pattern_bytes(200000, 3, 7);
  auto& ctl = s3_target::get().control;
  // A file body goes UNSIGNED-PAYLOAD: its x-amz-checksum-crc64nvme finds it (BadDigest).
  int const rule = flip_request(b.name, "file", "PUT", 1, 4321);
  auto f = upload(io, *c, b.name, "file", write_file(dir, "f", data));
  REQUIRE_OK(f);
  CHECK(ctl.rule_counter(rule, "fired") == 1);
  CHECK(ctl.rule_counter(rule, "matched") == 2);
  CHECK(ctl.stat("body_rejections") == 1);
  auto g = get(io, *c, b.name, "file");
  REQUIRE_OK(g);
  CHECK(g->body == data);
  // A memory body is signed with its SHA-256: XAmzContentSHA256Mismatch,
  // then the same, sent again.
  px.expected_failures = 1;
  int const mem = flip_request(b.name, "mem", "PUT", 1, 17);
  auto m = put(io, *c, b.name, "mem", data);
  REQUIRE_OK(m);
  CHECK(ctl.rule_counter(mem, "matched") == 2);
  auto g2 = get(io, *c, b.name, "mem");
  REQUIRE_OK(g2);
  CHECK(g2->body == data);
}

TEST_CASE("with the calculation off (when_required) no checksum goes, and a flipped file byte is stored: what the checksum prevents") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = base_config(s3_target::get().secret_key);
  cfg.request_checksum_calculation = checksum_calculation::when_required;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "upoff");
  temp_dir dir;
  auto const data = pattern_bytes(100000, 4, 7);
  int const counted = count_with_header(b.name, "x-amz-sdk-checksum-algorithm");
  (void)flip_request(b.name, "file", "PUT", 1, 99);
  auto f = upload(io, *c, b.name, "file", write_file(dir, "f", data));
  REQUIRE_OK(f);
  CHECK(f->checksum.empty());
  CHECK(s3_target::get().control.rule_counter(counted, "matched") == 0);
  floe::s3::get_params gp;
  gp.checksum_validation = floe::s3::checksum_validation::when_required;
  auto gf = c->async_get_object(b.name, "file", gp, asio::use_future);
  auto g = finish(io, gf);
  REQUIRE_OK(g);
  auto bad = data;
  bad[99] = static_cast<char>(bad[99] ^ 0xFF);
  CHECK(g->body == bad);
  // Asked for by name, an algorithm is sent whatever the setting.
  put_params p;
  p.checksum_algorithm = algorithm::crc32;
  auto f2 = upload(io, *c, b.name, "named", write_file(dir, "g", data), p);
  REQUIRE_OK(f2);
  CHECK(f2->checksum == floe::checksum::hasher::of(algorithm::crc32, data).base64());
  CHECK(s3_target::get().control.rule_counter(counted, "matched") == 1);

  auto by_env = base_config(s3_target::get().secret_key);
  by_env.env = [](std::string_view n) -> std::optional<std::string> {
    if (n == "AWS_REQUEST_CHECKSUM_CALCULATION") return std::string("WHEN_REQUIRED");
    return std::nullopt;
  };
  auto e = make_client(io, by_env);
  CHECK(e->config().request_checksum_calculation == checksum_calculation::when_required);
  auto wrong = base_config(s3_target::get().secret_key);
  wrong.env = [](std::string_view n) -> std::optional<std::string> {
    if (n == "AWS_REQUEST_CHECKSUM_CALCULATION") return std::string("always");
    return std::nullopt;
  };
  auto w = client::create(io.get_executor(), wrong);
  REQUIRE_FALSE(w.has_value());
  CHECK(w.error().code == errc::invalid_argument);
  CHECK(std::string(w.error().what()).find("AWS_REQUEST_CHECKSUM_CALCULATION") != std::string::npos);
}

TEST_CASE("a multipart upload: a checksum per part, the whole object's combined, a flipped part sent again") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io, multipart_config());
  bucket_guard b(io, *c, "upmp");
  temp_dir dir;
  auto const data = pattern_bytes((11u << 20) + 777, 5, 7);
  auto const src = write_file(dir, "src", data);
  auto& ctl = s3_target::get().control;
  bool const moto = s3_target::get().name == "moto";
  int const in_header = count_with_header(b.name, "x-amz-checksum-crc64nvme");
  int const in_trailer = count_with_header(b.name, "x-amz-trailer");
  int const rule = flip_request(b.name, "obj", "PUT", 1, 5000, "partNumber=2&");
  // Progress counts the file's bytes, not the framing's: never above the
  // size, and the size at the end.
  std::uint64_t last = 0, most = 0;
  put_params pp;
  pp.on_progress = [&last, &most](std::uint64_t n) {
    last = n;
    most = std::max(most, n);
  };
  auto u = upload(io, *c, b.name, "obj", src, pp);
  REQUIRE_OK(u);
  CHECK(last == data.size());
  CHECK(most == data.size());
  CHECK(u->parts == 3);
  CHECK(u->checksum == floe::checksum::hasher::of(algorithm::crc64nvme, data).base64());
  CHECK(ctl.rule_counter(rule, "fired") == 1);
  // The flipped part is refused by the proxy (its trailer's CRC64NVME does
  // not match, BadDigest) and sent again, read and hashed again.
  CHECK(ctl.stat("body_rejections") == 1);
  if (moto) {
    // The parts go in the trailer form (each read once), the flipped one
    // twice; only the completion carries the whole object's in a header.
    CHECK(ctl.rule_counter(rule, "matched") == 2);
    CHECK(ctl.rule_counter(in_trailer, "matched") == 4);
    CHECK(ctl.rule_counter(in_header, "matched") == 1);
  } else {
    // Ceph RGW 16.2 refuses the trailer form (400 XAmzContentSHA256Mismatch):
    // the three parts, sent at once in it, go again in the header form (the
    // flipped one was in the trailer form twice: the proxy's refusal, then
    // RGW's), and the refusal is learned for the client.
    CHECK(ctl.rule_counter(rule, "matched") == 3);
    CHECK(ctl.rule_counter(in_trailer, "matched") == 4);
    CHECK(ctl.rule_counter(in_header, "matched") == 4);
    auto again = upload(io, *c, b.name, "obj2", src);
    REQUIRE_OK(again);
    CHECK(again->checksum == u->checksum);
    CHECK(ctl.rule_counter(in_trailer, "matched") == 4);
    CHECK(ctl.rule_counter(in_header, "matched") == 8);
  }
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "obj", out, asio::use_future);
  REQUIRE_OK(finish(io, df));
  CHECK(sha256_file(out) == sha256_file(src));
}

TEST_CASE("a multipart upload's whole-object CRC32 (FULL_OBJECT) and SHA-256 (COMPOSITE) are the store's (moto only)") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io, multipart_config());
  bucket_guard b(io, *c, "upmpkeep");
  temp_dir dir;
  auto const data = pattern_bytes((10u << 20) + 5, 6, 7);
  auto const src = write_file(dir, "src", data);
  put_params p;
  p.checksum_algorithm = algorithm::crc32;
  auto u = upload(io, *c, b.name, "crc", src, p);
  REQUIRE_OK(u);
  auto const whole = floe::checksum::hasher::of(algorithm::crc32, data).base64();
  CHECK(u->checksum == whole);
  auto h = head(io, *c, b.name, "crc");
  REQUIRE_OK(h);
  CHECK(stored(h->info, algorithm::crc32) == whole);
  CHECK(h->info.checksum_type == "FULL_OBJECT");

  p.checksum_algorithm = algorithm::sha256;
  auto u2 = upload(io, *c, b.name, "sha", src, p);
  REQUIRE_OK(u2);
  floe::checksum::composite comp(algorithm::sha256);
  for (std::size_t off = 0; off < data.size(); off += 5u << 20)
    REQUIRE(comp.add_part(floe::checksum::hasher::of(algorithm::sha256, data.substr(off, 5u << 20))).has_value());
  CHECK(u2->checksum == comp.value());
  auto h2 = head(io, *c, b.name, "sha");
  REQUIRE_OK(h2);
  // moto's HeadObject leaves out the "-N" its GetObject adds.
  CHECK(stored(h2->info, algorithm::sha256) + "-3" == comp.value());
  CHECK(h2->info.checksum_type == "COMPOSITE");
  auto g = get(io, *c, b.name, "sha");
  REQUIRE_OK(g);
  CHECK(g->body == data);
}

TEST_CASE("the proxy refuses a PUT whose checksum header does not match its body, as S3 does") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "upwrong");
  // A wrong value on every attempt: BadDigest after the retries, nothing stored.
  auto& ctl = s3_target::get().control;
  (void)ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name +
                     R"(/k$"}, "action": {"type": "flip", "where": "request_body", "offset": 300}})");
  temp_dir dir;
  auto const data = pattern_bytes(5000, 7, 7);
  auto f = upload(io, *c, b.name, "k", write_file(dir, "f", data));
  REQUIRE_FALSE(f.has_value());
  CHECK(f.error().diag.code == "BadDigest");
  CHECK(f.error().diag.http_status == 400);
  CHECK(std::string(f.error().what()).find("CRC64NVME") != std::string::npos);
  auto h = head(io, *c, b.name, "k");
  REQUIRE_FALSE(h.has_value());
  CHECK(h.error().code == errc::not_found);
}

}  // namespace s3_upload_checksums_it
