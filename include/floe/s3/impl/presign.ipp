#pragma once
// Presigned URLs: signed in the query string with the credentials the
// provider holds now, nothing sent.
#include <floe/s3/client.hpp>

#include <floe/credentials/credentials.hpp>
#include <floe/s3/detail/operation.hpp>

#include <array>

namespace floe::s3 {

FLOE_DECL result<std::string> client::presign(std::string_view method, std::string_view bucket, std::string_view key,
                                              std::chrono::seconds expires, std::string* warning) {
  if (method != "GET" && method != "PUT" && method != "HEAD" && method != "DELETE")
    return detail::invalid("Presign", std::string(bucket) + "/" + std::string(key),
                           "presign supports GET, PUT, HEAD and DELETE, not " + std::string(method));
  auto region = regions_.lookup(bucket);
  auto tgt = resolve_target(addressing_, bucket, key, region.value_or(std::string{}));
  if (!tgt) return tgt.error();
  auto got = provider_->get();
  if (!got) return got.error();
  auto const t = now();
  if (warning && got->expiry) {
    auto const until = std::chrono::time_point_cast<std::chrono::seconds>(t) + expires;
    if (until > *got->expiry) {
      *warning = "the URL outlives the temporary credentials that sign it (they expire at " +
                 credentials::format_iso8601(*got->expiry) + "); it stops working then";
    }
  }
  std::array<sigv4::header_view, 1> headers{{{"host", tgt->host_header}}};
  sigv4::request_view v;
  v.method = method;
  v.path = tgt->path;
  v.headers = headers;
  v.payload_hash = sigv4::unsigned_payload;
  sigv4::credentials_view cv{got->access_key_id, got->secret_access_key.reveal(), got->session_token.reveal()};
  sigv4::presigned_query q;
  auto params = sigv4::signing_params::s3(tgt->region);
  auto r = signer_.presign(v, cv, params, t, expires, q);
  if (!r) return r.error();
  return tgt->url(q.query);
}

}  // namespace floe::s3
