// Buckets, regions and how a request is addressed and signed: CreateBucket
// and its LocationConstraint, region redirects, presigned URLs, a wrong secret,
// virtual-hosted style.
#include "s3_suite.hpp"

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_buckets_and_addressing_it {

TEST_CASE("CreateBucket and DeleteBucket; a non-empty bucket is not deleted") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  auto const name = bucket_name("lifecycle");
  auto cf = c->async_create_bucket(name, asio::use_future);
  REQUIRE_OK(finish(io, cf));
  REQUIRE_OK(put(io, *c, name, "k", "v"));
  auto nf = c->async_delete_bucket(name, asio::use_future);
  auto n = finish(io, nf);
  REQUIRE(!n.has_value());
  CHECK(n.error().diag.code == "BucketNotEmpty");
  CHECK(n.error().diag.http_status == 409);
  CHECK(n.error().diag.operation == "DeleteBucket");
  auto delf = c->async_delete_object(name, "k", asio::use_future);
  REQUIRE_OK(finish(io, delf));
  auto df = c->async_delete_bucket(name, asio::use_future);
  REQUIRE_OK(finish(io, df));
  auto lf = c->async_list_objects(name, asio::use_future);
  auto l = finish(io, lf);
  REQUIRE(!l.has_value());
  CHECK(l.error().diag.code == "NoSuchBucket");
}

TEST_CASE("CreateBucket sends a LocationConstraint outside us-east-1 and none in us-east-1") {
  proxy_scope px;
  asio::io_context io;
  auto& t = s3_target::get();
  auto& ctl = t.control;
  auto rule_pair = [&](std::string const& name) {
    int const with_body = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + name +
                                       R"(/?$", "header": {"Content-Length": "^[1-9]"}}, "action": {"type": "delay", "ms": 0}})");
    int const any = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + name +
                                 R"(/?$"}, "action": {"type": "delay", "ms": 0}})");
    return std::pair<int, int>(with_body, any);
  };

  auto cfg = base_config(t.secret_key);
  cfg.addressing.region = "eu-west-1";
  auto eu = make_client(io, cfg);
  auto const eu_name = bucket_name("loc-eu");
  auto [eu_body, eu_other] = rule_pair(eu_name);
  auto ef = eu->async_create_bucket(eu_name, asio::use_future);
  auto e = finish(io, ef);
  CHECK(ctl.rule_counter(eu_body, "fired") == 1);  // a body went with it
  CHECK(ctl.rule_counter(eu_other, "matched") == 0);
  if (t.is_rgw()) {
    // RGW's zonegroup is not eu-west-1: it read the constraint and refused it.
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().diag.code == "InvalidLocationConstraint");
  } else {
    REQUIRE_OK(e);
    auto loc = floe::test::http_call(t.direct, "GET", "/" + eu_name + "?location");
    CHECK(loc.status == 200);
    CHECK(loc.body.find(">eu-west-1</LocationConstraint>") != std::string::npos);
    auto df = eu->async_delete_bucket(eu_name, asio::use_future);
    REQUIRE_OK(finish(io, df));
  }

  auto us = make_client(io);  // us-east-1
  auto const us_name = bucket_name("loc-us");
  auto [us_body, us_other] = rule_pair(us_name);
  auto uf = us->async_create_bucket(us_name, asio::use_future);
  REQUIRE_OK(finish(io, uf));
  CHECK(ctl.rule_counter(us_body, "matched") == 0);  // no body at all
  CHECK(ctl.rule_counter(us_other, "fired") == 1);
  if (!t.is_rgw()) {
    auto loc = floe::test::http_call(t.direct, "GET", "/" + us_name + "?location");
    CHECK(loc.status == 200);
    CHECK(loc.body.find("</LocationConstraint>") == std::string::npos);  // empty: us-east-1
  }
  auto df = us->async_delete_bucket(us_name, asio::use_future);
  REQUIRE_OK(finish(io, df));
}

