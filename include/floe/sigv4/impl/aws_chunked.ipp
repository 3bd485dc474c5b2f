#pragma once
#include <floe/sigv4/aws_chunked.hpp>

#include <algorithm>
#include <cstring>

namespace floe::sigv4 {

namespace aws_chunked_impl {

inline std::size_t hex_digits(std::uint64_t n) noexcept {
  std::size_t d = 1;
  while (n >>= 4) ++d;
  return d;
}

// The trailer line's length: "x-amz-checksum-<alg>:<base64>\r\n".
inline std::size_t trailer_line(checksum::algorithm a) noexcept {
  return checksum::header_name(a).size() + 1 + 4 * ((checksum::digest_size(a) + 2) / 3) + 2;
}

}  // namespace aws_chunked_impl

FLOE_DECL std::uint64_t aws_chunked_length(std::uint64_t payload, std::size_t chunk, checksum::algorithm a) noexcept {
  using namespace aws_chunked_impl;
  std::uint64_t const full = payload / chunk;
  std::uint64_t const rest = payload % chunk;
  std::uint64_t n = full * (hex_digits(chunk) + 4 + chunk);
  if (rest > 0) n += hex_digits(rest) + 4 + rest;
  return n + 3 + trailer_line(a) + 2;
}

FLOE_DECL aws_chunked_encoder::aws_chunked_encoder(std::uint64_t payload, std::size_t chunk,
                                                   checksum::algorithm a) noexcept
    : left_(payload), chunk_(std::max<std::size_t>(chunk, 1)), total_(aws_chunked_length(payload, chunk_, a)), h_(a) {}

FLOE_DECL std::size_t aws_chunked_encoder::drain(std::span<char> out, std::size_t at) noexcept {
  auto const n = std::min(out.size() - at, pending_size_ - pending_at_);
  std::memcpy(out.data() + at, pending_.data() + pending_at_, n);
  pending_at_ += n;
  return at + n;
}

FLOE_DECL void aws_chunked_encoder::frame() noexcept {
  static constexpr char hex[] = "0123456789abcdef";
  pending_at_ = 0;
  pending_size_ = 0;
  auto put = [this](std::string_view s) {
    std::memcpy(pending_.data() + pending_size_, s.data(), s.size());
    pending_size_ += s.size();
  };
  switch (state_) {
    case state::header: {
      if (left_ == 0) {
        state_ = state::last;
        frame();
        return;
      }
      in_chunk_ = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_, left_));
      auto const digits = aws_chunked_impl::hex_digits(in_chunk_);
      for (std::size_t i = 0; i < digits; ++i) pending_[i] = hex[(in_chunk_ >> (4 * (digits - 1 - i))) & 0xF];
      pending_size_ = digits;
      put("\r\n");
      state_ = state::data;
      return;
    }
    case state::data_end:
      put("\r\n");
      state_ = state::header;
      return;
    case state::last: {
      put("0\r\n");
      put(checksum::header_name(h_.alg()));
      put(":");
      auto const b64 = h_.value().base64();
      put(b64);
      put("\r\n\r\n");
      state_ = state::done;
      return;
    }
    case state::data:
    case state::done:
      return;
  }
}

}  // namespace floe::sigv4
