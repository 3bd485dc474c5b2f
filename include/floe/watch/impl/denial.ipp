#pragma once
#include <floe/watch/denial.hpp>

#include <floe/error.hpp>

#include <utility>

namespace floe::watch {

FLOE_DECL std::chrono::milliseconds denial_gate::wait_of(unsigned n) const noexcept {
  auto const cap = cfg_.cap < cfg_.initial ? cfg_.initial : cfg_.cap;
  auto w = cfg_.initial;
  for (unsigned i = 1; i < n && w < cap; ++i) w *= 2;
  return w < cap ? w : cap;
}

FLOE_DECL denial_gate::step denial_gate::on_denied(time_point now, std::string reason) {
  if (step_ > 0 && now < retry_at_) {
    // Joins the step under way.
    return {std::chrono::duration_cast<std::chrono::milliseconds>(retry_at_ - now), step_, false};
  }
  if (step_ == 0) ++episodes_;
  ++step_;
  reason_ = std::move(reason);
  auto const w = wait_of(step_);
  retry_at_ = now + w;
  return {w, step_, true};
}

FLOE_DECL bool denial_gate::on_success() noexcept {
  if (step_ == 0) return false;
  step_ = 0;
  reason_.clear();
  return true;
}

FLOE_DECL bool is_denial(boost::system::error_code const& ec) noexcept {
  return ec == make_error_code(errc::denied) || ec == make_error_code(errc::stale_credentials) ||
         ec == make_error_code(errc::credentials_unavailable);
}

}  // namespace floe::watch