TEST_CASE("a region redirect (301 with x-amz-bucket-region) is followed once and remembered") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "redirect");
  auto& ctl = s3_target::get().control;
  std::string const body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>PermanentRedirect</Code><Message>The bucket "
                           "you are attempting to access must be addressed using the specified endpoint.</Message>"
                           "<Bucket>" + b.name + "</Bucket><RequestId>R1</RequestId><HostId>H1</HostId></Error>";
  int const redirect = ctl.add_rule(R"({"match": {"path": "^/)" + b.name +
                                    R"(/"}, "trigger": {"nth": [1]}, "action": {"type": "reply", "status": 301, "headers": {"x-amz-bucket-region": "eu-west-2", "Content-Type": "application/xml"}, "body": )" +
                                    json_str(body) + "}}");
  int const signed_there = ctl.add_rule(R"({"match": {"path": "^/)" + b.name +
                                        R"(/", "header": {"Authorization": "/eu-west-2/s3/aws4_request"}}, "action": {"type": "delay", "ms": 0}})");
  REQUIRE_OK(put(io, *c, b.name, "k", "redirected"));
  CHECK(ctl.rule_counter(redirect, "fired") == 1);
  CHECK(ctl.rule_counter(signed_there, "fired") == 1);
  auto remembered = c->bucket_regions().lookup(b.name);
  REQUIRE(remembered.has_value());
  CHECK(*remembered == "eu-west-2");
  auto g = get(io, *c, b.name, "k");
  REQUIRE_OK(g);
  CHECK(g->body == "redirected");
  CHECK(ctl.rule_counter(redirect, "matched") == 3);
  CHECK(ctl.rule_counter(redirect, "fired") == 1);
  CHECK(ctl.rule_counter(signed_there, "fired") == 2);  // straight to the remembered region
  c->bucket_regions().forget(b.name);  // the guard deletes the bucket in its own region

  // A HEAD has no body: S3 says "wrong region" with a bare 400 and the header.
  bucket_guard b2(io, *c, "redirect400");
  REQUIRE_OK(put(io, *c, b2.name, "k", "v"));
  int const bare400 = ctl.add_rule(R"({"match": {"method": "HEAD", "path": "^/)" + b2.name +
                                   R"(/"}, "trigger": {"nth": [1]}, "action": {"type": "reply", "status": 400, "headers": {"x-amz-bucket-region": "ap-south-1"}}})");
  auto hf = c->async_head_object(b2.name, "k", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE_OK(h);
  CHECK(h->info.size == 1);
  CHECK(ctl.rule_counter(bare400, "fired") == 1);
  CHECK(ctl.rule_counter(bare400, "matched") == 2);
  auto r2 = c->bucket_regions().lookup(b2.name);
  REQUIRE(r2.has_value());
  CHECK(*r2 == "ap-south-1");
  c->bucket_regions().forget(b2.name);
}

