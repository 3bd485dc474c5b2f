#pragma once
#include <floe/providers/assume_role.hpp>

#include <floe/errors/classify.hpp>

#include <boost/asio/use_awaitable.hpp>

namespace floe::credentials {

FLOE_DECL result<std::unique_ptr<assume_role_source>> assume_role_source::create(boost::asio::any_io_executor ex,
                                                                                role_step step,
                                                                                std::shared_ptr<provider> source,
                                                                                sts::client_config sts) {
  if (step.role_arn.empty()) return error(errc::invalid_argument, "assume role: the role ARN is empty");
  if (!source) return error(errc::invalid_argument, "assume role: no source credentials provider");
  auto clock = sts.clock;
  auto c = sts::client::create(std::move(ex), std::move(sts));
  if (!c) return c.error();
  std::unique_ptr<assume_role_source> s(new assume_role_source(std::move(step), std::move(source), std::move(*c)));
  s->clock_ = std::move(clock);
  return s;
}

FLOE_DECL std::string assume_role_source::describe() const {
  return "assume role " + detail::printable(step_.role_arn, 256) + " (profile " + detail::printable(step_.profile) +
         ", source: " + source_->describe() + ")";
}

FLOE_DECL boost::asio::awaitable<result<credentials>> assume_role_source::fetch() {
  namespace asio = boost::asio;
  for (int attempt = 0;; ++attempt) {
    auto got = co_await source_->async_get(asio::use_awaitable);
    if (!got) {
      auto e = got.error();
      e.diag.message = "source credentials for role " + detail::printable(step_.role_arn, 256) + ": " + e.diag.message;
      co_return e;
    }
    credentials const caller = std::move(*got);
    sts::assume_role_request req;
    req.role_arn = step_.role_arn;
    req.role_session_name = step_.session_name.empty()
                                ? sts::default_session_name(clock_ ? clock_() : std::chrono::system_clock::now())
                                : step_.session_name;
    req.duration = step_.duration;
    req.external_id = step_.external_id;
    auto r = co_await sts_->async_assume_role(req, caller, asio::use_awaitable);
    if (r) {
      credentials c = std::move(r->creds);
      c.source = describe();
      co_return c;
    }
    bool const stale = errors::is_stale_credentials_code(r.error().diag.code);
    if (stale && attempt == 0 && source_->refreshable()) {
      // The credentials that signed AssumeRole went stale: renew them at
      // their source, not only this role's set.
      ++invalidations_;
      source_->invalidate(caller.generation);
      continue;
    }
    auto e = r.error();
    if (stale) e.diag.message += " (the source credentials, " + caller.source + ", were refused as stale)";
    co_return e;
  }
}

}  // namespace floe::credentials
