// Downloads are verified (issue 31): the proxy flips one byte of a GET's
// body in transit ("flip" action) and floe must notice. A full-object
// checksum (CRC32, CRC64NVME: uploaded with boto3 straight to moto, which
// keeps what a client sends) or, failing
// that, a plain-MD5 ETag is checked over the bytes delivered, across
// resumed ranges too. A flipped first GET into a file or memory heals with
// one more GET; a flip on every GET fails with checksum_mismatch naming
// the algorithm and both values, and leaves no file; a function sink ends
// with the error. A composite (multipart) checksum is not taken for a
// whole-object one. Validation off lets the flipped byte through.
#include "s3_suite.hpp"

#include <floe/checksum/hasher.hpp>

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_checksums_it {

namespace {

using floe::checksum::algorithm;
using floe::s3::checksum_validation;
using floe::s3::get_params;

std::string read_all(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::size_t entries(fs::path const& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// The JSON string value of `key` in a one-line JSON object.
std::string json_value(std::string const& json, std::string const& key) {
  auto at = json.find("\"" + key + "\": \"");
  if (at == std::string::npos) return {};
  at += key.size() + 5;
  auto end = json.find('"', at);
  return json.substr(at, end - at);
}

// Uploads `data` with boto3 carrying checksum `alg` (in `parts` parts when
// > 1) straight to moto; the store's answer as one JSON line.
std::string put_with_checksum(temp_dir const& dir, std::string const& bucket, std::string const& key,
                              std::string const& alg, std::string const& data, int parts = 0) {
  auto const file = dir.file("upload-" + key);
  {
    std::ofstream out(file, std::ios::binary);
    out << data;
  }
  std::string const root = floe::test::need_env("FLOE_SOURCE_ROOT", "run the test through meson");
  floe::test::child_process py;
  std::vector<std::string> argv{"python3", root + "/tests/support/put_with_checksum.py", s3_target::get().direct,
                                bucket, key, alg, file};
  if (parts > 1) {
    argv.push_back("--parts");
    argv.push_back(std::to_string(parts));
  }
  if (alg == "CRC64NVME") {  // botocore needs the AWS CRT for it: computed here
    argv.push_back("--value");
    argv.push_back(floe::checksum::hasher::of(algorithm::crc64nvme, data).base64());
  }
  auto line = py.start(argv);
  py.stop();
  return line;
}

int flip(std::string const& bucket, std::string const& key, std::string const& trigger, std::size_t offset,
         std::string const& extra_match = "") {
  return s3_target::get().control.add_rule(R"({"match": {"method": "GET", "path": "^/)" + bucket + "/" + key +
                                           R"($")" + extra_match + R"(}, )" + trigger +
                                           R"("action": {"type": "flip", "where": "reply_body", "offset": )" +
                                           std::to_string(offset) + "}}");
}

std::string flipped(std::string data, std::size_t offset) {
  data[offset] = static_cast<char>(data[offset] ^ 0xFF);
  return data;
}

}  // namespace

TEST_CASE("a download of an object carrying a CRC32 or CRC64NVME checksum is verified: clean passes, one flip heals (moto only)") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "crcok");
  temp_dir dir;
  auto const data = pattern_bytes(200000, 1, 1);
  for (std::string alg : {"CRC32", "CRC64NVME"}) {
    CAPTURE(alg);
    std::string const key = "k-" + alg;
    auto const up = put_with_checksum(dir, b.name, key, alg, data);
    REQUIRE(!json_value(up, "checksum").empty());
    auto const out = dir.file("out-" + alg);
    // Clean: every way.
    auto df = c->async_download(b.name, key, out, asio::use_future);
    REQUIRE_OK(finish(io, df));
    CHECK(read_all(out) == data);
    auto g = get(io, *c, b.name, key);
    REQUIRE_OK(g);
    CHECK(g->body == data);
    // One byte flipped on the first GET: found, and healed by one more GET.
    int const file_rule = flip(b.name, key, R"("trigger": {"nth": [1]}, )", 1000);
    auto df2 = c->async_download(b.name, key, out, asio::use_future);
    REQUIRE_OK(finish(io, df2));
    CHECK(read_all(out) == data);
    CHECK(s3_target::get().control.rule_counter(file_rule, "fired") == 1);
    CHECK(s3_target::get().control.rule_counter(file_rule, "matched") == 2);
    s3_target::get().control.delete_rules();
    int const mem_rule = flip(b.name, key, R"("trigger": {"nth": [1]}, )", 77777);
    auto g2 = get(io, *c, b.name, key);
    REQUIRE_OK(g2);
    CHECK(g2->body == data);
    CHECK(s3_target::get().control.rule_counter(mem_rule, "matched") == 2);
    s3_target::get().control.delete_rules();
  }
}

