#pragma once
#include <floe/providers/default_session.hpp>

#include <floe/providers/chain.hpp>

namespace floe {

FLOE_DECL result<std::shared_ptr<session>> make_session(boost::asio::any_io_executor ex, session_params p) {
  if (p.credentials) return session::create(std::move(p));
  // The session first (the environment, the profile, the region), then the
  // chain from what it read, then the session that holds the chain.
  auto bare = session::create(p);
  if (!bare) return bare.error();
  session const& s = **bare;
  credentials::chain_config cc;
  cc.env = s.env();
  cc.shared_files = s.shared_files_params();
  // The chain's STS clients (web identity, roles) find their endpoint as
  // an STS client made from the session does: its resolver (the profile's
  // services section and endpoint_url included) and its region.
  cc.sts.shared = sts::shared_endpoints{s.endpoints(), s.region(), s.region_source()};
  cc.sts.env = s.env();
  cc.sts.http.tls = s.http().tls;
  cc.sts.http.proxy = s.http().proxy;
  cc.sts.http.resolve_overrides = s.http().resolve_overrides;
  cc.sts.http.observer = s.http().observer;  // a request log sees the credential fetches too
  // The SSO portal the same way: the session's resolver (service id `sso`)
  // and its TLS, proxy, resolve overrides and observer.
  cc.endpoints = s.endpoints();
  cc.http = s.http();
  cc.proxy_from_env = false;  // the session's proxy, as it is
  auto chain = credentials::make_default_chain(ex, std::move(cc));
  if (!chain) return chain.error();
  p.credentials = std::move(*chain);
  p.proxy_from_env = false;
  p.http.proxy = s.http().proxy;
  return session::create(std::move(p));
}

}  // namespace floe