TEST_CASE("a second region redirect is an error, not a loop; the first was remembered") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = base_config(s3_target::get().secret_key);
  cfg.http.retry.max_attempts = 1;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "redirect2");
  auto& ctl = s3_target::get().control;
  // The bytes AWS sends for a bucket in another region (the shape of its
  // documented PermanentRedirect reply; no Date, so no clock-skew logic).
  std::string const body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>PermanentRedirect</Code><Message>The "
                           "bucket you are attempting to access must be addressed using the specified endpoint. Please send "
                           "all future requests to this endpoint.</Message><Endpoint>" + b.name +
                           ".s3.eu-west-2.amazonaws.com</Endpoint><Bucket>" + b.name +
                           "</Bucket><RequestId>4Q9SJ2B6XAWBCN60</RequestId><HostId>m3Cl9JQyfnDZ8XQk4HqtUFHVYa"
                           "Hdo2b7Ns0R1+h7NVvzGLEvoxMxuUwzcgTzEVhs5UV2hSQ0sV4=</HostId></Error>";
  std::string const reply = "HTTP/1.1 301 Moved Permanently\r\nx-amz-bucket-region: eu-west-2\r\n"
                            "x-amz-request-id: 4Q9SJ2B6XAWBCN60\r\nx-amz-id-2: m3Cl9JQyfnDZ8XQk4HqtUFHVYaHdo2b7Ns0R1+"
                            "h7NVvzGLEvoxMxuUwzcgTzEVhs5UV2hSQ0sV4=\r\nContent-Type: application/xml\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\nServer: AmazonS3\r\n\r\n" + body;
  int const first = ctl.add_rule(R"({"match": {"path": "^/)" + b.name +
                                 R"(/k$", "header": {"Authorization": "/us-east-1/s3/aws4_request"}}, "action": {"type": "reply", "raw_b64": ")" +
                                 base64(reply) + R"("}})");
  // The region it named answers with yet another region.
  int const second = ctl.add_rule(R"({"match": {"path": "^/)" + b.name +
                                  R"(/k$", "header": {"Authorization": "/eu-west-2/s3/aws4_request"}}, "trigger": {"nth": [1]}, "action": {"type": "reply", "status": 301, "headers": {"x-amz-bucket-region": "ap-south-1", "Content-Type": "application/xml"}, "body": "<Error><Code>PermanentRedirect</Code><Message>again</Message><RequestId>R2</RequestId></Error>"}})");
  int const further = ctl.add_rule(R"({"match": {"path": "^/)" + b.name +
                                   R"(/k$", "header": {"Authorization": "/ap-south-1/s3/aws4_request"}}, "action": {"type": "delay", "ms": 0}})");
  auto r = put(io, *c, b.name, "k", "v");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().diag.http_status == 301);
  CHECK(r.error().diag.request_id == "R2");
  CHECK(ctl.rule_counter(first, "fired") == 1);
  CHECK(ctl.rule_counter(second, "fired") == 1);
  CHECK(ctl.rule_counter(further, "matched") == 0);  // nothing sent to ap-south-1
  auto remembered = c->bucket_regions().lookup(b.name);
  REQUIRE(remembered.has_value());
  CHECK(*remembered == "eu-west-2");
  // The next request goes straight to the remembered region (signed for it).
  auto again = put(io, *c, b.name, "k", "v");
  REQUIRE_OK(again);
  CHECK(ctl.rule_counter(first, "matched") == 1);
  CHECK(ctl.rule_counter(second, "matched") == 2);
  CHECK(ctl.rule_counter(further, "matched") == 0);
  c->bucket_regions().forget(b.name);
}

TEST_CASE("a presigned GET works with a plain HTTP GET through the verifying proxy; a tampered one does not") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "presign");
  std::string const k = "pre signed/\xc3\xa9+x";
  REQUIRE_OK(put(io, *c, b.name, k, "presigned body"));
  auto url = c->presign("GET", b.name, k, 300s);
  REQUIRE_OK(url);
  auto const& ep = s3_target::get().endpoint;
  REQUIRE(url->substr(0, ep.size()) == ep);
  auto const target = url->substr(ep.size());
  CHECK(target.find("X-Amz-Signature=") != std::string::npos);
  auto r = floe::test::http_call(ep, "GET", target);
  CHECK(r.status == 200);
  CHECK(r.body == "presigned body");

  auto tampered = target;
  auto const at = tampered.find("X-Amz-Signature=") + 16;
  tampered[at] = tampered[at] == '0' ? '1' : '0';
  auto t = floe::test::http_call(ep, "GET", tampered);
  CHECK(t.status == 403);
  CHECK(t.body.find("SignatureDoesNotMatch") != std::string::npos);
  px.expected_failures = 1;

  auto too_long = c->presign("GET", b.name, k, std::chrono::hours(24 * 7 + 1));
  CHECK(!too_long.has_value());
}

