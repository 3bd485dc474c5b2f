#pragma once
#include <floe/credentials/provider.hpp>

#include <boost/asio/post.hpp>

namespace floe::credentials {

FLOE_DECL void provider::do_async_get(boost::asio::any_completion_handler<get_signature> handler,
                                     boost::asio::any_io_executor ex) {
  boost::asio::post(ex, [h = std::move(handler), r = get()]() mutable { std::move(h)(std::move(r)); });
}

FLOE_DECL static_provider::static_provider(credentials c) : value_(std::move(c)) {
  if (value_->generation == 0) value_->generation = 1;
  lent_ = std::make_shared<credentials const>(*value_);
}

FLOE_DECL static_provider::static_provider(error e) : value_(std::move(e)) {}

FLOE_DECL static_provider::static_provider(result<credentials> r) : value_(std::move(r)) {
  if (value_ && value_->generation == 0) value_->generation = 1;
  if (value_) lent_ = std::make_shared<credentials const>(*value_);
}

FLOE_DECL result<credentials> static_provider::get() { return value_; }

FLOE_DECL std::string static_provider::describe() const {
  if (value_) return "static (" + value_->source + ")";
  return "static (no credentials)";
}

FLOE_DECL result<credentials> resolve_static_credentials(env_lookup const& env, shared_files_params const& params) {
  auto from_env = credentials_from_environment(env);
  if (!from_env) return from_env.error();
  if (*from_env) return std::move(**from_env);
  auto from_files = credentials_from_shared_files(params, env);
  if (from_files || from_files.error().code != errc::credentials_unavailable) return from_files;
  return error(errc::credentials_unavailable,
               "no credentials found; environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set; "
               "shared files: " +
                   from_files.error().diag.message);
}

FLOE_DECL std::shared_ptr<provider> make_static_provider(env_lookup const& env, shared_files_params const& params) {
  return std::make_shared<static_provider>(resolve_static_credentials(env, params));
}

}  // namespace floe::credentials
