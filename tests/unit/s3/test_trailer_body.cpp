// The aws-chunked trailer form's bodies and the store answers that refuse
// the form (s3/detail/trailer_body.hpp): a file region framed and hashed as
// it is read, started again from the file for every attempt; no sockets.
#include "aws_chunked_decoder.hpp"

#include <floe/checksum/hasher.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/restartable_body.hpp>
#include <floe/s3/detail/trailer_body.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_trailer_body_test {

using namespace floe::s3::detail;
using floe::checksum::algorithm;

namespace {

struct temp_file {
  std::string path;
  temp_file() {
    char name[] = "/tmp/floe-trailer-XXXXXX";
    int const fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
  }
  ~temp_file() { std::remove(path.c_str()); }
  void write(std::string const& bytes) const { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }
};

// One attempt: everything the body's reader gives, read in pieces of `piece`.
std::string read_attempt(floe::http::body_source const& b, std::size_t piece, boost::system::error_code& ec) {
  auto const* r = floe::http::restartable_of(b);
  REQUIRE(r != nullptr);
  auto read = r->start();
  std::string out;
  std::string buf(piece, '\0');
  for (;;) {
    auto const n = read(std::span<char>(buf.data(), buf.size()), ec);
    if (ec || n == 0) return out;
    out.append(buf, 0, n);
  }
}

std::string pattern(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7 + i / 251) & 0xFF);
  return s;
}

floe::error answer(unsigned status, std::string code, std::string message) {
  floe::error e(floe::errc::invalid_argument, message);
  e.diag.http_status = status;
  e.diag.code = std::move(code);
  e.diag.message = std::move(message);
  return e;
}

}  // namespace

TEST_CASE("a file region in the trailer form: each attempt reads the file again, frames it and sends its checksum") {
  temp_file f;
  auto const bytes = pattern(300000, 1);
  f.write(bytes);
  std::uint64_t const off = 1000, len = 200000;  // more than one chunk, not a multiple of it
  auto attempts = std::make_shared<trailer_attempts>();
  auto body = file_trailer_body(f.path, off, len, 64u << 10, algorithm::crc64nvme, attempts);
  CHECK(floe::http::can_replay(body));
  boost::system::error_code ec;
  auto const first = read_attempt(body, 4096, ec);
  REQUIRE_FALSE(ec);
  CHECK(first.size() == body.size());  // the declared length is the framed one
  auto d = floe::test::decode_aws_chunked(first);
  REQUIRE_MESSAGE(d.error.empty(), d.error);
  CHECK(d.payload == bytes.substr(off, len));
  auto const want = floe::checksum::hasher::of(algorithm::crc64nvme, bytes.substr(off, len)).base64();
  CHECK(d.trailers["x-amz-checksum-crc64nvme"] == want);
  REQUIRE(attempts->latest);
  CHECK(attempts->latest->enc->value().base64() == want);

  // The file changes: the next attempt sends its new bytes under their own
  // checksum (never the first attempt's), and `latest` is that attempt's.
  auto const changed = pattern(300000, 2);
  f.write(changed);
  auto const first_state = attempts->latest;
  auto const second = read_attempt(body, 65536, ec);
  REQUIRE_FALSE(ec);
  auto d2 = floe::test::decode_aws_chunked(second);
  REQUIRE_MESSAGE(d2.error.empty(), d2.error);
  CHECK(d2.payload == changed.substr(off, len));
  auto const want2 = floe::checksum::hasher::of(algorithm::crc64nvme, changed.substr(off, len)).base64();
  CHECK(d2.trailers["x-amz-checksum-crc64nvme"] == want2);
  CHECK(attempts->latest != first_state);
  CHECK(attempts->latest->enc->value().base64() == want2);
}

TEST_CASE("trailer form: the chunk size fills a body write with one framed chunk of whole pages") {
  CHECK(trailer_chunk_for(64u << 10) == 60u << 10);
  CHECK(framed_chunk_size(60u << 10) == 6 + (60u << 10) + 2);  // "f000\r\n", payload, "\r\n"
  CHECK(trailer_chunk_for(1u << 20) == 1020u << 10);
  CHECK(framed_chunk_size(1020u << 10) == 7 + (1020u << 10) + 2);
  CHECK(trailer_chunk_for(4096) == 8u << 10);  // S3's least chunk, even if it straddles writes
  CHECK(trailer_chunk_for(12u << 10) == 8u << 10);
  for (std::size_t w : {std::size_t{16} << 10, std::size_t{100000}, std::size_t{64} << 10, std::size_t{1} << 20,
                        std::size_t{8} << 20}) {
    auto const c = trailer_chunk_for(w);
    CAPTURE(w);
    CHECK(c % 4096 == 0);
    CHECK(framed_chunk_size(c) <= w);
    CHECK(framed_chunk_size(c + 4096) > w);
  }
}

