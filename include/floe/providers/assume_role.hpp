#pragma once
// Role chaining: AssumeRole signed with the credentials of another
// provider (static keys, web identity, a process, another role...).
//
// Stale source credentials: when STS answers AssumeRole with a code that
// says the signing credentials are stale (ExpiredToken, InvalidClientTokenId,
// ...; errors::is_stale_credentials_code), the source provider's generation
// that signed it is invalidated (so a refreshable source fetches anew, not
// only this role's cache) and AssumeRole is tried once more with the
// source's next set. Other failures are returned as they are.

#include <floe/config.hpp>
#include <floe/credentials/profile_chain.hpp>
#include <floe/credentials/provider.hpp>
#include <floe/credentials/refreshing.hpp>
#include <floe/result.hpp>
#include <floe/sts/client.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace floe::credentials {

class assume_role_source final : public refreshing_source {
 public:
  /// Errors: those of sts::client::create.
  FLOE_DECL static result<std::unique_ptr<assume_role_source>> create(boost::asio::any_io_executor ex, role_step step,
                                                                     std::shared_ptr<provider> source,
                                                                     sts::client_config sts = {});

  FLOE_DECL boost::asio::awaitable<result<credentials>> fetch() override;
  FLOE_DECL std::string describe() const override;

  provider& source() noexcept { return *source_; }
  sts::client& sts() noexcept { return *sts_; }
  /// Source generations this source invalidated after a stale-credentials reply.
  std::uint64_t source_invalidations() const noexcept { return invalidations_.load(); }

 private:
  assume_role_source(role_step step, std::shared_ptr<provider> source, std::unique_ptr<sts::client> sts)
      : step_(std::move(step)), source_(std::move(source)), sts_(std::move(sts)) {}

  role_step step_;
  std::shared_ptr<provider> source_;
  std::unique_ptr<sts::client> sts_;
  std::function<std::chrono::system_clock::time_point()> clock_;
  std::atomic<std::uint64_t> invalidations_{0};
};

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/providers/impl/assume_role.ipp>
#endif
