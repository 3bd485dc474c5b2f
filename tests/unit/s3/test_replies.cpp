#include <floe/s3/replies.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_replies_test {

using namespace floe;

TEST_CASE("normalize_etag strips quotes and a weak prefix, nothing else") {
  CHECK(s3::normalize_etag("\"abc\"") == "abc");
  CHECK(s3::normalize_etag("abc") == "abc");
  CHECK(s3::normalize_etag("W/\"abc\"") == "abc");
  CHECK(s3::normalize_etag("\"abc-3\"") == "abc-3");
  CHECK(s3::normalize_etag("\"") == "\"");
  CHECK(s3::normalize_etag("") == "");
}

TEST_CASE("url_decode decodes %XX and '+' as space, refuses bad escapes") {
  CHECK(*s3::url_decode("a%20b+c%2Bd") == "a b c+d");
  CHECK(*s3::url_decode("%E2%82%AC") == "\xE2\x82\xAC");
  CHECK(*s3::url_decode("%2F%2Fx") == "//x");
  CHECK(s3::url_decode("%").has_error());
  CHECK(s3::url_decode("%4").has_error());
  CHECK(s3::url_decode("%zz").error().code == errc::malformed_reply);
}

TEST_CASE("parse_list_objects_v2 reads a url-encoded page with prefixes and a continuation token") {
  std::string body = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p%2F</Prefix>
<KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
<NextContinuationToken>tok/+=</NextContinuationToken>
<Contents><Key>p/a+b%2Bc</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>&quot;e1&quot;</ETag><Size>5</Size><StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key>p/%01ctl</Key><LastModified>x</LastModified><ETag>"e2"</ETag><Size>0</Size></Contents>
<CommonPrefixes><Prefix>p/dir%20x/</Prefix></CommonPrefixes></ListBucketResult>)";
  auto page = s3::parse_list_objects_v2(body);
  REQUIRE(page.has_value());
  CHECK(page->truncated);
  CHECK(page->next_continuation_token == "tok/+=");
  REQUIRE(page->objects.size() == 2);
  CHECK(page->objects[0].key == "p/a b+c");
  CHECK(page->objects[0].etag == "e1");
  CHECK(page->objects[0].size == 5);
  CHECK(page->objects[1].key == std::string("p/\x01" "ctl"));
  REQUIRE(page->common_prefixes.size() == 1);
  CHECK(page->common_prefixes[0] == "p/dir x/");
}

TEST_CASE("parse_list_objects_v2 takes keys literally when the store ignored encoding-type") {
  std::string body = "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a+b%41</Key><Size>1</Size></Contents></ListBucketResult>";
  auto page = s3::parse_list_objects_v2(body);
  REQUIRE(page.has_value());
  CHECK(page->objects[0].key == "a+b%41");
  CHECK_FALSE(page->truncated);
}

