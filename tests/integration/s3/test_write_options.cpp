// Write options (storage class, encryption, ACL, Cache-Control): on which
// requests they go, and that they land on the object as another client reads it.
#include "s3_suite.hpp"

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_write_options_it {

namespace {

// What a store says of an object, asked by boto3 (not floe, whose HeadObject
// does not read these): "class|sse|kms key|cache-control|type|metadata as
// sorted JSON"; a missing StorageClass is STANDARD, as S3 omits it then.
std::string boto3_head(std::string const& bucket, std::string const& key) {
  auto const& t = s3_target::get();
  static constexpr char const* script =
      "import boto3, botocore.config, json, sys\n"
      "try:\n"
      "    c = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id=sys.argv[2],\n"
      "                     aws_secret_access_key=sys.argv[3],\n"
      "                     config=botocore.config.Config(s3={'addressing_style': 'path'}))\n"
      "    h = c.head_object(Bucket=sys.argv[4], Key=sys.argv[5])\n"
      "    print('|'.join([h.get('StorageClass', 'STANDARD'), h.get('ServerSideEncryption', ''),\n"
      "                    h.get('SSEKMSKeyId', ''), h.get('CacheControl', ''), h.get('ContentType', ''),\n"
      "                    json.dumps(h.get('Metadata', {}), sort_keys=True)]))\n"
      "except Exception as e:\n"
      "    print('boto3 HeadObject failed: ' + type(e).__name__)\n";
  floe::test::child_process py;
  return py.start({"python3", "-c", script, t.endpoint, t.access_key, t.secret_key, bucket, key});
}

}  // namespace

TEST_CASE("write options go on PutObject, CreateMultipartUpload and CopyObject, never on UploadPart") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io, multipart_config());
  bucket_guard b(io, *c, "write-options");
  auto& ctl = s3_target::get().control;
  auto counting = [&](std::string const& method, std::string const& query) {
    return ctl.add_rule(R"({"match": {"method": ")" + method + R"(", "path": "^/)" + b.name + R"(/", "query": ")" +
                        query + R"(", "headers_present": ["x-amz-acl", "Cache-Control"]}, "action": {"type": "delay", "ms": 0}})");
  };
  int const create = counting("POST", "uploads");
  int const part = counting("PUT", "partNumber");
  floe::s3::put_params pp;
  pp.write.acl = "public-read";
  pp.write.cache_control = "max-age=600";
  temp_dir dir;
  auto const big = dir.pattern_file("big", 7u << 20, 77);
  auto uf = c->async_upload_file(b.name, "multipart", big, pp, asio::use_future);
  auto u = finish(io, uf, 120s);
  REQUIRE_OK(u);
  CHECK(u->parts == 2);
  CHECK(ctl.rule_counter(create, "matched") == 1);
  CHECK(ctl.rule_counter(part, "matched") == 0);
  int const put = counting("PUT", "^$");
  std::string const data = "x";
  auto pf = c->async_put_object(b.name, "one", body_source::memory(data), pp, asio::use_future);
  REQUIRE_OK(finish(io, pf));
  CHECK(ctl.rule_counter(put, "matched") == 1);
  floe::s3::copy_params cp;
  cp.source_bucket = b.name;
  cp.source_key = "one";
  cp.bucket = b.name;
  cp.key = "copied";
  cp.write = pp.write;
  auto cf = c->async_copy_object(cp, asio::use_future);
  REQUIRE_OK(finish(io, cf));
  CHECK(ctl.rule_counter(put, "matched") == 2);
  // An encryption the library knows no store takes is refused before sending.
  cp.write.sse = "AES128";
  auto bad = c->async_copy_object(cp, asio::use_future);
  auto e = finish(io, bad);
  REQUIRE(!e.has_value());
  CHECK(e.error().code == errc::invalid_argument);
  CHECK(e.error().diag.message.find("\"AES128\"") != std::string::npos);
}

TEST_CASE("storage class, encryption, Cache-Control, type and metadata land on an upload and a copy in parts") {
  proxy_scope px;
  asio::io_context io;
  bool const moto = s3_target::get().name == "moto";
  auto cfg = multipart_copy_config();
  cfg.multipart_threshold = 5u << 20;
  cfg.part_size = 5u << 20;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "partwrite");
  // Ceph RGW 16.2 as tested has one placement (STANDARD) and no KMS: it
  // refuses other classes and aws:kms (the CLI suite checks that).
  floe::s3::write_options w;
  w.storage_class = moto ? "STANDARD_IA" : "STANDARD";
  if (moto) {
    w.sse = "aws:kms";
    w.sse_kms_key_id = "floe-key-1";
  }
  w.cache_control = "max-age=600";
  std::string const stored = moto ? "STANDARD_IA|aws:kms|floe-key-1|max-age=600|" : "STANDARD|||max-age=600|";

  floe::s3::put_params pp;
  pp.content_type = "text/csv";
  pp.metadata = {{"a", "1"}};
  pp.write = w;
  temp_dir dir;
  auto const big = dir.pattern_file("big", 7u << 20, 78);
  auto uf = c->async_upload_file(b.name, "uploaded", big, pp, asio::use_future);
  auto u = finish(io, uf, 120s);
  REQUIRE_OK(u);
  CHECK(u->parts == 2);
  CHECK(boto3_head(b.name, "uploaded") == stored + R"(text/csv|{"a": "1"})");

  floe::s3::copy_params cp;
  cp.source_bucket = b.name;
  cp.source_key = "uploaded";
  cp.bucket = b.name;
  cp.key = "copied";
  cp.metadata = meta{{"new", "2"}};
  cp.write = w;
  auto cf = c->async_copy_object(cp, asio::use_future);
  auto r = finish(io, cf, 120s);
  REQUIRE_OK(r);
  CHECK(r->etag.find("-2") != std::string::npos);  // in parts
  CHECK(boto3_head(b.name, "copied") == stored + R"(text/csv|{"new": "2"})");

  // One request each: the same headers on PutObject and CopyObject.
  std::string const data = "small";
  auto pf = c->async_put_object(b.name, "small", body_source::memory(data), pp, asio::use_future);
  REQUIRE_OK(finish(io, pf));
  CHECK(boto3_head(b.name, "small") == stored + R"(text/csv|{"a": "1"})");
  cp.source_key = "small";
  cp.key = "small-copy";
  cp.metadata.reset();
  cp.content_type = "text/plain";
  auto sf = c->async_copy_object(cp, asio::use_future);
  REQUIRE_OK(finish(io, sf));
  CHECK(boto3_head(b.name, "small-copy") == stored + R"(text/plain|{"a": "1"})");
}

}  // namespace s3_write_options_it
