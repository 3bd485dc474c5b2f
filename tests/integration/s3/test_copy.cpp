// Server-side copies: CopyObject of an odd key, copies in UploadPartCopy
// ranges, what a copy keeps or replaces of the source's type and metadata, and
// a 200 <Error> on either request.
#include "s3_suite.hpp"

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_copy_it {

namespace {

// A 12 MiB object with a type and metadata, for the copies in parts below.
std::string put_part_copy_source(asio::io_context& io, client& c, std::string const& bucket, temp_dir& dir) {
  auto const src = dir.pattern_file("src", 12u << 20, 4343);
  floe::s3::put_params pp;
  pp.content_type = "application/x-floe-source";
  pp.metadata = {{"old", "1"}, {"kept", "2"}};
  auto uf = c.async_upload_file(bucket, "source", src, pp, asio::use_future);
  auto r = finish(io, uf, 120s);
  REQUIRE_OK(r);
  return r->etag;
}

floe::s3::object_info head_of(asio::io_context& io, client& c, std::string const& bucket, std::string const& key) {
  auto hf = c.async_head_object(bucket, key, asio::use_future);
  auto h = finish(io, hf);
  REQUIRE_OK(h);
  std::sort(h->info.metadata.begin(), h->info.metadata.end());  // in whatever order the store sends them
  return h->info;
}

}  // namespace

TEST_CASE("CopyObject copies an odd key server-side; a missing source is NoSuchKey") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard src(io, *c, "copysrc");
  bucket_guard dst(io, *c, "copydst");
  std::string const k = "dir/a b+c%d=e~f/\xc3\xa9";
  std::string const data = "copy me";
  auto p = put(io, *c, src.name, k, data);
  REQUIRE_OK(p);
  floe::s3::copy_params cp;
  cp.source_bucket = src.name;
  cp.source_key = k;
  cp.bucket = dst.name;
  cp.key = "copied " + k;
  auto cf = c->async_copy_object(cp, asio::use_future);
  auto r = finish(io, cf);
  REQUIRE_OK(r);
  CHECK(r->etag == p->etag);
  auto g = get(io, *c, dst.name, "copied " + k);
  REQUIRE_OK(g);
  CHECK(g->body == data);

  floe::s3::copy_params missing = cp;
  missing.source_key = "not there";
  auto mf = c->async_copy_object(missing, asio::use_future);
  auto m = finish(io, mf);
  REQUIRE(!m.has_value());
  CHECK(m.error().code == errc::not_found);
  CHECK(m.error().diag.code == "NoSuchKey");
}

TEST_CASE("a copy above multipart_copy_threshold goes in UploadPartCopy ranges and keeps type and metadata") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_copy_config();
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "partcopy");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 12u << 20, 4242);
  floe::s3::put_params pp;
  pp.content_type = "application/x-floe-test";
  pp.metadata = {{"kept", "yes"}};
  auto uf = c->async_upload_file(b.name, "source key", src, pp, asio::use_future);
  REQUIRE_OK(finish(io, uf, 120s));
  auto& ctl = s3_target::get().control;
  int const ranges = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name +
                                  R"(/", "headers_present": ["x-amz-copy-source-range", "x-amz-copy-source-if-match"]}, "action": {"type": "delay", "ms": 0}})");
  floe::s3::copy_params cp;
  cp.source_bucket = b.name;
  cp.source_key = "source key";
  cp.bucket = b.name;
  cp.key = "copy/of source";
  auto cf = c->async_copy_object(cp, asio::use_future);
  auto r = finish(io, cf, 120s);
  REQUIRE_OK(r);
  CHECK(ctl.rule_counter(ranges, "fired") == 3);  // 5 + 5 + 2 MiB
  CHECK(r->etag.find("-3") != std::string::npos);
  auto hf = c->async_head_object(b.name, "copy/of source", asio::use_future);
  auto h = finish(io, hf);
  REQUIRE_OK(h);
  CHECK(h->info.size == (12u << 20));
  CHECK(h->info.etag == r->etag);
  CHECK(h->info.content_type == "application/x-floe-test");
  REQUIRE(h->info.metadata.size() == 1);
  CHECK(h->info.metadata[0] == std::pair<std::string, std::string>("kept", "yes"));
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "copy/of source", out, asio::use_future);
  REQUIRE_OK(finish(io, df, 120s));
  CHECK(sha256_file(out) == sha256_file(src));
}

TEST_CASE("a copy in parts whose size the caller gave still keeps the source's type and metadata") {
  // The size from a listing spares the HEAD that used to bring the source's
  // headers along: the copy must look them up all the same.
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io, multipart_copy_config());
  bucket_guard b(io, *c, "partcopy-sized");
  temp_dir dir;
  put_part_copy_source(io, *c, b.name, dir);
  floe::s3::copy_params cp;
  cp.source_bucket = b.name;
  cp.source_key = "source";
  cp.bucket = b.name;
  cp.key = "copy";
  cp.source_size = 12u << 20;
  auto cf = c->async_copy_object(cp, asio::use_future);
  auto r = finish(io, cf, 120s);
  REQUIRE_OK(r);
  CHECK(r->etag.find("-3") != std::string::npos);
  auto const h = head_of(io, *c, b.name, "copy");
  CHECK(h.content_type == "application/x-floe-source");
  CHECK(h.metadata == meta{{"kept", "2"}, {"old", "1"}});
}

