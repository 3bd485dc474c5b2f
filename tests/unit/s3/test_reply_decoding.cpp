// What floe reads from a successful S3 reply beyond its XML body, pure
// (s3/detail/reply_decoding.hpp).
#include <floe/s3/detail/reply_decoding.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_reply_decoding_test {

using namespace floe::s3;
namespace http = floe::http;
using floe::errc;
using floe::error;

namespace {
http::response reply(unsigned status, std::vector<std::pair<std::string, std::string>> headers, std::string body = {}) {
  http::response r;
  r.status = status;
  for (auto const& [n, v] : headers) r.headers.add(n, v);
  r.body = std::move(body);
  return r;
}

detail::op_spec op_for(std::string const& bucket, std::string const& key, std::string_view operation) {
  detail::op_spec op;
  op.operation = operation;
  op.bucket = bucket;
  op.key = key;
  return op;
}
}  // namespace

TEST_CASE("fill_info reads the object's facts, any case of names, the first of each, metadata lower-cased") {
  auto res = reply(200, {{"etag", "\"e1\""},
                         {"Content-Type", "text/plain"},
                         {"Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT"},
                         {"content-length", "42"},
                         {"X-Amz-Version-Id", "v1"},
                         {"ETag", "\"second\""},
                         {"X-Amz-Meta-Owner", "Alice"},
                         {"x-amz-meta-", "no name"},
                         {"x-amz-metadata-directive", "COPY"},
                         {"x-amz-meta-b", ""}});
  object_info i;
  detail::fill_info(res, i);
  CHECK(i.etag == "e1");
  CHECK(i.content_type == "text/plain");
  CHECK(i.last_modified == "Tue, 01 Dec 2026 10:00:00 GMT");
  CHECK(i.size == 42);
  CHECK(i.version_id == "v1");
  CHECK(i.content_range.empty());
  using md = std::vector<std::pair<std::string, std::string>>;
  CHECK(i.metadata == md{{"owner", "Alice"}, {"b", ""}});
}