TEST_CASE("parse_list_objects_v2 refuses an Error document, a truncated page without token, and a bad size") {
  CHECK(s3::parse_list_objects_v2("<Error><Code>AccessDenied</Code></Error>").error().code == errc::malformed_reply);
  CHECK(s3::parse_list_objects_v2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>").has_error());
  CHECK(s3::parse_list_objects_v2("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>").has_error());
  CHECK(s3::parse_list_objects_v2("<ListBucketResult><Contents><Key>k</Key>").has_error());
  CHECK(s3::parse_list_objects_v2("<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><ListBucketResult/>").error().code ==
        errc::xml_doctype_refused);
}

TEST_CASE("build_delete_objects_body escapes keys, keeps CR/LF as references, refuses other control bytes") {
  std::vector<std::string> keys{"a&b", "<x>", "line\nbreak", "q\"'"};
  auto b = s3::build_delete_objects_body(keys, true);
  REQUIRE(b.has_value());
  CHECK(b->find("<Quiet>true</Quiet>") != std::string::npos);
  CHECK(b->find("<Key>a&amp;b</Key>") != std::string::npos);
  CHECK(b->find("<Key>&lt;x&gt;</Key>") != std::string::npos);
  CHECK(b->find("<Key>line&#10;break</Key>") != std::string::npos);
  std::vector<std::string> bad{"ok", std::string("c\x01")};
  auto r = s3::build_delete_objects_body(bad, false);
  REQUIRE(r.has_error());
  CHECK(r.error().diag.message.find("#2") != std::string::npos);
  CHECK(s3::build_delete_objects_body({}, false).has_error());
  std::vector<std::string> many(1001, "k");
  CHECK(s3::build_delete_objects_body(many, false).has_error());
}

TEST_CASE("parse_delete_objects reports deleted keys and per-key errors") {
  auto r = s3::parse_delete_objects(
      "<DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>AccessDenied</Code>"
      "<Message>no</Message></Error></DeleteResult>");
  REQUIRE(r.has_value());
  CHECK(r->deleted == std::vector<std::string>{"a"});
  REQUIRE(r->errors.size() == 1);
  CHECK(r->errors[0].key == "b");
  CHECK(r->errors[0].code == "AccessDenied");
}

TEST_CASE("multipart replies: upload id, complete body in order, complete result, copy result") {
  CHECK(*s3::parse_initiate_multipart(
            "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>U1</UploadId></InitiateMultipartUploadResult>") ==
        "U1");
  CHECK(s3::parse_initiate_multipart("<InitiateMultipartUploadResult/>").has_error());
  std::vector<s3::completed_part> parts{{1, "\"e1\""}, {2, "\"e2\""}};
  auto body = s3::build_complete_multipart_body(parts);
  CHECK(body.find("<Part><PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag></Part><Part><PartNumber>2</PartNumber>") !=
        std::string::npos);
  auto c = s3::parse_complete_multipart(
      "\n\n  <CompleteMultipartUploadResult><Location>l</Location><ETag>\"abc-2\"</ETag></CompleteMultipartUploadResult>");
  REQUIRE(c.has_value());
  CHECK(c->etag == "abc-2");
  // moto 5 names the root CompleteMultipartUploadResponse.
  auto moto = s3::parse_complete_multipart(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<CompleteMultipartUploadResponse xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Location>http://x/b/k</Location><Bucket>b</Bucket><Key>k</Key><ETag>\"def-7\"</ETag></CompleteMultipartUploadResponse>");
  REQUIRE(moto.has_value());
  CHECK(moto->etag == "def-7");
  CHECK(s3::parse_complete_multipart("<ListBucketResult/>").has_error());
  // Ceph 16.2 sends an empty ETag: parsed, left to multipart_etag.
  auto ceph = s3::parse_complete_multipart(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Location>localhost/b/k</Location><Bucket>b</Bucket><Key>k</Key><ETag></ETag></CompleteMultipartUploadResult>");
  REQUIRE(ceph.has_value());
  CHECK(ceph->etag.empty());
  // A 200 whose body is an <Error> never parses as a result.
  CHECK(s3::parse_complete_multipart("  <Error><Code>InternalError</Code></Error>").has_error());
  auto cp = s3::parse_copy_result("<CopyPartResult><ETag>\"p\"</ETag><LastModified>t</LastModified></CopyPartResult>");
  REQUIRE(cp.has_value());
  CHECK(cp->etag == "p");
  CHECK(s3::parse_copy_result("<Error><Code>SlowDown</Code></Error>").has_error());
}

TEST_CASE("multipart_etag is the MD5 of the parts' binary MD5s, a dash and the part count") {
  // Seen on Ceph RGW 16.2: one part of ten 'x' bytes (MD5 336311a0...) gave
  // the object ETag cb8d7289...-1.
  std::vector<s3::completed_part> one{{1, "\"336311a016184326ddbdd61edd4eeb52\""}};
  CHECK(s3::multipart_etag(one) == "cb8d7289925309a05b2db09b7709c264-1");
  // Two parts: MD5("a") and MD5("b"), concatenated in binary, hashed again.
  std::vector<s3::completed_part> two{{1, "0cc175b9c0f1b6a831c399e269772661"}, {2, "92eb5ffee6ae2fec3ad71c777531578f"}};
  CHECK(s3::multipart_etag(two) == "96e024ba2074fe77e8e965ba43a704be-2");
  // Not an MD5 (e.g. SSE-KMS): no guess.
  std::vector<s3::completed_part> kms{{1, "\"not-an-md5\""}};
  CHECK(s3::multipart_etag(kms).empty());
  CHECK(s3::multipart_etag({}).empty());
}

TEST_CASE("parse_list_buckets reads names, dates, owner and an optional region and continuation token") {
  // The shape AWS, moto and Ceph RGW send (Ceph without BucketRegion).
  std::string body = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Owner><ID>75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a</ID><DisplayName>webfile</DisplayName></Owner>
  <Buckets>
    <Bucket><Name>alpha</Name><CreationDate>2024-01-02T03:04:05.000Z</CreationDate></Bucket>
    <Bucket><Name>b&amp;eta.example</Name><CreationDate>2024-02-03T04:05:06.000Z</CreationDate><BucketRegion>eu-west-1</BucketRegion></Bucket>
  </Buckets>
</ListAllMyBucketsResult>)";
  auto r = s3::parse_list_buckets(body);
  REQUIRE(r.has_value());
  REQUIRE(r->buckets.size() == 2);
  CHECK(r->buckets[0].name == "alpha");
  CHECK(r->buckets[0].creation_date == "2024-01-02T03:04:05.000Z");
  CHECK(r->buckets[0].region.empty());
  CHECK(r->buckets[1].name == "b&eta.example");
  CHECK(r->buckets[1].region == "eu-west-1");
  CHECK(r->owner_id.size() == 64);
  CHECK(r->owner_display_name == "webfile");
  CHECK(r->continuation_token.empty());

  auto paged = s3::parse_list_buckets(
      "<ListAllMyBucketsResult><Buckets><Bucket><Name>x</Name></Bucket></Buckets>"
      "<ContinuationToken>tok/1</ContinuationToken></ListAllMyBucketsResult>");
  REQUIRE(paged.has_value());
  CHECK(paged->continuation_token == "tok/1");
  CHECK(paged->buckets.size() == 1);
}

TEST_CASE("parse_list_buckets: no buckets is an empty list; a nameless bucket and an Error document are refused") {
  auto none = s3::parse_list_buckets("<ListAllMyBucketsResult><Owner><ID>o</ID></Owner><Buckets/></ListAllMyBucketsResult>");
  REQUIRE(none.has_value());
  CHECK(none->buckets.empty());
  CHECK(none->owner_id == "o");
  auto nameless = s3::parse_list_buckets("<ListAllMyBucketsResult><Buckets><Bucket><CreationDate>t</CreationDate></Bucket></Buckets></ListAllMyBucketsResult>");
  REQUIRE(nameless.has_error());
  CHECK(nameless.error().code == errc::malformed_reply);
  CHECK(s3::parse_list_buckets("<Error><Code>AccessDenied</Code></Error>").error().code == errc::malformed_reply);
  CHECK(s3::parse_list_buckets("not xml").has_error());
}

}  // namespace s3_replies_test
