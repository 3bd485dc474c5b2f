#pragma once
// s3::client's bootstrap: the addressing and the credentials provider a
// client is made with. The operations are in the files beside this one:
// driver.ipp (one request), objects.ipp, transfers.ipp, copy.ipp, list.ipp,
// buckets.ipp and presign.ipp.
#include <floe/s3/client.hpp>

#include <floe/providers/default_session.hpp>
#include <floe/s3/detail/exchange_pool.hpp>
#include <floe/s3/detail/upload_checksum.hpp>
#include <floe/s3/detail/verification.hpp>


namespace floe::s3 {

// A body the store refused by its checksum or payload hash (400 BadDigest,
// XAmzContentSHA256Mismatch) was not stored: corruption in transit, worth
// sending again (a replayable body goes out afresh, its checksum the same).
namespace detail {
inline bool s3_retryable_code(std::string_view code) {
  return code == "BadDigest" || code == "XAmzContentSHA256Mismatch";
}
}  // namespace detail

FLOE_DECL service::description client::service_description() noexcept {
  service::description d;
  d.retryable_code = &detail::s3_retryable_code;
  d.id = "s3";
  d.signing_name = "s3";
  d.proto = service::protocol::rest_xml;
  d.s3_signing = true;
  return d;
}

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, client_config cfg) {
  session_params sp;
  sp.env = cfg.env;
  sp.shared_files = cfg.shared_files;
  sp.region = cfg.addressing.region;
  sp.credentials = cfg.credentials;
  sp.http = cfg.http;
  // A proxy the caller set is used as given; none set: the session reads
  // the proxy variables through cfg.env, as a session made by hand does.
  auto const& px = cfg.http.proxy;
  sp.proxy_from_env = px.http_proxy.empty() && px.https_proxy.empty() && px.no_proxy.empty();
  auto s = make_session(ex, std::move(sp));
  if (!s) return s.error();
  return create(std::move(ex), **s, std::move(cfg));
}

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, session const& s, client_config cfg) {
  auto addr = resolve_addressing(cfg.addressing, s.endpoints(), s.region(), s.region_source(), s.env(), s.profile());
  if (!addr) return addr.error();
  auto validation = detail::resolve_checksum_validation(cfg.response_checksum_validation, s.env(), s.profile());
  if (!validation) return validation.error();
  cfg.response_checksum_validation = *validation;
  auto calculation = detail::resolve_checksum_calculation(cfg.request_checksum_calculation, s.env(), s.profile());
  if (!calculation) return calculation.error();
  cfg.request_checksum_calculation = *calculation;
  cfg.env = s.env();
  cfg.shared_files = s.shared_files_params();
  cfg.http = s.http();
  auto provider = s.credentials();
  if (!provider)
    provider = std::make_shared<credentials::static_provider>(
        error(errc::credentials_unavailable, "the session this client was made from has no credentials provider"));
  cfg.credentials = provider;
  std::unique_ptr<client> c(new client(std::move(ex), std::move(cfg), std::move(*addr), std::move(provider)));
  if (s.quirks()) c->quirks_ = s.quirks();
  return c;
}

FLOE_DECL client::client(executor_type ex, client_config cfg, addressing_config addr,
                         std::shared_ptr<credentials::provider> provider)
    : cfg_(std::move(cfg)),
      addressing_(std::move(addr)),
      provider_(std::move(provider)),
      http_(std::move(ex), cfg_.http),
      driver_(http_, service_description(), provider_, service::driver_config{cfg_.http.retry, cfg_.clock, {}, cfg_.hedge}),
      spare_exchanges_(std::make_shared<detail::exchange_pool>()) {}

FLOE_DECL client::~client() = default;

}  // namespace floe::s3
