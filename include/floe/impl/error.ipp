#pragma once
#include <floe/error.hpp>

namespace floe {

namespace detail {
class floe_category_impl final : public boost::system::error_category {
 public:
  char const* name() const noexcept override { return "floe"; }
  std::string message(int ev) const override {
    switch (static_cast<errc>(ev)) {
      case errc::ok: return "success";
      case errc::invalid_argument: return "invalid argument";
      case errc::malformed_reply: return "malformed reply";
      case errc::reply_too_large: return "reply too large";
      case errc::xml_doctype_refused: return "XML with a DOCTYPE refused";
      case errc::xml_too_deep: return "XML nested too deeply";
      case errc::precondition_failed: return "precondition failed";
      case errc::conflict: return "conflicting concurrent write";
      case errc::unknown_outcome: return "outcome unknown";
      case errc::unsupported: return "not supported by this store";
      case errc::stale_credentials: return "credentials stale";
      case errc::throttled: return "throttled";
      case errc::transient: return "transient server error";
      case errc::clock_skew: return "clock skew";
      case errc::not_found: return "not found";
      case errc::denied: return "access denied";
      case errc::service_error: return "service error";
      case errc::retry_quota_exhausted: return "retry quota exhausted";
      case errc::attempts_exhausted: return "attempts exhausted";
      case errc::timeout: return "timed out";
      case errc::credentials_unavailable: return "credentials unavailable";
      case errc::body_not_replayable: return "request body cannot be replayed";
      case errc::checksum_mismatch: return "checksum mismatch";
      case errc::invalid_receipt_handle: return "receipt handle invalid";
    }
    return "unknown floe error";
  }
};
}  // namespace detail

FLOE_DECL boost::system::error_category const& floe_category() noexcept {
  static detail::floe_category_impl const cat;
  return cat;
}

FLOE_DECL std::string diagnostics::to_string() const {
  std::string s;
  auto add = [&s](std::string_view sep, std::string_view v) {
    if (v.empty()) return;
    if (!s.empty()) s += sep;
    s += v;
  };
  add(" ", operation);
  add(" ", resource);
  if (http_status != 0) {
    if (!s.empty()) s += ": ";
    s += std::to_string(http_status);
  }
  add(" ", code);
  if (!message.empty()) {
    if (!s.empty()) s += ": ";
    s += message;
  }
  // The request id and the attempts made share one parenthesis:
  // "(request id tx1; after 3 attempts)". One attempt goes unsaid.
  bool const attempts = attempt > 1;
  if (!request_id.empty() || attempts) {
    s += s.empty() ? "(" : " (";
    if (!request_id.empty()) {
      s += "request id ";
      s += request_id;
      if (attempts) s += "; ";
    }
    if (attempts) {
      s += "after ";
      s += std::to_string(attempt);
      s += " attempts";
    }
    s += ")";
  }
  return s;
}

FLOE_DECL std::string error::what() const {
  std::string s = code.message();
  auto d = diag.to_string();
  if (!d.empty()) {
    s += ": ";
    s += d;
  }
  return s;
}

}  // namespace floe