TEST_CASE("trailer form: each body write is whole framed chunks, a chunk's payload pulled once") {
  // A body is written in pieces of client_config::io_chunk (64 KiB by
  // default, 1 MiB in the CLI); each piece holds whole framed chunks, so the
  // payload is pulled (a file read) once per chunk, at a page-aligned
  // offset, in whole pages; the final chunk and the trailer follow.
  for (std::size_t const write : {floe::http::client_config{}.io_chunk, std::size_t{1} << 20}) {
    CAPTURE(write);
    auto const chunk = trailer_chunk_for(write);
    std::uint64_t const len = 5 * chunk + 1000;
    auto const bytes = pattern(len, 4);
    std::vector<std::pair<std::uint64_t, std::size_t>> pulls;  // (offset, size)
    auto source = [&]() -> floe::http::body_source::read_fn {
      auto at = std::make_shared<std::uint64_t>(0);
      return [&, at](std::span<char> d, boost::system::error_code&) -> std::size_t {
        auto const n = std::min<std::uint64_t>(d.size(), len - *at);
        std::copy_n(bytes.data() + *at, n, d.data());
        pulls.emplace_back(*at, n);
        *at += n;
        return n;
      };
    };
    auto attempts = std::make_shared<trailer_attempts>();
    auto body = restartable_trailer_body(source, len, chunk, algorithm::crc64nvme, attempts);
    auto read = floe::http::restartable_of(body)->start();
    std::string buf(write, '\0'), all;
    std::vector<std::size_t> writes;
    boost::system::error_code ec;
    while (auto const n = read(std::span<char>(buf), ec)) {
      writes.push_back(n);
      all.append(buf, 0, n);
    }
    REQUIRE_FALSE(ec);
    CHECK(all.size() == body.size());
    REQUIRE(writes.size() == 6);
    for (int w = 0; w < 5; ++w) CHECK(writes[w] == framed_chunk_size(chunk));
    REQUIRE(pulls.size() == 6);
    for (std::size_t i = 0; i < 5; ++i) {
      CHECK(pulls[i].first == i * chunk);
      CHECK(pulls[i].second == chunk);
    }
    CHECK(pulls[5].second == 1000);
    auto d = floe::test::decode_aws_chunked(all);
    REQUIRE_MESSAGE(d.error.empty(), d.error);
    CHECK(d.payload == bytes);
    auto const want = floe::checksum::hasher::of(algorithm::crc64nvme, bytes).base64();
    CHECK(d.trailers["x-amz-checksum-crc64nvme"] == want);

    // A larger write holds as many whole framed chunks as fit.
    pulls.clear();
    read = floe::http::restartable_of(body)->start();
    std::string big(3 * framed_chunk_size(chunk) - 1, '\0');
    CHECK(read(std::span<char>(big), ec) == 2 * framed_chunk_size(chunk));
    CHECK(pulls.size() == 2);
  }
}

TEST_CASE("a file region in the trailer form: a file shorter than the region or missing is an error of the attempt") {
  temp_file f;
  f.write(pattern(5000, 3));
  auto attempts = std::make_shared<trailer_attempts>();
  boost::system::error_code ec;
  (void)read_attempt(file_trailer_body(f.path, 0, 9000, 8u << 10, algorithm::crc32, attempts), 4096, ec);
  CHECK(ec);
  ec = {};
  (void)read_attempt(file_trailer_body(f.path + ".missing", 0, 10, 8u << 10, algorithm::crc32, attempts), 4096, ec);
  CHECK(ec == boost::system::errc::no_such_file_or_directory);
}

TEST_CASE("the answers that refuse the trailer form, and those that do not") {
  // Swift 2.30 s3api: any aws-chunked upload.
  CHECK(refuses_trailer(answer(501, "NotImplemented",
                               "Transfering payloads in multiple chunks using aws-chunked is not supported.")));
  // Ceph RGW 16.2 checks STREAMING-UNSIGNED-PAYLOAD-TRAILER as a hash.
  CHECK(refuses_trailer(answer(400, "XAmzContentSHA256Mismatch", "")));
  // Scality (as reported against the SDKs' 2025 change).
  CHECK(refuses_trailer(answer(400, "InvalidRequest", "Trailing checksum is not supported")));
  CHECK(refuses_trailer(answer(400, "InvalidArgument", "x-amz-trailer is not supported")));
  // The body's own fault, or not about the form at all.
  CHECK_FALSE(refuses_trailer(answer(400, "BadDigest", "The CRC64NVME you specified did not match the calculated checksum.")));
  CHECK_FALSE(refuses_trailer(answer(403, "AccessDenied", "aws-chunked")));
  CHECK_FALSE(refuses_trailer(answer(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum")));
}

}  // namespace s3_trailer_body_test