TEST_CASE("a byte flipped on every GET fails with checksum_mismatch naming both values, and leaves no file (moto only)") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "crcbad");
  temp_dir dir;
  fs::create_directory(dir.path / "dl");
  auto const data = pattern_bytes(150000, 2, 1);
  auto const up = put_with_checksum(dir, b.name, "obj", "CRC64NVME", data);
  auto const expected = json_value(up, "checksum");
  REQUIRE(!expected.empty());
  auto const computed = floe::checksum::hasher::of(algorithm::crc64nvme, flipped(data, 4242)).base64();
  int const rule = flip(b.name, "obj", "", 4242);
  auto const out = (dir.path / "dl" / "out").string();
  auto df = c->async_download(b.name, "obj", out, asio::use_future);
  auto d = finish(io, df);
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error().code == errc::checksum_mismatch);
  auto const& m = d.error().diag.message;
  CAPTURE(m);
  CHECK(m.find("CRC64NVME") != std::string::npos);
  CHECK(m.find(expected) != std::string::npos);
  CHECK(m.find(computed) != std::string::npos);
  CHECK(entries(dir.path / "dl") == 0);  // neither the file nor its temporary
  CHECK(s3_target::get().control.rule_counter(rule, "matched") == 2);  // tried once more

  auto gf = c->async_get_object(b.name, "obj", asio::use_future);
  auto g = finish(io, gf);
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().code == errc::checksum_mismatch);
  CHECK(g.error().diag.message.find(computed) != std::string::npos);
  CHECK(s3_target::get().control.rule_counter(rule, "matched") == 4);

  // A function sink has had the bytes: no second GET, the error.
  std::string got;
  floe::http::body_sink::write_fn sink = [&](std::string_view piece, boost::system::error_code&) { got.append(piece); };
  auto sf = c->async_get_object_to(b.name, "obj", sink, asio::use_future);
  auto s = finish(io, sf);
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().code == errc::checksum_mismatch);
  CHECK(s.error().diag.message.find(expected) != std::string::npos);
  CHECK(s3_target::get().control.rule_counter(rule, "matched") == 5);
  CHECK(got == flipped(data, 4242));
}

TEST_CASE("a checksum is verified across a resumed download, and a flip in the resumed range is found (moto only)") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "crcresume");
  temp_dir dir;
  auto const data = pattern_bytes(1u << 20, 3, 1);
  (void)put_with_checksum(dir, b.name, "obj", "CRC32", data);
  auto& ctl = s3_target::get().control;
  auto const path = "^/" + b.name + "/obj$";
  int const cut = ctl.add_rule(R"({"match": {"method": "GET", "path": ")" + path +
                               R"("}, "trigger": {"nth": [1]}, "action": {"type": "cut", "when": "mid_body", "after_bytes": 300000}})");
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "obj", out, asio::use_future);
  auto d = finish(io, df);
  REQUIRE_OK(d);
  CHECK(d->resumes == 1);
  CHECK(ctl.rule_counter(cut, "fired") == 1);
  CHECK(read_all(out) == data);

  // The resumed range carries a flipped byte: the whole does not match, and
  // the download starts over once.
  ctl.delete_rules();
  (void)ctl.add_rule(R"({"match": {"method": "GET", "path": ")" + path +
                     R"("}, "trigger": {"nth": [1]}, "action": {"type": "cut", "when": "mid_body", "after_bytes": 300000}})");
  int const bad = flip(b.name, "obj", R"("trigger": {"nth": [1]}, )", 10, R"(, "headers_present": ["Range"])");
  auto df2 = c->async_download(b.name, "obj", out, asio::use_future);
  auto d2 = finish(io, df2);
  REQUIRE_OK(d2);
  CHECK(ctl.rule_counter(bad, "fired") == 1);
  CHECK(read_all(out) == data);
}

