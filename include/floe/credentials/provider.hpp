#pragma once
// The seam every signed request goes through: a credentials provider.
//
// A request asks the provider for credentials (async_get), signs with them,
// and when the reply says they are stale (errors::kind::stale_credentials)
// calls invalidate(generation) with the generation it signed with, then asks
// again. Implementations: static_provider (a set resolved once), the
// refreshing cache (credentials/refreshing.hpp: web identity, roles,
// processes, container, IMDS) and the default chain (providers/chain.hpp).

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/environment.hpp>
#include <floe/credentials/shared_files.hpp>
#include <floe/result.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/deferred.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace floe::credentials {

/// Hands out credentials. Thread-safety: implementations are safe to call
/// from several threads at once (static_provider is immutable; the
/// refreshing cache guards its state with a mutex).
class provider {
 public:
  /// async_get completes with this: the credentials, or why there are none.
  using get_signature = void(result<credentials>);

  provider() = default;
  provider(provider const&) = delete;
  provider& operator=(provider const&) = delete;
  virtual ~provider() = default;

  /// Credentials to sign one request with.
  ///
  /// Completion: `void(result<credentials>)`; with the default token
  /// (asio::deferred), `co_await p.async_get()` yields a result and throws
  /// nothing. Errors: errc::credentials_unavailable (no source configured,
  /// or the source failed), errc::invalid_argument (a source is configured
  /// but malformed); diagnostics carry the reason.
  /// Never completes inside the call: the handler runs on its associated
  /// executor (the system executor when it has none), as if by post.
  /// Cancellation: a static provider completes at once; the refreshing
  /// cache lets a waiter be cancelled (terminal) without cancelling the
  /// shared fetch other waiters depend on.
  /// Lifetime: the provider must outlive the operation.
  template <class CompletionToken = boost::asio::deferred_t>
  auto async_get(CompletionToken&& token = {}) {
    return boost::asio::async_initiate<CompletionToken, get_signature>(
        [this](auto handler) {
          // The handler's own executor, in a type that can post.
          boost::asio::any_io_executor ex = boost::asio::get_associated_executor(handler);
          do_async_get(boost::asio::any_completion_handler<get_signature>(std::move(handler)), std::move(ex));
        },
        token);
  }

  /// What is available without waiting: a cached set, or an error (a
  /// refreshing provider that must fetch first answers
  /// errc::credentials_unavailable; use async_get).
  virtual result<credentials> get() = 0;

  /// The set get() would hand out now, shared instead of copied (no
  /// allocation: a warm request path signs with it in place), or null when
  /// the provider cannot lend one without work (then use get / async_get).
  /// The default lends nothing; static_provider always lends its set.
  virtual std::shared_ptr<credentials const> lend() { return nullptr; }

  /// A request signed with credentials of this generation was rejected as
  /// stale. A refreshing provider stops handing that generation out; the
  /// next async_get waits for a fetch started after this call. A static
  /// provider cannot do better and ignores it.
  virtual void invalidate(std::uint64_t generation) noexcept = 0;

  /// A request that had been rejected as stale with an older generation
  /// succeeded when resent with `generation`: the refresh cured it. A
  /// refreshing provider resets its forced-refresh back-off; others ignore it.
  virtual void confirm(std::uint64_t generation) noexcept { (void)generation; }

  /// Whether invalidate can lead to different credentials. The error
  /// classifier treats a bodiless or AccessDenied 403 as stale credentials
  /// only for refreshable sources, and a client retries after a stale
  /// reply only when this is true.
  virtual bool refreshable() const noexcept = 0;

  /// For messages: "static (environment)", ...
  virtual std::string describe() const = 0;

 protected:
  /// Starts one async_get. `ex` is the handler's associated executor; the
  /// handler must be invoked through it, never inside this call. The
  /// default posts get()'s answer to `ex`.
  FLOE_DECL virtual void do_async_get(boost::asio::any_completion_handler<get_signature> handler,
                                      boost::asio::any_io_executor ex);
};

/// A fixed set of credentials (or a fixed error).
class static_provider final : public provider {
 public:
  /// Hands out `c`; a generation of 0 becomes 1.
  FLOE_DECL explicit static_provider(credentials c);
  /// Fails every request with `e` (a chain that found nothing).
  FLOE_DECL explicit static_provider(error e);
  FLOE_DECL explicit static_provider(result<credentials> r);

  FLOE_DECL result<credentials> get() override;
  std::shared_ptr<credentials const> lend() override { return lent_; }
  void invalidate(std::uint64_t) noexcept override {}
  bool refreshable() const noexcept override { return false; }
  FLOE_DECL std::string describe() const override;

 private:
  result<credentials> value_;
  std::shared_ptr<credentials const> lent_;  // value_'s set, when it has one
};

/// The static sources in the SDKs' order: the environment, then the shared
/// files (shared_files_params; the profile from the caller, AWS_PROFILE,
/// AWS_DEFAULT_PROFILE or "default"). A source that is configured but
/// broken stops the search with its error (errc::invalid_argument); when
/// no source has credentials the error is errc::credentials_unavailable
/// and says why each source had none.
FLOE_DECL result<credentials> resolve_static_credentials(env_lookup const& env, shared_files_params const& params = {});

/// A static_provider over resolve_static_credentials (the files are read
/// once, now).
FLOE_DECL std::shared_ptr<provider> make_static_provider(env_lookup const& env, shared_files_params const& params = {});

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/provider.ipp>
#endif
