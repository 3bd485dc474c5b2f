#pragma once
#include <floe/sigv4/uri_encode.hpp>

namespace floe::sigv4 {

namespace detail {
constexpr bool kept(unsigned char c, bool encode_slash) noexcept {
  return is_unreserved(c) || (c == '/' && !encode_slash);
}
}  // namespace detail

FLOE_DECL std::size_t uri_encoded_size(std::string_view in, bool encode_slash) noexcept {
  std::size_t n = 0;
  for (char ch : in) n += detail::kept(static_cast<unsigned char>(ch), encode_slash) ? 1 : 3;
  return n;
}

FLOE_DECL char* uri_encode_to(char* out, std::string_view in, bool encode_slash) noexcept {
  constexpr char hex[] = "0123456789ABCDEF";
  for (char ch : in) {
    auto const c = static_cast<unsigned char>(ch);
    if (detail::kept(c, encode_slash)) {
      *out++ = ch;
    } else {
      *out++ = '%';
      *out++ = hex[c >> 4];
      *out++ = hex[c & 0x0f];
    }
  }
  return out;
}

FLOE_DECL void uri_encode_append(std::string& out, std::string_view in, bool encode_slash) {
  std::size_t const old = out.size();
  out.resize(old + uri_encoded_size(in, encode_slash));
  uri_encode_to(out.data() + old, in, encode_slash);
}

}  // namespace floe::sigv4
