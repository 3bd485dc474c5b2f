#pragma once
#include <floe/s3/detail/verification.hpp>

#include <floe/checksum/combine.hpp>

#include <floe/credentials/credentials.hpp>

#include <algorithm>
#include <cctype>

namespace floe::s3::detail {

namespace verify_impl {

inline bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// A plain MD5 ETag: 32 hex digits, quotes removed, in lower case; else "".
inline std::string plain_md5(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  if (etag.size() != 32) return {};
  std::string out(etag);
  for (auto& c : out) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

inline constexpr char hex_digits[] = "0123456789abcdef";

}  // namespace verify_impl

FLOE_DECL expected_digest expected_of(http::fields const& headers, bool whole) {
  expected_digest e;
  if (!whole) return e;
  auto const type = headers.get("x-amz-checksum-type");
  bool const full_object = type.empty() || verify_impl::iequals(type, "FULL_OBJECT");
  bool named_checksum = false;
  for (auto a : checksum::all_algorithms) {
    auto const v = headers.get(checksum::header_name(a));
    if (v.empty()) continue;
    named_checksum = true;
    if (!full_object || checksum::split_composite(v)) continue;  // of the parts, not of the bytes
    // A value that is no digest of its algorithm cannot be checked (moto
    // without the AWS CRT stores a CRC32 under CRC64NVME for a multipart
    // upload).
    if (!checksum::parse_digest(a, v)) continue;
    e.what = expected_digest::kind::checksum;
    e.alg = a;
    e.value = std::string(v);
    return e;
  }
  // A store that gave a checksum it cannot be checked with (composite) has
  // said how the object was put together: its ETag is no MD5 of the bytes.
  if (named_checksum) return e;
  if (headers.get("x-amz-server-side-encryption").starts_with("aws:kms")) return e;
  if (headers.contains("x-amz-server-side-encryption-customer-algorithm")) return e;
  auto md5 = verify_impl::plain_md5(headers.get("ETag"));
  if (md5.empty()) return e;
  e.what = expected_digest::kind::md5;
  e.value = std::move(md5);
  return e;
}

// MD5_Init/Update/Final are deprecated in OpenSSL 3.0 but allocate nothing
// (as checksum/hasher.ipp's SHA1_*); the suppression covers these calls only.
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

FLOE_DECL void body_verifier::start(expected_digest e) noexcept {
  reset();
  started_ = true;
  e_ = std::move(e);
  if (e_.what == expected_digest::kind::checksum) h_ = checksum::hasher(e_.alg);
}

FLOE_DECL void body_verifier::reset() noexcept {
  started_ = false;
  size_ = 0;
  e_ = {};
  h_.reset();
  MD5_Init(&md5_);
}

FLOE_DECL void body_verifier::update(std::string_view piece) noexcept {
  size_ += piece.size();
  switch (e_.what) {
    case expected_digest::kind::checksum: h_.update(piece); break;
    case expected_digest::kind::md5:
      if (!piece.empty()) MD5_Update(&md5_, piece.data(), piece.size());
      break;
    case expected_digest::kind::none: break;
  }
}

FLOE_DECL std::string body_verifier::mismatch() const {
  std::string computed;
  std::string name;
  if (e_.what == expected_digest::kind::checksum) {
    computed = h_.value().base64();
    name = std::string(checksum::s3_name(e_.alg)) + " (" + std::string(checksum::header_name(e_.alg)) + ")";
  } else if (e_.what == expected_digest::kind::md5) {
    MD5_CTX copy = md5_;
    unsigned char md[MD5_DIGEST_LENGTH];
    MD5_Final(md, &copy);
    for (unsigned char b : md) {
      computed += verify_impl::hex_digits[b >> 4];
      computed += verify_impl::hex_digits[b & 15];
    }
    name = "MD5 (the ETag of a single-part object)";
  } else {
    return {};
  }
  if (computed == e_.value) return {};
  return "checksum mismatch: " + name + " expected " + e_.value + ", computed " + computed + " over the " +
         std::to_string(size_) + " bytes received";
}

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

FLOE_DECL std::string memory_body_mismatch(http::response const& res, bool asked_whole) {
  body_verifier v;
  v.start(expected_of(res.headers, asked_whole && res.status == 200));
  if (!v.checking()) return {};
  v.update(res.body);
  return v.mismatch();
}

FLOE_DECL std::optional<checksum_validation> parse_checksum_validation(std::string_view v) noexcept {
  if (verify_impl::iequals(v, "when_supported")) return checksum_validation::when_supported;
  if (verify_impl::iequals(v, "when_required")) return checksum_validation::when_required;
  return std::nullopt;
}

FLOE_DECL result<checksum_validation> resolve_checksum_validation(std::optional<checksum_validation> caller,
                                                                 env_lookup const& env,
                                                                 credentials::profile const* prof) {
  if (caller) return *caller;
  std::string value;
  std::string where;
  if (auto v = env ? non_empty(env, "AWS_RESPONSE_CHECKSUM_VALIDATION") : std::nullopt) {
    value = std::move(*v);
    where = "AWS_RESPONSE_CHECKSUM_VALIDATION";
  } else if (auto const* s = prof ? prof->find("response_checksum_validation") : nullptr) {
    value = s->entry.value;
    where = "response_checksum_validation at " + s->where();
  } else {
    return checksum_validation::when_supported;
  }
  if (auto parsed = parse_checksum_validation(value)) return *parsed;
  return error(errc::invalid_argument, where + " is \"" + credentials::detail::printable(value) +
                                           "\": it takes when_supported or when_required");
}

}  // namespace floe::s3::detail
