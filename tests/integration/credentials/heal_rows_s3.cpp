// The heal matrix's S3 rows: every request shape of floe::s3::client.
#include "heal_matrix.hpp"

#include <fstream>
#include <iterator>

namespace floe::test::heal {
namespace {

using floe::http::body_source;

std::string const small = "the bytes of a small object, healed";

// A little over one 5 MiB part: two parts at the matrix's part size.
std::string two_parts() {
  std::string s((5u << 20) + 1000, '\0');
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 4093) % 26);
  return s;
}

std::string read_file(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void make_bucket(ctx& c, std::string const& bucket) {
  auto made = c.w.run([&]() -> asio::awaitable<floe::result<void>> {
    co_return co_await c.w.s3->async_create_bucket(bucket, asio::use_awaitable);
  });
  REQUIRE_MESSAGE(made.has_value(), (made ? std::string() : made.error().what()));
}

void put(ctx& c, std::string const& key, std::string const& bytes) {
  auto done = c.w.run([&]() -> asio::awaitable<floe::result<void>> {
    auto body = body_source::memory(bytes);
    auto p = co_await c.w.s3->async_put_object(c.bucket, key, body, asio::use_awaitable);
    if (!p) co_return p.error();
    co_return floe::result<void>();
  });
  REQUIRE_MESSAGE(done.has_value(), (done ? std::string() : done.error().what()));
}

// The bucket, and `key` holding `bytes`.
std::function<void(ctx&)> holding(std::string key, std::string bytes) {
  return [key = std::move(key), bytes = std::move(bytes)](ctx& c) {
    make_bucket(c, c.bucket);
    if (!key.empty()) put(c, key, bytes);
  };
}

// Whether `key` now holds `want`: "" or what differs.
asio::awaitable<std::string> holds(ctx& c, std::string key, std::string want) {
  auto g = co_await c.w.s3->async_get_object(c.bucket, key, asio::use_awaitable);
  if (!g) co_return "reading " + key + " back: " + g.error().what();
  if (g->body != want)
    co_return key + " holds " + std::to_string(g->body.size()) + " bytes, not the " + std::to_string(want.size()) +
        " written";
  co_return "";
}

std::string const large = two_parts();

// The multipart rows' operation: `large` from a file, in two parts, read back whole.
asio::awaitable<std::string> upload_in_two_parts(ctx& c) {
  std::string const path = c.dir + "/large";
  write_file(path, large);
  auto p = co_await c.w.s3->async_upload_file(c.bucket, "mp", path, asio::use_awaitable);
  if (!p) co_return verdict(p);
  if (p->parts != 2) co_return "went in " + std::to_string(p->parts) + " parts, not 2";
  co_return co_await holds(c, "mp", large);
}

}  // namespace

