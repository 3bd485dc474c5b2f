// What an S3 operation's arguments become on the wire: headers, query and
// bodies, pure (s3/detail/request_building.hpp).
#include <floe/s3/detail/request_building.hpp>

#include <floe/sigv4/canonical.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_request_building_test {

using namespace floe::s3;
namespace http = floe::http;
namespace sigv4 = floe::sigv4;
using floe::errc;
using floe::error;

namespace {
std::size_t count_of(http::fields const& h, std::string_view name) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < h.size(); ++i) n += http::fields::iequals(h[i].name, name) ? 1 : 0;
  return n;
}

request_target target(std::string scheme, std::string host, std::uint16_t port, std::string host_header,
                      std::string path) {
  request_target t;
  t.scheme = std::move(scheme);
  t.host = std::move(host);
  t.port = port;
  t.host_header = std::move(host_header);
  t.path = std::move(path);
  t.region = "us-east-1";
  return t;
}
}  // namespace

TEST_CASE("quoted_etag quotes a bare, quoted or weak ETag once; '*' stays bare") {
  CHECK(detail::quoted_etag("abc") == "\"abc\"");
  CHECK(detail::quoted_etag("\"abc\"") == "\"abc\"");
  CHECK(detail::quoted_etag("W/\"abc\"") == "\"abc\"");
  CHECK(detail::quoted_etag("*") == "*");
}

TEST_CASE("write_if_match: quoted, or bare for a store that refuses the quoted form") {
  CHECK(detail::write_if_match("\"abc\"", false) == "\"abc\"");
  CHECK(detail::write_if_match("abc", false) == "\"abc\"");
  CHECK(detail::write_if_match("\"abc\"", true) == "abc");
  CHECK(detail::write_if_match("abc", true) == "abc");
}

TEST_CASE("md5_base64 is the base64 of the MD5 (RFC 1321 vectors)") {
  CHECK(detail::md5_base64("") == "1B2M2Y8AsgTpgAmY7PhCfg==");  // d41d8cd98f00b204e9800998ecf8427e
  CHECK(detail::md5_base64("abc") == "kAFQmDzST7DWlj99KOF/cg==");  // 900150983cd24fb0d6963f7d28e17f72
}

TEST_CASE("copy_source is /bucket/key with the key percent-encoded and '/' kept") {
  copy_params p;
  p.source_bucket = "src";
  p.source_key = "a b/c+d/%/\xE2\x82\xAC";
  CHECK(detail::copy_source(p) == "/src/a%20b/c%2Bd/%25/%E2%82%AC");
}

TEST_CASE("address_request aims the request and the connection at the target, replacing an earlier aim") {
  detail::op_spec op;
  op.method = "POST";
  op.query.add("uploadId", "x y");
  http::request req;
  http::endpoint ep;
  detail::address_request(op, target("http", "127.0.0.1", 9000, "127.0.0.1:9000", "/b/k"), ep, req);
  CHECK_FALSE(ep.tls);
  CHECK(ep.host == "127.0.0.1");
  CHECK(ep.port == 9000);
  CHECK(req.method == "POST");
  CHECK(req.target == "/b/k?uploadId=x%20y");
  CHECK(req.headers.get("Host") == "127.0.0.1:9000");

  // A redirect aims the same request again: nothing of the first aim is left.
  detail::address_request(op, target("https", "b.s3.eu-west-1.amazonaws.com", 443, "b.s3.eu-west-1.amazonaws.com", "/k"),
                          ep, req);
  CHECK(ep.tls);
  CHECK(ep.host == "b.s3.eu-west-1.amazonaws.com");
  CHECK(ep.port == 443);
  CHECK(req.target == "/k?uploadId=x%20y");
  CHECK(req.headers.get("Host") == "b.s3.eu-west-1.amazonaws.com");
  CHECK(count_of(req.headers, "Host") == 1);
}