TEST_CASE("fill_info: the object's checksums (x-amz-checksum-<algorithm>) and their type, composite values as sent") {
  object_info i;
  detail::fill_info(reply(200, {{"x-amz-checksum-type", "COMPOSITE"},
                                {"X-Amz-Checksum-CRC32C", "yZRlqg==-2"},
                                {"x-amz-checksum-sha256", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
                                {"x-amz-checksum-mode", "ENABLED"}}),
                    i);
  REQUIRE(i.checksums.size() == 2);
  CHECK(i.checksums[0].alg == floe::checksum::algorithm::crc32c);
  CHECK(i.checksums[0].value == "yZRlqg==-2");
  CHECK(i.checksums[1].alg == floe::checksum::algorithm::sha256);
  CHECK(i.checksum_type == "COMPOSITE");
  CHECK(i.metadata.empty());
  object_info none;
  detail::fill_info(reply(200, {{"x-amz-checksum-type", "FULL_OBJECT"}}), none);
  CHECK(none.checksums.empty());
  CHECK(none.checksum_type == "FULL_OBJECT");
}

TEST_CASE("fill_info: a ranged reply's size is the whole object's, from Content-Range") {
  object_info i;
  detail::fill_info(reply(206, {{"Content-Range", "bytes 0-9/100"}, {"Content-Length", "10"}}), i);
  CHECK(i.size == 100);
  CHECK(i.content_range == "bytes 0-9/100");
  object_info unknown_total;
  detail::fill_info(reply(206, {{"Content-Range", "bytes 0-9/*"}, {"Content-Length", "10"}}), unknown_total);
  CHECK(unknown_total.size == 10);
}

TEST_CASE("put_result_from and reply_result") {
  auto put = detail::put_result_from(reply(200, {{"ETag", "\"p\""}, {"x-amz-version-id", "v2"}}));
  CHECK(put.etag == "p");
  CHECK(put.version_id == "v2");
  CHECK(put.parts == 0);

  auto res = reply(200, {{"ETag", "\"g\""}}, "hello");
  auto got = detail::reply_result(res);
  CHECK(got.body == "hello");
  CHECK(got.info.etag == "g");
  CHECK_FALSE(got.not_modified);
  auto nm = reply(304, {{"ETag", "\"g\""}});
  CHECK(detail::reply_result(nm).not_modified);
}

TEST_CASE("range_ignored: only a 206 from the offset asked delivers a ranged body") {
  CHECK_FALSE(detail::range_ignored(reply(206, {{"Content-Range", "bytes 5-9/10"}}), 5));
  CHECK(detail::range_ignored(reply(206, {{"Content-Range", "bytes 0-9/10"}}), 5));
  CHECK(detail::range_ignored(reply(206, {{"Content-Range", "bytes 50-99/100"}}), 5));  // not a prefix match on 5
  CHECK(detail::range_ignored(reply(206, {}), 5));
  CHECK(detail::range_ignored(reply(200, {{"Content-Length", "10"}}), 5));  // the whole object
  CHECK_FALSE(detail::range_ignored(reply(404, {}), 5));                  // an error, not a body
  CHECK_FALSE(detail::range_ignored(reply(304, {}), 5));

  std::string const b = "b", k = "k";
  auto e = detail::range_error(op_for(b, k, "GetObject"), reply(200, {}), 5);
  CHECK(e.code == errc::malformed_reply);
  // The operation and resource are named once, in their own fields.
  CHECK(e.diag.operation == "GetObject");
  CHECK(e.diag.resource == "b/k");
  CHECK(e.diag.message.find("asked for bytes from 5, the reply was 200") == 0);
  CHECK(e.diag.message.find("nothing of it was delivered") != std::string::npos);
}

TEST_CASE("missing_part_etag names the part, the status, the request id and the operation") {
  std::string const b = "b", k = "k";
  auto e = detail::missing_part_etag(op_for(b, k, "UploadPart"), reply(200, {{"x-amz-request-id", "R1"}}), 3);
  CHECK(e.code == errc::malformed_reply);
  CHECK(e.diag.message == "the reply to part 3 has no ETag");
  CHECK(e.diag.http_status == 200);
  CHECK(e.diag.request_id == "R1");
  CHECK(e.diag.operation == "UploadPart");
  CHECK(e.diag.resource == "b/k");
}

TEST_CASE("completed_upload: the body's ETag, else the header's, else the one computed from the parts") {
  std::vector<completed_part> parts{{1, "\"0cc175b9c0f1b6a831c399e269772661\""},
                                    {2, "\"92eb5ffee6ae2fec3ad71c777531578f\""}};
  auto const res = reply(200, {{"ETag", "\"hdr-2\""}, {"x-amz-version-id", "v"}});
  complete_result done{"body-2", ""};
  auto r = detail::completed_upload(done, res, parts);
  CHECK(r.etag == "body-2");
  CHECK(r.version_id == "v");
  CHECK(r.parts == 2);
  complete_result empty;  // Ceph 16.2: <ETag></ETag>
  CHECK(detail::completed_upload(empty, res, parts).etag == "hdr-2");
  complete_result empty2;
  auto computed = detail::completed_upload(empty2, reply(200, {}), parts);
  CHECK(computed.etag == multipart_etag(parts));
  CHECK(computed.etag.size() == 34);  // 32 hex digits, "-2"
}

TEST_CASE("copy_condition_broken: which copy-source condition the copied version violates") {
  copy_params p;
  CHECK(detail::copy_condition_broken(p, "\"x\"").empty());
  p.source_if_match = "\"want\"";
  CHECK(detail::copy_condition_broken(p, "\"want\"").empty());
  CHECK(detail::copy_condition_broken(p, "\"other\"") == "source_if_match want");
  p.source_if_match = "abc-2";  // a multipart ETag may be recomputed by the copy: not compared
  CHECK(detail::copy_condition_broken(p, "\"other\"").empty());
  p.source_if_match.clear();
  p.source_if_none_match = "\"old\"";
  CHECK(detail::copy_condition_broken(p, "\"new\"").empty());
  CHECK(detail::copy_condition_broken(p, "old") == "source_if_none_match old");
}

TEST_CASE("merge_delete_batch: the keys a quiet reply names failed, the rest of the batch was deleted") {
  delete_objects_result all;
  all.deleted = {"earlier"};
  std::vector<std::string> batch{"a", "b", "c"};
  delete_objects_result reply_;
  reply_.errors.push_back({"b", "AccessDenied", "no"});
  detail::merge_delete_batch(all, batch, reply_);
  CHECK(all.deleted == std::vector<std::string>{"earlier", "a", "c"});
  REQUIRE(all.errors.size() == 1);
  CHECK(all.errors[0].key == "b");
  CHECK(all.errors[0].code == "AccessDenied");
}

TEST_CASE("stop_deleting: the failed batch, the keys never sent and the set-aside keys are not done") {
  delete_objects_result all;
  all.deleted = {"a"};
  std::vector<std::string> batch{"b", "c"};
  std::vector<std::string> keys{"a", "b", "c", "d", "e"};
  std::vector<std::string> singles{"ctl\x01"};
  detail::stop_deleting(all, error(errc::service_error, "boom"), batch, keys, 3, singles);
  CHECK(all.failure.code == errc::service_error);
  CHECK_FALSE(all.complete());
  CHECK(all.not_done == std::vector<std::string>{"b", "c", "d", "e", "ctl\x01"});
  CHECK(all.deleted == std::vector<std::string>{"a"});
}

}  // namespace s3_reply_decoding_test