TEST_CASE("a copy in parts with a new type or metadata replaces them, keeping what is not given") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io, multipart_copy_config());
  bucket_guard b(io, *c, "partcopy-replace");
  temp_dir dir;
  put_part_copy_source(io, *c, b.name, dir);
  auto copy = [&](std::string const& key, floe::s3::copy_params cp) {
    cp.source_bucket = b.name;
    cp.source_key = "source";
    cp.bucket = b.name;
    cp.key = key;
    auto cf = c->async_copy_object(cp, asio::use_future);
    auto r = finish(io, cf, 120s);
    REQUIRE_OK(r);
    CHECK(r->etag.find("-3") != std::string::npos);  // in parts
    return head_of(io, *c, b.name, key);
  };
  floe::s3::copy_params both;
  both.content_type = "text/csv";
  both.metadata = meta{{"new", "3"}};
  auto h = copy("both", both);
  CHECK(h.content_type == "text/csv");
  CHECK(h.metadata == meta{{"new", "3"}});
  floe::s3::copy_params only_metadata;
  only_metadata.metadata = meta{{"new", "4"}};
  only_metadata.source_size = 12u << 20;
  h = copy("metadata", only_metadata);
  CHECK(h.content_type == "application/x-floe-source");
  CHECK(h.metadata == meta{{"new", "4"}});
  floe::s3::copy_params only_type;
  only_type.content_type = "text/plain";
  h = copy("type", only_type);
  CHECK(h.content_type == "text/plain");
  CHECK(h.metadata == meta{{"kept", "2"}, {"old", "1"}});
}

TEST_CASE("a one-request copy with a new type or metadata replaces them (REPLACE), keeping what is not given") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "copy-replace");
  floe::s3::put_params pp;
  pp.content_type = "text/plain";
  pp.metadata = {{"old", "1"}};
  std::string const data = "source";
  auto pf = c->async_put_object(b.name, "src", body_source::memory(data), pp, asio::use_future);
  REQUIRE_OK(finish(io, pf));
  auto& ctl = s3_target::get().control;
  int const replace = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name +
                                   R"(/", "headers_present": ["x-amz-copy-source", "x-amz-metadata-directive"]}, "action": {"type": "delay", "ms": 0}})");
  auto copy = [&](std::string const& key, floe::s3::copy_params cp) {
    cp.source_bucket = b.name;
    cp.source_key = "src";
    cp.bucket = b.name;
    cp.key = key;
    auto cf = c->async_copy_object(cp, asio::use_future);
    REQUIRE_OK(finish(io, cf));
    return head_of(io, *c, b.name, key);
  };
  auto h = copy("kept", {});
  CHECK(ctl.rule_counter(replace, "matched") == 0);
  CHECK(h.content_type == "text/plain");
  CHECK(h.metadata == meta{{"old", "1"}});
  floe::s3::copy_params nm;
  nm.metadata = meta{{"new", "2"}};
  h = copy("new-metadata", nm);
  CHECK(ctl.rule_counter(replace, "matched") == 1);
  CHECK(h.content_type == "text/plain");
  CHECK(h.metadata == meta{{"new", "2"}});
  floe::s3::copy_params cc;
  cc.write.cache_control = "max-age=60";
  h = copy("cache-control", cc);
  CHECK(h.content_type == "text/plain");
  CHECK(h.metadata == meta{{"old", "1"}});
  // Onto itself: allowed when something is replaced.
  floe::s3::copy_params self;
  self.content_type = "text/csv";
  h = copy("src", self);
  CHECK(h.content_type == "text/csv");
  CHECK(h.metadata == meta{{"old", "1"}});
}

TEST_CASE("a 200 reply with an <Error> body on CopyObject and on UploadPartCopy is an error") {
  proxy_scope px;
  asio::io_context io;
  auto cfg = multipart_copy_config();
  cfg.http.retry.max_attempts = 1;
  auto c = make_client(io, cfg);
  bucket_guard b(io, *c, "copyerr");
  REQUIRE_OK(put(io, *c, b.name, "small", "small source"));
  temp_dir dir;
  auto const src = dir.pattern_file("src", 6u << 20, 8);
  auto uf = c->async_upload_file(b.name, "large", src, asio::use_future);
  REQUIRE_OK(finish(io, uf, 120s));
  auto& ctl = s3_target::get().control;
  // Whitespace first, as S3 sends to keep a long copy's connection alive.
  std::string const error_body =
      "  \n   \n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>"
      "<RequestId>COPYREQ</RequestId><HostId>H</HostId></Error>";
  int const rule = ctl.add_rule(R"({"match": {"method": "PUT", "path": "^/)" + b.name +
                                R"(/dst", "headers_present": ["x-amz-copy-source"]}, "action": {"type": "reply", "when": "after", "status": 200, "headers": {"Content-Type": "application/xml"}, "body": )" +
                                json_str(error_body) + "}}");
  floe::s3::copy_params cp;
  cp.source_bucket = b.name;
  cp.source_key = "small";
  cp.bucket = b.name;
  cp.key = "dst-small";
  auto cf = c->async_copy_object(cp, asio::use_future);
  auto r = finish(io, cf);
  REQUIRE(!r.has_value());
  CHECK(r.error().code == errc::throttled);
  CHECK(r.error().diag.code == "SlowDown");
  CHECK(r.error().diag.operation == "CopyObject");
  CHECK(r.error().diag.request_id == "COPYREQ");

  cp.source_key = "large";
  cp.key = "dst-large";
  auto lf = c->async_copy_object(cp, asio::use_future);
  auto l = finish(io, lf, 120s);
  REQUIRE(!l.has_value());
  CHECK(l.error().diag.code == "SlowDown");
  CHECK(l.error().diag.operation == "UploadPartCopy");
  CHECK(ctl.rule_counter(rule, "fired") >= 2);
}

}  // namespace s3_copy_it
