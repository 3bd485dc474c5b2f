// Unit tests of the signer's parts: SHA-256/HMAC, uri_encode, canonical
// pieces, the signing-key cache, S3 examples from the AWS documentation, and
// argument checking.

#include <floe/detail/sha256.hpp>
#include <floe/sigv4/canonical.hpp>
#include <floe/sigv4/chunk_signer.hpp>
#include <floe/sigv4/signer.hpp>
#include <floe/sigv4/signing_key_cache.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sigv4_sigv4_test {

using namespace floe::sigv4;
using namespace std::chrono;
using namespace std::string_literals;

namespace {
std::string hex(floe::detail::sha256_digest const& d) {
  std::string s(64, '\0');
  floe::detail::hex_lower(d, s.data());
  return s;
}
bool ok(floe::result<void> const& r) { return r.has_value(); }
system_clock::time_point at(int y, unsigned mo, unsigned d, int h, int mi, int s) {
  return sys_days{year{y} / month{mo} / day{d}} + hours{h} + minutes{mi} + seconds{s};
}
constexpr std::string_view aws_doc_akid = "AKIAIOSFODNN7EXAMPLE";
constexpr std::string_view aws_doc_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
}  // namespace

TEST_CASE("sha256 and hmac_sha256 match FIPS 180 and RFC 4231 answers") {
  CHECK(hex(floe::detail::sha256::of("")) == empty_payload_sha256);
  CHECK(hex(floe::detail::sha256::of("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  floe::detail::sha256 h;  // incremental == one shot, across block boundaries
  std::string big(1000, 'a');
  for (std::size_t i = 0; i < big.size(); i += 7) h.update(std::string_view(big).substr(i, 7));
  CHECK(hex(h.finish()) == hex(floe::detail::sha256::of(big)));

  std::string const key1(20, '\x0b');
  floe::detail::hmac_sha256 m1(key1);
  m1.update("Hi There");
  CHECK(hex(m1.finish()) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  std::string const key6(131, '\xaa');  // longer than a block: hashed first
  floe::detail::hmac_sha256 m6(key6.substr(0, 50), key6.substr(50));
  m6.update("Test Using Larger Than Block-Size Key - Hash Key First");
  CHECK(hex(m6.finish()) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("uri_encode keeps unreserved bytes and encodes the rest as upper-case %XX") {
  CHECK(uri_encode("AZaz09-_.~", true) == "AZaz09-_.~");
  CHECK(uri_encode("a b+c%d=e&f", true) == "a%20b%2Bc%25d%3De%26f");
  CHECK(uri_encode("!*'():@$,;", true) == "%21%2A%27%28%29%3A%40%24%2C%3B");
  CHECK(uri_encode("dir/sub/key", false) == "dir/sub/key");
  CHECK(uri_encode("dir/sub/key", true) == "dir%2Fsub%2Fkey");
  CHECK(uri_encode("\xe1\x88\xb4", true) == "%E1%88%B4");  // UTF-8 bytes
  CHECK(uri_encode(std::string_view("\0\xff", 2), true) == "%00%FF");
  CHECK(uri_encode("", true).empty());
  std::string out = "prefix/";
  uri_encode_append(out, "a b", false);
  CHECK(out == "prefix/a%20b");
  CHECK(uri_encoded_size("a b/", true) == 8);
}

TEST_CASE("s3 path rules keep the wire path as is; generic rules normalise and encode") {
  auto uri = [](std::string_view p, path_rules r) {
    std::string s;
    append_canonical_uri(s, p, r);
    return s;
  };
  CHECK(uri("//a/./b/../c%20d//", path_rules::s3) == "//a/./b/../c%20d//");
  CHECK(uri("", path_rules::s3) == "/");
  CHECK(uri("//a/./b/../c d//", path_rules::generic) == "/a/c%20d/");
  CHECK(uri("/a/%20", path_rules::generic) == "/a/%2520");  // generic encodes twice
  CHECK(uri("/a/..", path_rules::generic) == "/");
  CHECK(uri("/../../x", path_rules::generic) == "/x");
  CHECK(uri("/a/b/..", path_rules::generic) == "/a");
  CHECK(uri("", path_rules::generic) == "/");
  CHECK(uri("//a/./b", path_rules::generic_unnormalized) == "//a/./b");
  CHECK(uri("/a b", path_rules::generic_unnormalized) == "/a%20b");
}

TEST_CASE("header values are trimmed and white-space runs fold to one space") {
  auto v = [](std::string_view in) {
    std::string s;
    append_canonical_header_value(s, in);
    return s;
  };
  CHECK(v("  a   b\t\tc  ") == "a b c");
  CHECK(v("value1\n  value2\r\n\tvalue3") == "value1 value2 value3");
  CHECK(v("\"a   b\"") == "\"a b\"");
  CHECK(v("   ").empty());
}

TEST_CASE("header values: the one-append path (nothing to trim or fold) and the folding path agree") {
  auto v = [](std::string_view in) {
    std::string s = "x:";  // appended to what is there
    append_canonical_header_value(s, in);
    return s;
  };
  CHECK(v("") == "x:");
  CHECK(v("a") == "x:a");
  CHECK(v("a b c") == "x:a b c");
  CHECK(v("bytes=0-1048575") == "x:bytes=0-1048575");
  CHECK(v(" a") == "x:a");
  CHECK(v("a ") == "x:a");
  CHECK(v("a  b") == "x:a b");
  CHECK(v("a\tb") == "x:a b");
  CHECK(v("a\vb\f") == "x:a b");
  CHECK(v("\ta") == "x:a");
  CHECK(v(" ") == "x:");
}

TEST_CASE("canonical header names are lower-cased whole, mixed case included, in the list and the text") {
  std::array<header_view, 3> h{{{"HoSt", "h"}, {"X-Amz-Meta-MiXeD-Case", "v"}, {"RANGE", "bytes=0-1"}}};
  request_view req{"GET", "/k", {}, h, unsigned_payload};
  signer s;
  header_signature sig;
  REQUIRE(ok(s.sign_headers(req, {"AKID", "SECRET", {}}, signing_params::s3("eu-west-1"),
                            sys_days{year{2020} / 1 / 1}, sig)));
  CHECK(sig.signed_headers == "host;range;x-amz-content-sha256;x-amz-date;x-amz-meta-mixed-case");
  CHECK(sig.canonical_request.find("\nhost:h\nrange:bytes=0-1\nx-amz-content-sha256:") != std::string::npos);
  CHECK(sig.canonical_request.find("\nx-amz-meta-mixed-case:v\n") != std::string::npos);
}

TEST_CASE("the canonical query sorts by name then value, bytewise, and signs name= for empty values") {
  std::vector<query_param_view> q{{"b", "2"}, {"a", "z"}, {"a", ""}, {"A", "x"}, {"a-b", "1"}, {"list-type", "2"}};
  std::string s;
  append_canonical_query(s, q);
  CHECK(s == "A=x&a=&a=z&a-b=1&b=2&list-type=2");
}

TEST_CASE("X-Amz-Date is the UTC time to the second") {
  auto d = format_amz_date(at(2015, 8, 30, 12, 36, 0) + milliseconds(999));
  CHECK(std::string_view(d.data(), d.size()) == "20150830T123600Z");
  d = format_amz_date(at(2024, 2, 29, 23, 59, 59));
  CHECK(std::string_view(d.data(), d.size()) == "20240229T235959Z");
}

TEST_CASE("signing-key cache: derives once, is bounded, evicts the least recently used") {
  signing_key_cache c;
  auto const k = c.get(aws_doc_secret, "20130524", "us-east-1", "s3");
  CHECK(k == derive_signing_key(aws_doc_secret, "20130524", "us-east-1", "s3"));
  CHECK(c.misses() == 1);
  CHECK(c.get(aws_doc_secret, "20130524", "us-east-1", "s3") == k);
  CHECK(c.hits() == 1);
  // Each of secret, date, region, service is part of the key.
  CHECK(c.get("other", "20130524", "us-east-1", "s3") != k);
  CHECK(c.get(aws_doc_secret, "20130525", "us-east-1", "s3") != k);
  CHECK(c.get(aws_doc_secret, "20130524", "eu-west-1", "s3") != k);
  CHECK(c.get(aws_doc_secret, "20130524", "us-east-1", "sqs") != k);
  CHECK(c.misses() == 5);
  // Fill beyond capacity; the first entry, used most recently, survives.
  for (int i = 0; i < 10; ++i) {
    c.get(aws_doc_secret, "20130524", "us-east-1", "s3");
    c.get("rotating-" + std::to_string(i), "20130524", "us-east-1", "s3");
  }
  CHECK(c.size() == signing_key_cache::capacity);
  auto const misses = c.misses();
  c.get(aws_doc_secret, "20130524", "us-east-1", "s3");
  CHECK(c.misses() == misses);
  c.get("rotating-0", "20130524", "us-east-1", "s3");  // long evicted
  CHECK(c.misses() == misses + 1);
  c.clear();
  CHECK(c.size() == 0);
}

TEST_CASE("S3 GET with Range signs as in the AWS S3 documentation example") {
  std::array<header_view, 2> h{{{"Host", "examplebucket.s3.amazonaws.com"}, {"Range", "bytes=0-9"}}};
  request_view req{"GET", "/test.txt", {}, h, empty_payload_sha256};
  signer s;
  header_signature sig;
  REQUIRE(ok(s.sign_headers(req, {aws_doc_akid, aws_doc_secret, {}}, signing_params::s3("us-east-1"),
                         at(2013, 5, 24, 0, 0, 0), sig)));
  CHECK(sig.canonical_request ==
        "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sig.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  CHECK(sig.authorization ==
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  std::vector<std::string> names;
  sig.for_each_header([&](std::string_view n, std::string_view) { names.emplace_back(n); });
  CHECK(names == std::vector<std::string>{"X-Amz-Date", "X-Amz-Content-SHA256", "Authorization"});
}

TEST_CASE("S3 presigned GET matches the AWS S3 documentation example") {
  std::array<header_view, 1> h{{{"host", "examplebucket.s3.amazonaws.com"}}};
  request_view req{"GET", "/test.txt", {}, h, unsigned_payload};
  signer s;
  presigned_query q;
  REQUIRE(ok(s.presign(req, {aws_doc_akid, aws_doc_secret, {}}, signing_params::s3("us-east-1"),
                    at(2013, 5, 24, 0, 0, 0), seconds(86400), q)));
  CHECK(q.signature == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  CHECK(q.query ==
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  // An empty payload hash means UNSIGNED-PAYLOAD when presigning.
  req.payload_hash = {};
  presigned_query q2;
  REQUIRE(ok(s.presign(req, {aws_doc_akid, aws_doc_secret, {}}, signing_params::s3("us-east-1"),
                    at(2013, 5, 24, 0, 0, 0), seconds(86400), q2)));
  CHECK(q2.signature == q.signature);
}

TEST_CASE("presign accepts 1 s to 7 days and refuses anything else") {
  std::array<header_view, 1> h{{{"host", "b.s3.amazonaws.com"}}};
  request_view req{"GET", "/k", {}, h, unsigned_payload};
  signer s;
  presigned_query q;
  credentials_view c{aws_doc_akid, aws_doc_secret, {}};
  auto p = signing_params::s3("us-east-1");
  auto t = at(2013, 5, 24, 0, 0, 0);
  CHECK(ok(s.presign(req, c, p, t, seconds(1), q)));
  CHECK(ok(s.presign(req, c, p, t, seconds(604800), q)));
  auto r = s.presign(req, c, p, t, seconds(604801), q);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == floe::errc::invalid_argument);
  CHECK_FALSE(ok(s.presign(req, c, p, t, seconds(0), q)));
  CHECK_FALSE(ok(s.presign(req, c, p, t, seconds(-5), q)));
}

TEST_CASE("session tokens: signed by default, sent unsigned on request, encoded in presigned URLs") {
  std::array<header_view, 1> h{{{"host", "sts.amazonaws.com"}}};
  request_view req{"POST", "/", {}, h, empty_payload_sha256};
  signer s;
  header_signature sig;
  credentials_view c{aws_doc_akid, aws_doc_secret, "tok/en+=="};
  auto p = signing_params::generic("us-east-1", "sts");
  REQUIRE(ok(s.sign_headers(req, c, p, at(2020, 1, 1, 0, 0, 0), sig)));
  CHECK(sig.security_token == "tok/en+==");
  CHECK(sig.signed_headers == "host;x-amz-date;x-amz-security-token");
  CHECK(sig.content_sha256.empty());
  p.sign_session_token = false;
  REQUIRE(ok(s.sign_headers(req, c, p, at(2020, 1, 1, 0, 0, 0), sig)));
  CHECK(sig.security_token == "tok/en+==");
  CHECK(sig.signed_headers == "host;x-amz-date");
  presigned_query q;
  p.sign_session_token = true;
  REQUIRE(ok(s.presign(req, c, p, at(2020, 1, 1, 0, 0, 0), seconds(60), q)));
  CHECK(q.query.find("&X-Amz-Security-Token=tok%2Fen%2B%3D%3D&X-Amz-Signature=") != std::string::npos);
  CHECK(q.canonical_request.find("X-Amz-Security-Token=tok%2Fen%2B%3D%3D") != std::string::npos);
}

TEST_CASE("headers: case-insensitive sort, duplicates joined in order, signer-owned headers replaced") {
  std::array<header_view, 6> h{{{"Host", "h"},
                                {"X-Amz-Meta-B", " 2 "},
                                {"x-amz-meta-a", "1"},
                                {"X-AMZ-META-B", "3"},
                                {"Authorization", "stale"},
                                {"X-Amz-Date", "19700101T000000Z"}}};
  request_view req{"PUT", "/k", {}, h, unsigned_payload};
  signer s;
  header_signature sig;
  REQUIRE(ok(s.sign_headers(req, {aws_doc_akid, aws_doc_secret, {}}, signing_params::s3("eu-west-1"),
                         at(2020, 1, 1, 0, 0, 0), sig)));
  CHECK(sig.signed_headers == "host;x-amz-content-sha256;x-amz-date;x-amz-meta-a;x-amz-meta-b");
  CHECK(sig.canonical_request.find("x-amz-meta-b:2,3\n") != std::string::npos);
  CHECK(sig.canonical_request.find("x-amz-date:20200101T000000Z\n") != std::string::npos);
  CHECK(sig.content_sha256 == unsigned_payload);
}

TEST_CASE("bad input is an invalid_argument error, not a signature") {
  std::array<header_view, 1> no_host{{{"range", "bytes=0-1"}}};
  std::array<header_view, 1> host{{{"host", "h"}}};
  signer s;
  header_signature sig;
  credentials_view c{aws_doc_akid, aws_doc_secret, {}};
  auto t = at(2020, 1, 1, 0, 0, 0);
  auto r = s.sign_headers({"GET", "/", {}, no_host, unsigned_payload}, c, signing_params::s3("us-east-1"), t, sig);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == floe::errc::invalid_argument);
  CHECK_FALSE(ok(s.sign_headers({"GET", "/", {}, host, {}}, c, signing_params::s3("us-east-1"), t, sig)));
  CHECK_FALSE(ok(s.sign_headers({"GET", "/", {}, host, unsigned_payload}, c, signing_params::s3(""), t, sig)));
  CHECK_FALSE(ok(s.sign_headers({"", "/", {}, host, unsigned_payload}, c, signing_params::s3("us-east-1"), t, sig)));
  CHECK_FALSE(ok(s.sign_headers({"GET", "/", {}, host, unsigned_payload}, {{}, aws_doc_secret, {}},
                             signing_params::s3("us-east-1"), t, sig)));
  // The error message names the problem but never the secret.
  CHECK(r.error().diag.message.find(aws_doc_secret) == std::string::npos);
}

TEST_CASE("aws-chunked upload: seed and chunk signatures match the AWS S3 streaming example") {
  std::array<header_view, 6> h{{{"Host", "s3.amazonaws.com"},
                                {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                                {"Content-Encoding", "aws-chunked"},
                                {"x-amz-decoded-content-length", "66560"},
                                {"Content-Length", "66824"},
                                {"x-amz-content-sha256", "ignored: the signer sets its own"}}};
  request_view req{"PUT", "/examplebucket/chunkObject.txt", {}, h, streaming_payload};
  signer s;
  header_signature sig;
  REQUIRE(ok(s.sign_headers(req, {aws_doc_akid, aws_doc_secret, {}}, signing_params::s3("us-east-1"),
                            at(2013, 5, 24, 0, 0, 0), sig)));
  CHECK(sig.signed_headers ==
        "content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;"
        "x-amz-storage-class");
  CHECK(sig.signature == "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9");
  chunk_signer c(s.key_cache().get(aws_doc_secret, "20130524", "us-east-1", "s3"), sig.x_amz_date, "us-east-1",
                 "s3", sig.signature);
  CHECK(c.next(std::string(65536, 'a')) == "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
  CHECK(c.next(std::string(1024, 'a')) == "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497");
  CHECK(c.next({}) == "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9");
}

}  // namespace sigv4_sigv4_test