TEST_CASE("presign warns when the URL outlives temporary credentials, and only then") {
  asio::io_context io;
  auto cfg = base_config(s3_target::get().secret_key);
  floe::credentials::credentials creds;
  creds.access_key_id = "ASIATESTTEMPORARY001";
  creds.secret_access_key = floe::credentials::secret_string("temporary-secret");
  creds.session_token = floe::credentials::secret_string("temporary-session-token");
  creds.expiry = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now()) + 600s;
  creds.source = "test (temporary)";
  cfg.credentials = std::make_shared<floe::credentials::static_provider>(std::move(creds));
  auto c = make_client(io, cfg);
  std::string warning;
  auto long_url = c->presign("GET", "presign-warn", "k", 3600s, &warning);
  REQUIRE(long_url.has_value());
  CHECK(warning.find("outlives the temporary credentials") != std::string::npos);
  CHECK(long_url->find("X-Amz-Security-Token=") != std::string::npos);
  CHECK(warning.find("temporary-secret") == std::string::npos);
  CHECK(warning.find("temporary-session-token") == std::string::npos);
  warning.clear();
  auto short_url = c->presign("GET", "presign-warn", "k", 300s, &warning);
  REQUIRE(short_url.has_value());
  CHECK(warning.empty());
}

TEST_CASE("a wrong secret gives a clear SignatureDoesNotMatch error") {
  proxy_scope px;
  asio::io_context io;
  auto good = make_client(io);
  bucket_guard b(io, *good, "secret");
  REQUIRE_OK(put(io, *good, b.name, "k", "v"));
  auto bad = make_client(io, base_config("this-is-not-the-secret-0000000000000000000"));
  auto g = get(io, *bad, b.name, "k");
  REQUIRE(!g.has_value());
  CHECK(g.error().code == errc::denied);
  CHECK(g.error().diag.http_status == 403);
  CHECK(g.error().diag.code == "SignatureDoesNotMatch");
  CHECK(g.error().diag.operation == "GetObject");
  CHECK(g.error().what().find("SignatureDoesNotMatch") != std::string::npos);
  px.expected_failures = 1;

  if (s3_target::get().is_rgw()) {
    // The store's own check too: straight to RGW, no proxy.
    auto cfg = base_config("this-is-not-the-secret-0000000000000000000");
    cfg.addressing.endpoint_url = s3_target::get().direct;
    auto direct = make_client(io, cfg);
    auto d = get(io, *direct, b.name, "k");
    REQUIRE(!d.has_value());
    CHECK(d.error().diag.http_status == 403);
    CHECK(d.error().diag.code == "SignatureDoesNotMatch");
    // Ceph's own message is empty: floe says what to check.
    CHECK(d.error().what().find("secret access key") != std::string::npos);
  }
}

TEST_CASE("virtual-hosted style against the store: bucket.localhost through the proxy") {
  proxy_scope px;
  asio::io_context io;
  auto& t = s3_target::get();
  auto c = make_client(io);
  bucket_guard b(io, *c, "vhost");
  auto const colon = t.endpoint.rfind(':');
  REQUIRE(colon != std::string::npos);
  auto cfg = base_config(t.secret_key);
  cfg.addressing.endpoint_url = "http://localhost" + t.endpoint.substr(colon);
  cfg.addressing.style = floe::s3::addressing_style::virtual_hosted;
  // *.localhost is not in DNS or /etc/hosts here: connect to loopback.
  cfg.http.resolve_overrides = {{b.name + ".localhost", "127.0.0.1"}};
  auto v = make_client(io, cfg);
  auto& ctl = s3_target::get().control;
  int const vhosted = ctl.add_rule(R"({"match": {"path": "^/dir/a%20b$", "header": {"Host": "^)" + b.name +
                                   R"(\\.localhost:[0-9]+$"}}, "action": {"type": "delay", "ms": 0}})");
  std::string const data = "virtually hosted";
  auto p = put(io, *v, b.name, "dir/a b", data);
  REQUIRE_OK(p);
  auto g = get(io, *v, b.name, "dir/a b");
  REQUIRE_OK(g);
  CHECK(g->body == data);
  CHECK(ctl.rule_counter(vhosted, "fired") == 2);
  // Path style sees the same object in the same bucket.
  auto pg = get(io, *c, b.name, "dir/a b");
  REQUIRE_OK(pg);
  CHECK(pg->body == data);
}

}  // namespace s3_buckets_and_addressing_it
