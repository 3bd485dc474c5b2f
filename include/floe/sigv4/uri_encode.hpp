#pragma once
// Percent-encoding by the AWS SigV4 rules, used by every floe component that
// puts a key, a path or a query parameter on the wire.
//
// Unreserved characters (A-Z a-z 0-9 - _ . ~) are kept; every other byte,
// including each byte of a UTF-8 sequence, becomes %XX with upper-case hex.
// '/' is kept when encode_slash is false (object keys in a path) and becomes
// %2F when it is true (query names and values, other path segments).
// Input is treated as bytes: no decoding, no validation of UTF-8.

#include <floe/config.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace floe::sigv4 {

/// True for A-Z a-z 0-9 - _ . ~
constexpr bool is_unreserved(unsigned char c) noexcept {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

/// Size of uri_encode(in, encode_slash) without producing it.
FLOE_DECL std::size_t uri_encoded_size(std::string_view in, bool encode_slash) noexcept;

/// Writes the encoding of `in` to `out`, which must have room for
/// uri_encoded_size(in, encode_slash) chars; returns one past the last written.
FLOE_DECL char* uri_encode_to(char* out, std::string_view in, bool encode_slash) noexcept;

/// Appends the encoding of `in` to `out`. Grows `out` at most once, and not at
/// all when its capacity already suffices (the warm path of the signer).
FLOE_DECL void uri_encode_append(std::string& out, std::string_view in, bool encode_slash);

/// The encoding of `in` as a new string.
inline std::string uri_encode(std::string_view in, bool encode_slash) {
  std::string s;
  uri_encode_append(s, in, encode_slash);
  return s;
}

}  // namespace floe::sigv4

#if defined(FLOE_HEADER_ONLY)
#include <floe/sigv4/impl/uri_encode.ipp>
#endif
