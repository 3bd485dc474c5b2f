#pragma once
// s3::client's bootstrap: the addressing and the credentials provider a
// client is made with. The operations are in the files beside this one:
// driver.ipp (one request), objects.ipp, transfers.ipp, copy.ipp, list.ipp,
// buckets.ipp and presign.ipp.
#include <floe/s3/client.hpp>

#include <floe/credentials/chain.hpp>
#include <floe/credentials/shared_files.hpp>
#include <floe/s3/detail/exchange_pool.hpp>

#include <optional>

namespace floe::s3 {

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, client_config cfg) {
  auto env = cfg.env ? cfg.env : credentials::process_environment();
  // The profile feeds region, endpoint and addressing style; a broken or
  // missing profile that was named explicitly is an error here.
  auto where = credentials::locate_shared_files(cfg.shared_files, env);
  std::optional<credentials::profile> prof;
  {
    auto files = credentials::load_shared_config(where);
    if (!files) return files.error();
    prof = files->find_profile(where.profile);
    if (!prof && where.explicit_profile() && cfg.credentials == nullptr) {
      return error(errc::invalid_argument, files->explain_missing(where.profile));
    }
  }
  auto addr = resolve_addressing(cfg.addressing, env, prof ? &*prof : nullptr);
  if (!addr) return addr.error();
  // The default chain, in the SDKs' order (credentials/chain.hpp): keys in
  // the environment; web identity from the environment; the profile
  // (static keys, roles, credential_process); container credentials; IMDS.
  auto provider = cfg.credentials;
  if (!provider) {
    credentials::chain_config cc;
    cc.env = env;
    cc.shared_files = cfg.shared_files;
    cc.sts.endpoint.region = addr->region;
    cc.sts.env = env;
    cc.sts.http.tls = cfg.http.tls;
    cc.sts.http.proxy = cfg.http.proxy;
    cc.sts.http.resolve_overrides = cfg.http.resolve_overrides;
    cc.sts.http.observer = cfg.http.observer;  // a request log sees the credential fetches too
    auto chain = credentials::make_default_chain(ex, std::move(cc));
    if (!chain) return chain.error();
    provider = std::move(*chain);
  }
  return std::unique_ptr<client>(new client(std::move(ex), std::move(cfg), std::move(*addr), std::move(provider)));
}

FLOE_DECL client::client(executor_type ex, client_config cfg, addressing_config addr,
                         std::shared_ptr<credentials::provider> provider)
    : cfg_(std::move(cfg)),
      addressing_(std::move(addr)),
      provider_(std::move(provider)),
      http_(std::move(ex), cfg_.http),
      spare_exchanges_(std::make_shared<detail::exchange_pool>()) {}

FLOE_DECL client::~client() = default;

}  // namespace floe::s3