std::vector<row> s3_rows() {
  std::vector<row> rows;
  rows.push_back({.name = "GetObject into memory", .api = "async_get_object", .operation = "GetObject",
                  .redirect = true, .target = R"({"method": "GET", "path": "^/{B}/g$"})", .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto g = co_await c.w.s3->async_get_object(c.bucket, "g", asio::use_awaitable);
                    if (!g) co_return verdict(g);
                    co_return g->body == small ? "" : "wrong body";
                  }});
  rows.push_back({.name = "GetObject into a file", .api = "async_download", .operation = "GetObject",
                  .redirect = true, .target = R"({"method": "GET", "path": "^/{B}/g$"})", .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    std::string const path = c.dir + "/download";
                    auto g = co_await c.w.s3->async_download(c.bucket, "g", path, asio::use_awaitable);
                    if (!g) co_return verdict(g);
                    co_return read_file(path) == small ? "" : "wrong file";
                  }});
  rows.push_back({.name = "GetObject into a function", .api = "async_get_object_to", .operation = "GetObject",
                  .redirect = true, .target = R"({"method": "GET", "path": "^/{B}/g$"})", .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    std::string got;
                    floe::http::body_sink::write_fn write = [&got](std::string_view piece,
                                                                   boost::system::error_code&) { got += piece; };
                    auto g = co_await c.w.s3->async_get_object_to(c.bucket, "g", write, asio::use_awaitable);
                    if (!g) co_return verdict(g);
                    co_return got == small ? "" : "wrong bytes handed over";
                  }});
  // The first GET breaks after 64 KiB (the sink took them); the keys are
  // revoked as the resumed GET (a Range) arrives, and it is the one refused.
  rows.push_back({.name = "a resumed GetObject", .api = "async_download", .operation = "GetObject",
                  .redirect = true, .target = R"({"method": "GET", "path": "^/{B}/big$", "headers_present": ["Range"]})",
                  .setup =
                      [](ctx& c) {
                        holding("big", large)(c);
                        c.w.srv.control.add_rule(R"({"match": {"method": "GET", "path": "^/)" + c.bucket +
                                                 R"(/big$"}, "trigger": {"nth": [1]}, "action": {"type": "cut", "when": "mid_body", "after_bytes": 65536}})");
                      },
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    std::string const path = c.dir + "/resumed";
                    auto g = co_await c.w.s3->async_download(c.bucket, "big", path, asio::use_awaitable);
                    if (!g) co_return verdict(g);
                    if (g->resumes != 1) co_return "resumed " + std::to_string(g->resumes) + " times, not once";
                    co_return read_file(path) == large ? "" : "wrong file";
                  }});
  rows.push_back({.name = "HeadObject", .api = "async_head_object", .operation = "HeadObject",
                  .redirect = true, .target = R"({"method": "HEAD", "path": "^/{B}/g$"})", .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto h = co_await c.w.s3->async_head_object(c.bucket, "g", asio::use_awaitable);
                    if (!h) co_return verdict(h);
                    co_return h->info.size == small.size() ? "" : "wrong size";
                  }});
  rows.push_back({.name = "PutObject from memory", .api = "async_put_object", .operation = "PutObject",
                  .redirect = true, .target = R"({"method": "PUT", "path": "^/{B}/p$"})", .setup = holding("", ""),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto body = body_source::memory(small);
                    auto p = co_await c.w.s3->async_put_object(c.bucket, "p", body, asio::use_awaitable);
                    if (!p) co_return verdict(p);
                    co_return co_await holds(c, "p", small);
                  }});
  rows.push_back({.name = "conditional PutObject (If-None-Match)", .api = "async_put_object", .operation = "PutObject",
                  .redirect = true, .target = R"({"method": "PUT", "path": "^/{B}/p$"})", .setup = holding("", ""),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto body = body_source::memory(small);
                    floe::s3::put_params create_only;
                    create_only.if_none_match = "*";
                    auto p = co_await c.w.s3->async_put_object(c.bucket, "p", body, create_only, asio::use_awaitable);
                    if (!p) co_return verdict(p);
                    co_return co_await holds(c, "p", small);
                  }});
  rows.push_back({.name = "PutObject from a file", .api = "async_upload_file", .operation = "PutObject",
                  .redirect = true, .target = R"({"method": "PUT", "path": "^/{B}/p$"})", .setup = holding("", ""),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    std::string const path = c.dir + "/small";
                    write_file(path, small);
                    auto p = co_await c.w.s3->async_upload_file(c.bucket, "p", path, asio::use_awaitable);
                    if (!p) co_return verdict(p);
                    co_return co_await holds(c, "p", small);
                  }});
  // A stream is read once: sent with Expect: 100-continue, refused before
  // a byte of it was read, so it may be sent again.
  rows.push_back({.name = "PutObject from a stream", .api = "async_put_object", .operation = "PutObject",
                  .redirect = true, .target = R"({"method": "PUT", "path": "^/{B}/p$"})", .setup = holding("", ""),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    std::size_t at = 0;
                    auto body = body_source::stream(
                        [&at](std::span<char> dst, boost::system::error_code&) {
                          auto const n = std::min(dst.size(), small.size() - at);
                          small.copy(dst.data(), n, at);
                          at += n;
                          return n;
                        },
                        small.size());
                    auto p = co_await c.w.s3->async_put_object(c.bucket, "p", body, asio::use_awaitable);
                    if (!p) co_return verdict(p);
                    co_return co_await holds(c, "p", small);
                  }});
  rows.push_back({.name = "UploadPart", .api = "async_upload_file", .operation = "UploadPart",
                  .redirect = true, .target = R"({"method": "PUT", "path": "^/{B}/mp$", "query": "partNumber="})",
                  .setup = holding("", ""),
                  .run = upload_in_two_parts});
  rows.push_back({.name = "CompleteMultipartUpload", .api = "async_upload_file",
                  .operation = "CompleteMultipartUpload",
                  .redirect = true, .target = R"({"method": "POST", "path": "^/{B}/mp$", "query": "uploadId="})",
                  .setup = holding("", ""),
                  .run = upload_in_two_parts});
  rows.push_back({.name = "CopyObject", .api = "async_copy_object", .operation = "CopyObject",
                  .redirect = true, .target = R"({"method": "PUT", "path": "^/{B}/copy$"})", .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    floe::s3::copy_params p;
                    p.source_bucket = p.bucket = c.bucket;
                    p.source_key = "g";
                    p.key = "copy";
                    auto r = co_await c.w.s3->async_copy_object(p, asio::use_awaitable);
                    if (!r) co_return verdict(r);
                    co_return co_await holds(c, "copy", small);
                  }});
  rows.push_back({.name = "UploadPartCopy", .api = "async_copy_object", .operation = "UploadPartCopy",
                  .redirect = true, .target = R"({"method": "PUT", "path": "^/{B}/copy$", "query": "partNumber="})",
                  .setup = holding("big", large),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    floe::s3::copy_params p;
                    p.source_bucket = p.bucket = c.bucket;
                    p.source_key = "big";
                    p.key = "copy";
                    auto r = co_await c.w.s3->async_copy_object(p, asio::use_awaitable);
                    if (!r) co_return verdict(r);
                    co_return co_await holds(c, "copy", large);
                  }});
  rows.push_back({.name = "ListObjectsV2", .api = "async_list_objects", .operation = "ListObjectsV2",
                  .redirect = true, .target = R"({"method": "GET", "path": "^/{B}/?$", "query": "list-type=2"})",
                  .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto l = co_await c.w.s3->async_list_objects(c.bucket, asio::use_awaitable);
                    if (!l) co_return verdict(l);
                    co_return l->objects.size() == 1 && l->objects[0].key == "g" ? "" : "wrong listing";
                  }});
  rows.push_back({.name = "DeleteObjects", .api = "async_delete_objects", .operation = "DeleteObjects",
                  .redirect = true, .target = R"({"method": "POST", "path": "^/{B}/?$", "query": "delete"})",
                  .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    std::vector<std::string> keys{"g"};
                    auto d = co_await c.w.s3->async_delete_objects(c.bucket, keys, asio::use_awaitable);
                    if (!d) co_return verdict(d);
                    co_return d->complete() && d->deleted.size() == 1 ? "" : "not deleted";
                  }});
  rows.push_back({.name = "DeleteObject", .api = "async_delete_object", .operation = "DeleteObject",
                  .redirect = true, .target = R"({"method": "DELETE", "path": "^/{B}/g$"})", .setup = holding("g", small),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto d = co_await c.w.s3->async_delete_object(c.bucket, "g", asio::use_awaitable);
                    if (!d) co_return verdict(d);
                    auto h = co_await c.w.s3->async_head_object(c.bucket, "g", asio::use_awaitable);
                    co_return !h && h.error().code == floe::errc::not_found ? "" : "still there";
                  }});
  // Service-level and bucket creation: S3 sends no region redirect to them.
  rows.push_back({.name = "ListBuckets", .api = "async_list_buckets", .operation = "ListBuckets",
                  .target = R"({"method": "GET", "path": "^/$"})", .setup = holding("", ""),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto l = co_await c.w.s3->async_list_buckets(asio::use_awaitable);
                    if (!l) co_return verdict(l);
                    for (auto const& b : l->buckets)
                      if (b.name == c.bucket) co_return "";
                    co_return "the bucket is not listed";
                  }});
  rows.push_back({.name = "CreateBucket", .api = "async_create_bucket", .operation = "CreateBucket",
                  .target = R"({"method": "PUT", "path": "^/{B}/?$"})",
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto m = co_await c.w.s3->async_create_bucket(c.bucket, asio::use_awaitable);
                    if (!m) co_return verdict(m);
                    auto l = co_await c.w.s3->async_list_objects(c.bucket, asio::use_awaitable);
                    co_return verdict(l);
                  }});
  rows.push_back({.name = "DeleteBucket", .api = "async_delete_bucket", .operation = "DeleteBucket",
                  .redirect = true, .target = R"({"method": "DELETE", "path": "^/{B}/?$"})", .setup = holding("", ""),
                  .run = [](ctx& c) -> asio::awaitable<std::string> {
                    auto d = co_await c.w.s3->async_delete_bucket(c.bucket, asio::use_awaitable);
                    co_return verdict(d);
                  }});
  return rows;
}

}  // namespace floe::test::heal
