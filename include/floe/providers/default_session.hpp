#pragma once
// make_session: a session (session/session.hpp) whose provider, when the
// caller gives none, is the default credential chain (providers/chain.hpp:
// environment keys, web identity, the profile with its role chains, SSO and
// credential_process, container credentials, IMDSv2) — built once, so every
// client made from the session shares one refreshing cache. It lives above
// the services because the chain's role providers call STS.

#include <floe/config.hpp>
#include <floe/result.hpp>
#include <floe/session/session.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <memory>

namespace floe {

/// session::create, with the default chain when `p.credentials` is null
/// (resolved on first use; the chain's STS clients and its SSO portal
/// client take the session's environment, endpoint resolver, region, TLS,
/// proxy, resolve overrides and observer).
/// Errors: those of session::create; a configured but broken credential
/// source. No credentials at all is not an error here: the first signed
/// request fails with errc::credentials_unavailable.
FLOE_DECL result<std::shared_ptr<session>> make_session(boost::asio::any_io_executor ex, session_params p = {});

}  // namespace floe

#if defined(FLOE_HEADER_ONLY)
#include <floe/providers/impl/default_session.ipp>
#endif