TEST_CASE("payload_hash_of: the op's own hash, else the memory body's SHA-256, the empty hash or UNSIGNED-PAYLOAD") {
  std::array<char, 64> buf{};
  std::string const given = "0123";
  auto const memory = http::body_source::memory("abc");
  CHECK(detail::payload_hash_of(given, memory, buf) == "0123");
  CHECK(detail::payload_hash_of({}, memory, buf) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(detail::payload_hash_of({}, http::body_source{}, buf) == sigv4::empty_payload_sha256);
  CHECK(detail::payload_hash_of({}, http::body_source::file("/nonexistent", 0, 3), buf) == sigv4::unsigned_payload);
  auto const stream = http::body_source::stream([](std::span<char>, boost::system::error_code&) { return std::size_t{0}; }, 3);
  CHECK(detail::payload_hash_of({}, stream, buf) == sigv4::unsigned_payload);
}

TEST_CASE("read_op marks a read conditional only when it has a condition") {
  std::string const b = "bucket", k = "key";
  detail::op_spec op;
  detail::read_op(op, "GetObject", "GET", b, k, read_conditions{});
  CHECK(op.operation == "GetObject");
  CHECK(op.method == "GET");
  CHECK(op.resource() == "bucket/key");
  CHECK_FALSE(op.conditional_read);
  detail::op_spec op2;
  detail::read_op(op2, "HeadObject", "HEAD", b, k, read_conditions{"", "e"});
  CHECK(op2.conditional_read);
}

TEST_CASE("set_read_conditions sends a HEAD's conditions quoted, and nothing without them") {
  http::request req;
  detail::set_read_conditions(req, read_conditions{});
  CHECK(req.headers.size() == 0);
  detail::set_read_conditions(req, read_conditions{"a", "\"b\""});
  CHECK(req.headers.get("If-Match") == "\"a\"");
  CHECK(req.headers.get("If-None-Match") == "\"b\"");
}

TEST_CASE("a read of one version asks ?versionId=; a HEAD may ask for the object's checksum") {
  std::string const b = "bucket", k = "key";
  detail::op_spec op;
  read_conditions c;
  c.version_id = "3HL4kq/tJ+l";
  detail::read_op(op, "HeadObject", "HEAD", b, k, c);
  std::string target;
  op.query.append_to(target);
  CHECK(target == "?versionId=3HL4kq%2FtJ%2Bl");
  CHECK_FALSE(op.conditional_read);
  detail::op_spec plain;
  detail::read_op(plain, "HeadObject", "HEAD", b, k, read_conditions{});
  std::string none;
  plain.query.append_to(none);
  CHECK(none.empty());
}

TEST_CASE("backwards: a range whose end comes before its start") {
  get_params p;
  CHECK_FALSE(detail::backwards(p));
  p.range = {{5, std::nullopt}};
  CHECK_FALSE(detail::backwards(p));
  p.range = {{5, 5}};
  CHECK_FALSE(detail::backwards(p));
  p.range = {{5, 4}};
  CHECK(detail::backwards(p));
}

TEST_CASE("set_read_headers: Range from the start asked, the pinned ETag before the caller's, If-None-Match first only") {
  get_params p;
  p.range = {{5, 9}};
  p.conditions.if_match = "caller";
  p.conditions.if_none_match = "old";
  {
    http::request req;
    detail::set_read_headers(req, p, true, 5, {}, true);
    CHECK(req.headers.get("Range") == "bytes=5-9");
    CHECK(req.headers.get("If-Match") == "\"caller\"");
    CHECK(req.headers.get("If-None-Match") == "\"old\"");
  }
  {
    // A resume after 2 bytes: from byte 7, pinned to the version first seen.
    http::request req;
    detail::set_read_headers(req, p, true, 7, "first-seen", false);
    CHECK(req.headers.get("Range") == "bytes=7-9");
    CHECK(req.headers.get("If-Match") == "\"first-seen\"");
    CHECK_FALSE(req.headers.contains("If-None-Match"));
  }
  {
    get_params whole;
    http::request req;
    detail::set_read_headers(req, whole, false, 0, {}, true);
    CHECK(req.headers.size() == 0);
    detail::set_read_headers(req, whole, true, 100, "e", false);  // a whole-object GET resumed
    CHECK(req.headers.get("Range") == "bytes=100-");
    CHECK(req.headers.get("If-Match") == "\"e\"");
  }
}

TEST_CASE("set_object_headers: Content-Type and x-amz-meta-*, a CR in a value leaves the headers invalid") {
  put_params p;
  p.content_type = "text/plain";
  p.metadata = {{"a", "1"}, {"b", "2"}};
  http::request req;
  detail::set_object_headers(req, p);
  CHECK(req.headers.get("Content-Type") == "text/plain");
  CHECK(req.headers.get("x-amz-meta-a") == "1");
  CHECK(req.headers.get("x-amz-meta-b") == "2");
  CHECK(req.headers.valid());

  put_params bad;
  bad.metadata = {{"a", "1\r\nInjected: yes"}};
  http::request req2;
  detail::set_object_headers(req2, bad);
  CHECK_FALSE(req2.headers.valid());
  CHECK_FALSE(req2.headers.contains("Injected"));
}

TEST_CASE("set_object_headers: the write options go with the type and metadata; none set sends none of them") {
  put_params p;
  p.content_type = "text/html";
  p.write.storage_class = "STANDARD_IA";
  p.write.sse = "aws:kms";
  p.write.sse_kms_key_id = "arn:aws:kms:us-east-1:123456789012:key/k-1";
  p.write.acl = "bucket-owner-full-control";
  p.write.cache_control = "max-age=60";
  http::request req;
  detail::set_object_headers(req, p);
  CHECK(req.headers.get("x-amz-storage-class") == "STANDARD_IA");
  CHECK(req.headers.get("x-amz-server-side-encryption") == "aws:kms");
  CHECK(req.headers.get("x-amz-server-side-encryption-aws-kms-key-id") == "arn:aws:kms:us-east-1:123456789012:key/k-1");
  CHECK(req.headers.get("x-amz-acl") == "bucket-owner-full-control");
  CHECK(req.headers.get("Cache-Control") == "max-age=60");
  CHECK(req.headers.get("Content-Type") == "text/html");

  http::request plain;
  detail::set_object_headers(plain, put_params{});
  CHECK(plain.headers.size() == 0);
}

TEST_CASE("write_options_problem: sse only AES256 or aws:kms, a KMS key only with aws:kms, naming the value") {
  write_options w;
  CHECK(detail::write_options_problem(w).empty());
  w.sse = "AES256";
  CHECK(detail::write_options_problem(w).empty());
  w.sse = "aws:kms";
  w.sse_kms_key_id = "key-1";
  CHECK(detail::write_options_problem(w).empty());
  w.sse = "aes256";
  w.sse_kms_key_id.clear();
  auto const bad_sse = detail::write_options_problem(w);
  CHECK(bad_sse.find("\"aes256\"") != std::string::npos);
  CHECK(bad_sse.find("AES256 or aws:kms") != std::string::npos);
  w.sse = "AES256";
  w.sse_kms_key_id = "key-2";
  auto const stray = detail::write_options_problem(w);
  CHECK(stray.find("\"key-2\"") != std::string::npos);
  CHECK(stray.find("aws:kms, not AES256") != std::string::npos);
  w.sse.clear();
  CHECK(detail::write_options_problem(w).find("\"key-2\"") != std::string::npos);
}

namespace {
copy_params a_copy() {
  copy_params p;
  p.source_bucket = "sb";
  p.source_key = "k";
  p.bucket = "db";
  p.key = "k2";
  return p;
}
object_info a_source() {
  object_info src;
  src.content_type = "text/plain";
  src.metadata = {{"old", "1"}, {"kept", "2"}};
  return src;
}
}  // namespace

TEST_CASE("set_copy_headers: no directive when nothing is replaced; the write options go all the same") {
  auto p = a_copy();
  p.source_if_match = "e1";
  p.write.storage_class = "GLACIER_IR";
  p.write.acl = "public-read";
  CHECK_FALSE(detail::replaces_metadata(p));
  http::request req;
  detail::set_copy_headers(req, p, a_source());
  CHECK(req.headers.get("x-amz-copy-source") == "/sb/k");
  CHECK(req.headers.get("x-amz-copy-source-if-match") == "\"e1\"");
  CHECK_FALSE(req.headers.contains("x-amz-metadata-directive"));
  CHECK_FALSE(req.headers.contains("Content-Type"));
  CHECK(count_of(req.headers, "x-amz-meta-old") == 0);
  CHECK(req.headers.get("x-amz-storage-class") == "GLACIER_IR");
  CHECK(req.headers.get("x-amz-acl") == "public-read");
}

TEST_CASE("set_copy_headers: REPLACE with the given type and metadata, the one not given taken from the source") {
  auto p = a_copy();
  p.metadata = std::vector<std::pair<std::string, std::string>>{{"new", "2"}};
  CHECK(detail::replaces_metadata(p));
  http::request req;
  detail::set_copy_headers(req, p, a_source());
  CHECK(req.headers.get("x-amz-metadata-directive") == "REPLACE");
  CHECK(req.headers.get("x-amz-meta-new") == "2");
  CHECK_FALSE(req.headers.contains("x-amz-meta-old"));
  CHECK(req.headers.get("Content-Type") == "text/plain");  // the source's, sent again

  auto t = a_copy();
  t.content_type = "text/csv";
  http::request req2;
  detail::set_copy_headers(req2, t, a_source());
  CHECK(req2.headers.get("x-amz-metadata-directive") == "REPLACE");
  CHECK(req2.headers.get("Content-Type") == "text/csv");
  CHECK(req2.headers.get("x-amz-meta-old") == "1");  // the source's, sent again
  CHECK(req2.headers.get("x-amz-meta-kept") == "2");

  // An empty list replaces the source's metadata with none.
  auto none = a_copy();
  none.metadata = std::vector<std::pair<std::string, std::string>>{};
  none.content_type = "a/b";
  http::request req3;
  detail::set_copy_headers(req3, none, a_source());
  CHECK(req3.headers.get("x-amz-metadata-directive") == "REPLACE");
  CHECK_FALSE(req3.headers.contains("x-amz-meta-old"));
}

TEST_CASE("set_copy_headers: a Cache-Control replaces too, keeping the source's type and metadata") {
  auto p = a_copy();
  p.write.cache_control = "no-cache";
  CHECK(detail::replaces_metadata(p));
  http::request req;
  detail::set_copy_headers(req, p, a_source());
  CHECK(req.headers.get("x-amz-metadata-directive") == "REPLACE");
  CHECK(req.headers.get("Cache-Control") == "no-cache");
  CHECK(req.headers.get("Content-Type") == "text/plain");
  CHECK(req.headers.get("x-amz-meta-old") == "1");
}

TEST_CASE("copied_object_params: what a copy in parts creates its upload with") {
  auto p = a_copy();
  p.write.sse = "AES256";
  auto kept = detail::copied_object_params(p, a_source());
  CHECK(kept.content_type == "text/plain");
  CHECK(kept.metadata == a_source().metadata);
  CHECK(kept.write.sse == "AES256");
  p.content_type = "image/png";
  p.metadata = std::vector<std::pair<std::string, std::string>>{{"n", "v"}};
  auto replaced = detail::copied_object_params(p, a_source());
  CHECK(replaced.content_type == "image/png");
  CHECK(replaced.metadata == std::vector<std::pair<std::string, std::string>>{{"n", "v"}});
}

TEST_CASE("set_write_conditions: If-Match (quoted or bare), If-None-Match: *, and the conditional-write marks") {
  {
    http::request req;
    detail::op_spec op;
    detail::set_write_conditions(req, op, {}, false, {});
    CHECK(req.headers.size() == 0);
    CHECK_FALSE(op.conditional_write);
    CHECK_FALSE(op.if_match);
    CHECK_FALSE(req.traits.conditional_write);
  }
  {
    http::request req;
    detail::op_spec op;
    detail::set_write_conditions(req, op, "e1", false, {});
    CHECK(req.headers.get("If-Match") == "\"e1\"");
    CHECK(op.conditional_write);
    CHECK(op.if_match);
    CHECK(req.traits.conditional_write);
  }
  {
    http::request req;
    detail::op_spec op;
    detail::set_write_conditions(req, op, "\"e1\"", true, {});
    CHECK(req.headers.get("If-Match") == "e1");
  }
  {
    http::request req;
    detail::op_spec op;
    detail::set_write_conditions(req, op, {}, false, "*");
    CHECK(req.headers.get("If-None-Match") == "*");
    CHECK(op.conditional_write);
    CHECK_FALSE(op.if_match);
    CHECK(req.traits.conditional_write);
  }
}

TEST_CASE("conditional_upload_refused says which condition and why, naming PutObject and the object") {
  put_params p;
  p.if_none_match = "*";
  auto e = detail::conditional_upload_refused("b", "k", 10, 5, p);
  CHECK(e.code == errc::unsupported);
  CHECK(e.diag.operation == "PutObject");
  CHECK(e.diag.resource == "b/k");
  CHECK(e.diag.message.find("10 bytes, more than 5") != std::string::npos);
  CHECK(e.diag.message.find("If-None-Match: *") != std::string::npos);
  CHECK(e.diag.message.find("nothing was uploaded") != std::string::npos);
  p.if_none_match.clear();
  p.if_match = "e";
  CHECK(detail::conditional_upload_refused("b", "k", 10, 5, p).diag.message.find("its condition (If-Match)") !=
        std::string::npos);
}

TEST_CASE("goes_as_one_put: below the multipart threshold or S3's smallest part, and never above max_single_put") {
  client_config cfg;
  cfg.multipart_threshold = 64ull << 20;
  cfg.max_single_put = 5ull << 30;
  CHECK(detail::goes_as_one_put(0, cfg));
  CHECK(detail::goes_as_one_put((64ull << 20) - 1, cfg));
  CHECK_FALSE(detail::goes_as_one_put(64ull << 20, cfg));
  cfg.multipart_threshold = 1;  // parts smaller than 5 MiB do not exist
  CHECK(detail::goes_as_one_put((5ull << 20) - 1, cfg));
  CHECK_FALSE(detail::goes_as_one_put(5ull << 20, cfg));
  cfg.multipart_threshold = 1ull << 40;
  cfg.max_single_put = 100;
  CHECK(detail::goes_as_one_put(100, cfg));
  CHECK_FALSE(detail::goes_as_one_put(101, cfg));
}

TEST_CASE("plan_parts keeps parts within 5 MiB .. 5 GiB and at most 10,000 of them") {
  constexpr std::uint64_t mib = 1ull << 20;
  auto p = detail::plan_parts(100 * mib, 16 * mib);
  CHECK(p.part_size == 16 * mib);
  CHECK(p.count == 7);
  p = detail::plan_parts(100 * mib, 1 * mib);
  CHECK(p.part_size == 5 * mib);
  CHECK(p.count == 20);
  p = detail::plan_parts(20ull << 30, 6ull << 30);
  CHECK(p.part_size == 5ull << 30);
  CHECK(p.count == 4);
  std::uint64_t const huge = 5ull << 40;  // 5 TiB: 16 MiB parts would be 327,680 of them
  p = detail::plan_parts(huge, 16 * mib);
  CHECK(p.count <= 10000);
  CHECK(p.part_size * p.count >= huge);
  CHECK(p.part_size * (p.count - 1) < huge);
}

TEST_CASE("set_part_copy: the source, the byte range and the pinned source ETag of an UploadPartCopy") {
  copy_params src;
  src.source_bucket = "sb";
  src.source_key = "dir/k 1";
  std::string const etag = "abc";
  detail::op_spec op;
  http::request req;
  detail::set_part_copy(op, req, src, &etag, 5ull << 20, 5ull << 20);
  CHECK(req.headers.get("x-amz-copy-source") == "/sb/dir/k%201");
  CHECK(req.headers.get("x-amz-copy-source-range") == "bytes=5242880-10485759");
  CHECK(req.headers.get("x-amz-copy-source-if-match") == "\"abc\"");
  CHECK(op.may_200_error);
  CHECK(op.conditional_read);

  std::string const none;
  http::request req2;
  detail::set_part_copy(op, req2, src, &none, 0, 1);
  CHECK(req2.headers.get("x-amz-copy-source-range") == "bytes=0-0");
  CHECK_FALSE(req2.headers.contains("x-amz-copy-source-if-match"));
  http::request req3;
  detail::set_part_copy(op, req3, src, nullptr, 0, 1);
  CHECK_FALSE(req3.headers.contains("x-amz-copy-source-if-match"));
}

TEST_CASE("next_delete_batch: at most 1000 keys a batch, keys XML cannot carry set aside") {
  CHECK(detail::xml_safe("a\tb\nc\rd"));
  CHECK_FALSE(detail::xml_safe(std::string("a\x01", 2)));
  CHECK_FALSE(detail::xml_safe(std::string("a\0b", 3)));

  std::vector<std::string> keys;
  for (int i = 0; i < 2500; ++i) keys.push_back("k" + std::to_string(i));
  keys[1500] = "bad\x1f";
  std::vector<std::string> batch, singles;
  std::size_t i = 0;
  std::vector<std::size_t> sizes;
  while (i < keys.size()) {
    detail::next_delete_batch(keys, i, batch, singles);
    sizes.push_back(batch.size());
    if (sizes.size() == 1) {
      CHECK(batch.front() == "k0");
      CHECK(batch.back() == "k999");
    }
  }
  CHECK(sizes == std::vector<std::size_t>{1000, 1000, 499});
  CHECK(batch.back() == "k2499");
  CHECK(singles == std::vector<std::string>{"bad\x1f"});
}

TEST_CASE("list_objects_query: page size within 1..1000, max_keys caps the last page, token or start-after") {
  list_params p;
  {
    query_builder q;
    detail::list_objects_query(q, p, 0, {});
    CHECK(q.str() == "encoding-type=url&list-type=2&max-keys=1000");
  }
  p.prefix = "a/b";
  p.delimiter = "/";
  p.start_after = "a/b/c";
  p.page_size = 0;
  {
    query_builder q;
    detail::list_objects_query(q, p, 0, {});
    CHECK(q.str() == "delimiter=%2F&encoding-type=url&list-type=2&max-keys=1000&prefix=a%2Fb&start-after=a%2Fb%2Fc");
  }
  p.page_size = 5000;
  p.max_keys = 1500;
  {
    query_builder q;
    detail::list_objects_query(q, p, 1000, "tok=");
    CHECK(q.str() ==
          "continuation-token=tok%3D&delimiter=%2F&encoding-type=url&list-type=2&max-keys=500&prefix=a%2Fb");
  }
  p.page_size = 10;
  {
    query_builder q;
    detail::list_objects_query(q, p, 1000, "t");
    CHECK(q.str().find("max-keys=10&") != std::string::npos);
  }
}

TEST_CASE("create_bucket_body: a LocationConstraint outside us-east-1, none in it") {
  CHECK(detail::create_bucket_body("").empty());
  CHECK(detail::create_bucket_body("us-east-1").empty());
  CHECK(detail::create_bucket_body("eu-west-1") ==
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>");
  CHECK(detail::create_bucket_body("a<b").find("<LocationConstraint>a&lt;b</LocationConstraint>") != std::string::npos);
}

}  // namespace s3_request_building_test
