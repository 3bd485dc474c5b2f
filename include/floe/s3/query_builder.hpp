#pragma once
// The query string of an S3 request, built by the SigV4 rules so that the
// wire query and the canonical query are the same list. Pure.

#include <floe/config.hpp>
#include <floe/sigv4/canonical.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace floe::s3 {

/// Builds a query string by the SigV4 rules: names and values encoded with
/// floe::sigv4::uri_encode ('/' too), parameters sorted by encoded name,
/// then value, so the wire query and the canonical query are the same list.
class query_builder {
 public:
  /// name=value.
  FLOE_DECL query_builder& add(std::string_view name, std::string_view value);
  /// A bare sub-resource such as "uploads" or "delete": sent as "name",
  /// signed as "name=".
  FLOE_DECL query_builder& add_flag(std::string_view name);

  bool empty() const noexcept { return params_.empty(); }
  /// The wire form, without '?': "delete&list-type=2&prefix=a%2Fb".
  FLOE_DECL std::string str() const;
  /// Appends '?' and the wire form to `target`; nothing when empty.
  FLOE_DECL void append_to(std::string& target) const;
  /// The canonical form: as str(), but flags as "name=".
  FLOE_DECL std::string canonical() const;
  /// Views of the encoded pairs for floe::sigv4 (valid while this lives and
  /// is not changed).
  FLOE_DECL std::vector<sigv4::query_param_view> params() const;

 private:
  struct param {
    std::string name, value;
    bool flag = false;
  };
  std::vector<param> params_;  // kept sorted
};

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/query_builder.ipp>
#endif
