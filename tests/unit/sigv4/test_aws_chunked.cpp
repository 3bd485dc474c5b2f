// The aws-chunked encoder (STREAMING-UNSIGNED-PAYLOAD-TRAILER): its output,
// pulled through buffers of every size, decodes (with the tests' own
// decoder, tests/support/aws_chunked_decoder.hpp) to the payload with the
// payload's checksum in the trailer, and its length is aws_chunked_length.
#include <doctest/doctest.h>

#include <floe/sigv4/aws_chunked.hpp>

#include "aws_chunked_decoder.hpp"

#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace sigv4_aws_chunked_test {

using floe::checksum::algorithm;
using floe::sigv4::aws_chunked_encoder;

namespace {

std::string payload(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + 7) & 0xFF);
  return s;
}

// Encodes `data` with `out_size`-byte output buffers and pulls of at most
// `pull_max` bytes.
std::string encode(std::string const& data, std::size_t chunk, algorithm a, std::size_t out_size, std::size_t pull_max) {
  aws_chunked_encoder e(data.size(), chunk, a);
  std::string out;
  std::string buf(out_size, '\0');
  std::size_t pos = 0;
  for (;;) {
    auto n = e.next(std::span<char>(buf.data(), buf.size()), [&](std::span<char> dst) {
      auto const take = std::min({dst.size(), pull_max, data.size() - pos});
      data.copy(dst.data(), take, pos);
      pos += take;
      return take;
    });
    if (n == 0) break;
    out.append(buf, 0, n);
  }
  CHECK(e.done());
  CHECK(out.size() == e.encoded_length());
  return out;
}

}  // namespace

TEST_CASE("aws-chunked: the exact framing of a small payload") {
  auto const out = encode("hello world", 4, algorithm::crc32c, 64, 100);
  CHECK(out == "4\r\nhell\r\n4\r\no wo\r\n3\r\nrld\r\n0\r\nx-amz-checksum-crc32c:yZRlqg==\r\n\r\n");
  CHECK(floe::sigv4::aws_chunked_length(11, 4, algorithm::crc32c) == out.size());
  // An empty payload: the last chunk and the trailer only.
  auto const empty = encode("", 8192, algorithm::crc32, 64, 1);
  CHECK(empty == "0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n");
}

TEST_CASE("aws-chunked: every algorithm, chunk size and buffer size decodes to the payload and its checksum") {
  for (auto a : floe::checksum::all_algorithms) {
    for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 8191u, 8192u, 70000u}) {
      for (std::size_t chunk : {1u, 16u, 8192u, 65536u}) {
        if (chunk == 1 && n > 20000) continue;
        for (std::size_t out_size : {64u, 100u, 4096u}) {
          CAPTURE(n);
          CAPTURE(chunk);
          CAPTURE(out_size);
          auto const data = payload(n);
          auto const enc = encode(data, chunk, a, out_size, 3000);
          CHECK(enc.size() == floe::sigv4::aws_chunked_length(n, chunk, a));
          auto const dec = floe::test::decode_aws_chunked(enc);
          REQUIRE(dec.error.empty());
          CHECK(dec.payload == data);
          REQUIRE(dec.trailers.size() == 1);
          auto const name = std::string(floe::checksum::header_name(a));
          CHECK(dec.trailers.at(name) == floe::checksum::hasher::of(a, data).base64());
        }
      }
    }
  }
}

TEST_CASE("aws-chunked: a source that ends early stops the encoder") {
  aws_chunked_encoder e(100, 64, algorithm::crc64nvme);
  std::string buf(256, '\0');
  int pulls = 0;
  auto n = e.next(std::span<char>(buf.data(), buf.size()), [&](std::span<char> dst) -> std::size_t {
    if (pulls++ > 0) return 0;
    return std::min<std::size_t>(dst.size(), 10);
  });
  CHECK(n == 0);
  CHECK(e.short_source());
  CHECK_FALSE(e.done());
}

}  // namespace sigv4_aws_chunked_test
