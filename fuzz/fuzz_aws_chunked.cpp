// Fuzz target: the aws-chunked encoder (sigv4/aws_chunked.hpp), its output
// checked against the tests' own decoder (tests/support/aws_chunked_decoder.hpp).
//
// Input: a flag byte (the algorithm: low 3 bits mod 5), two bytes of chunk
// size (1..65536), one byte of output buffer size (64..319), one byte of
// largest pull (1..256), then the payload.
//
// Invariants: the encoder writes exactly aws_chunked_length() bytes and
// ends done(); the decoder finds it well formed; the decoded payload is the
// input's; there is exactly one trailer, named header_name(alg), whose value
// is the payload's checksum; a pull is never asked for more than the output
// has room for.
#include "fuzz_support.hpp"

#include "../tests/support/aws_chunked_decoder.hpp"

#include <floe/checksum/hasher.hpp>
#include <floe/sigv4/aws_chunked.hpp>

#include <algorithm>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  using floe_fuzz::check;
  if (size < 5) return 0;
  auto const alg = floe::checksum::all_algorithms[(data[0] & 7) % 5];
  std::size_t const chunk = (static_cast<std::size_t>(data[1]) << 8 | data[2]) + 1;
  std::size_t const out_size = 64 + data[3];
  std::size_t const pull_max = 1 + static_cast<std::size_t>(data[4]);
  std::string_view const payload(reinterpret_cast<char const*>(data) + 5, size - 5);

  floe::sigv4::aws_chunked_encoder e(payload.size(), chunk, alg);
  std::string out;
  std::string buf(out_size, '\0');
  std::size_t pos = 0;
  for (int rounds = 0; rounds < 1000000; ++rounds) {
    auto const n = e.next(std::span<char>(buf.data(), buf.size()), [&](std::span<char> dst) {
      check(dst.size() <= out_size, "a pull larger than the output buffer");
      auto const take = std::min({dst.size(), pull_max, payload.size() - pos});
      std::copy_n(payload.data() + pos, take, dst.data());
      pos += take;
      return take;
    });
    if (n == 0) break;
    check(n <= out_size, "wrote past the output buffer");
    out.append(buf, 0, n);
  }
  check(e.done(), "the encoder did not finish");
  check(!e.short_source(), "the source was not short");
  check(out.size() == floe::sigv4::aws_chunked_length(payload.size(), chunk, alg), "length differs from aws_chunked_length");
  check(out.size() == e.encoded_length(), "length differs from encoded_length");
  auto const dec = floe::test::decode_aws_chunked(out);
  check(dec.error.empty(), "the decoder refused the encoding");
  check(dec.payload == payload, "the decoded payload differs");
  check(dec.trailers.size() == 1, "not exactly one trailer");
  auto const it = dec.trailers.find(std::string(floe::checksum::header_name(alg)));
  check(it != dec.trailers.end(), "the trailer is not the algorithm's header");
  check(it->second == floe::checksum::hasher::of(alg, payload).base64(), "the trailer's value is not the payload's checksum");
  return 0;
}
