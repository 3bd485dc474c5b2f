#pragma once
#include <floe/sqs/message_body.hpp>

#include <openssl/evp.h>

#include <cstdint>
#include <cstdio>

namespace floe::sqs {

namespace detail {

inline std::string hex_code_point(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

inline bool sqs_allows(std::uint32_t cp) noexcept {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
         (cp >= 0x10000 && cp <= 0x10FFFF);
}

}  // namespace detail

FLOE_DECL result<void> check_message_body(std::string_view body, std::size_t max_bytes, std::string_view what) {
  std::string const name(what);
  if (body.empty()) return error(errc::invalid_argument, name + " is empty (SQS needs at least one character)");
  std::size_t const limit = max_bytes == 0 || max_bytes > service_max_message_bytes ? service_max_message_bytes : max_bytes;
  if (body.size() > limit) {
    return error(errc::invalid_argument, name + " is " + std::to_string(body.size()) + " bytes, more than the limit of " +
                                             std::to_string(limit) + " bytes");
  }
  auto const* const s = reinterpret_cast<unsigned char const*>(body.data());
  std::size_t const n = body.size();
  std::size_t i = 0;
  while (i < n) {
    unsigned const c = s[i];
    std::uint32_t cp = 0;
    std::size_t len = 1;
    if (c < 0x80) {
      cp = c;
    } else {
      if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
      } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
      } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
      } else {
        return error(errc::invalid_argument, name + " is not valid UTF-8 (byte " + std::to_string(i) + ")");
      }
      if (n - i < len) return error(errc::invalid_argument, name + " is not valid UTF-8 (truncated at byte " + std::to_string(i) + ")");
      for (std::size_t k = 1; k < len; ++k) {
        unsigned const cc = s[i + k];
        if ((cc & 0xC0) != 0x80)
          return error(errc::invalid_argument, name + " is not valid UTF-8 (byte " + std::to_string(i + k) + ")");
        cp = (cp << 6) | (cc & 0x3F);
      }
      bool const overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
      if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return error(errc::invalid_argument, name + " is not valid UTF-8 (byte " + std::to_string(i) + ")");
    }
    if (!detail::sqs_allows(cp)) {
      return error(errc::invalid_argument, name + " holds " + detail::hex_code_point(cp) + " at byte " + std::to_string(i) +
                                               ", a character SQS does not allow (allowed: tab, newline, carriage "
                                               "return, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF)");
    }
    i += len;
  }
  return {};
}

FLOE_DECL std::string md5_hex(std::string_view bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  std::string out;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_md5(), nullptr) != 1) return out;
  out.reserve(2 * len);
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 0xF];
  }
  return out;
}

FLOE_DECL bool md5_matches(std::string_view reported, std::string_view body) {
  auto const mine = md5_hex(body);
  if (mine.empty() || reported.size() != mine.size()) return false;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    char c = reported[i];
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    if (c != mine[i]) return false;
  }
  return true;
}

}  // namespace floe::sqs