TEST_CASE("an object with no checksum and a plain-MD5 ETag is verified against its MD5") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "md5");
  temp_dir dir;
  auto const data = pattern_bytes(100000, 4, 1);
  // Uploaded without a checksum: the ETag is all there is to check.
  floe::s3::put_params none;
  none.checksum_calculation = floe::s3::checksum_calculation::when_required;
  auto body = body_source::memory(data);
  auto pf = c->async_put_object(b.name, "obj", body, none, asio::use_future);
  REQUIRE_OK(finish(io, pf));
  auto g = get(io, *c, b.name, "obj");
  REQUIRE_OK(g);
  CHECK(g->body == data);
  int const once = flip(b.name, "obj", R"("trigger": {"nth": [1]}, )", 5);
  auto g2 = get(io, *c, b.name, "obj");
  REQUIRE_OK(g2);
  CHECK(g2->body == data);
  CHECK(s3_target::get().control.rule_counter(once, "matched") == 2);
  s3_target::get().control.delete_rules();
  (void)flip(b.name, "obj", "", 5);
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "obj", out, asio::use_future);
  auto d = finish(io, df);
  REQUIRE_FALSE(d.has_value());
  CHECK(d.error().code == errc::checksum_mismatch);
  CHECK(d.error().diag.message.find("MD5") != std::string::npos);
  CHECK(d.error().diag.message.find(g->info.etag) != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a multipart object (ETag with -N, composite checksum) is not falsely failed") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io, multipart_config());
  bucket_guard b(io, *c, "mpcheck");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 11u << 20, 9);
  auto uf = c->async_upload_file(b.name, "floe-mp", src, asio::use_future);
  auto u = finish(io, uf);
  REQUIRE_OK(u);
  CHECK(u->parts == 3);
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "floe-mp", out, asio::use_future);
  REQUIRE_OK(finish(io, df));
  CHECK(sha256_file(out) == sha256_file(src));
}

TEST_CASE("a multipart object uploaded by boto3 with a composite CRC32 is not falsely failed (moto only)") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io, multipart_config());
  bucket_guard b(io, *c, "mpboto");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 11u << 20, 9);
  auto const out = dir.file("out");
  auto const data = read_all(src);
  auto const up = put_with_checksum(dir, b.name, "boto-mp", "CRC32", data, 2);
  CAPTURE(up);
  auto df2 = c->async_download(b.name, "boto-mp", out, asio::use_future);
  REQUIRE_OK(finish(io, df2));
  CHECK(sha256_file(out) == sha256_file(src));
}

TEST_CASE("validation off (per client, per call, by the environment) lets a flipped byte through (moto only)") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = base_config(s3_target::get().secret_key);
  cfg.response_checksum_validation = checksum_validation::when_required;
  auto off = make_client(io, cfg);
  auto on = make_client(io);
  bucket_guard b(io, *on, "crcoff");
  temp_dir dir;
  auto const data = pattern_bytes(50000, 5, 1);
  (void)put_with_checksum(dir, b.name, "obj", "CRC32", data);
  (void)flip(b.name, "obj", "", 123);
  auto const bad = flipped(data, 123);

  auto g = get(io, *off, b.name, "obj");
  REQUIRE_OK(g);
  CHECK(g->body == bad);

  get_params p;
  p.checksum_validation = checksum_validation::when_required;
  auto const out = dir.file("out");
  auto df = on->async_download(b.name, "obj", out, p, asio::use_future);
  REQUIRE_OK(finish(io, df));
  CHECK(read_all(out) == bad);

  auto by_env = base_config(s3_target::get().secret_key);
  by_env.env = [](std::string_view n) -> std::optional<std::string> {
    if (n == "AWS_RESPONSE_CHECKSUM_VALIDATION") return std::string("WHEN_REQUIRED");
    return std::nullopt;
  };
  auto env_off = make_client(io, by_env);
  CHECK(env_off->config().response_checksum_validation == checksum_validation::when_required);
  auto g2 = get(io, *env_off, b.name, "obj");
  REQUIRE_OK(g2);
  CHECK(g2->body == bad);

  // And on by default, the same reply is refused.
  auto g3 = get(io, *on, b.name, "obj");
  REQUIRE_FALSE(g3.has_value());
  CHECK(g3.error().code == errc::checksum_mismatch);

  auto wrong = base_config(s3_target::get().secret_key);
  wrong.env = [](std::string_view n) -> std::optional<std::string> {
    if (n == "AWS_RESPONSE_CHECKSUM_VALIDATION") return std::string("sometimes");
    return std::nullopt;
  };
  auto w = client::create(io.get_executor(), wrong);
  REQUIRE_FALSE(w.has_value());
  CHECK(w.error().code == errc::invalid_argument);
  CHECK(std::string(w.error().what()).find("AWS_RESPONSE_CHECKSUM_VALIDATION") != std::string::npos);
}

}  // namespace s3_checksums_it
