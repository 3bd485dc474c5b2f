#pragma once
#include <floe/http/deadline.hpp>

#include <boost/asio/post.hpp>

#include <algorithm>

namespace floe::http::detail {

FLOE_DECL void watchdog::arm(steady::time_point due) {
  armed_ = true;
  armed_due_ = due;
  auto const gen = ++gen_;
  timer_.expires_at(due);  // cancels a pending wait: its handler sees an old gen
  timer_.async_wait([self = shared_from_this(), gen](boost::system::error_code ec) { self->on_timer(ec, gen); });
}

FLOE_DECL void watchdog::on_timer(boost::system::error_code ec, std::uint64_t gen) {
  if (gen != gen_) return;  // superseded by a later arm() or an idle check
  armed_ = false;
  if (ec) return;
  auto const now = steady::now();
  auto next = steady::time_point::max();
  for (std::size_t i = 0; i < watched_.size();) {
    deadline& d = *watched_[i];
    if (now >= d.due()) {
      remove(d);  // moves the last one into slot i
      d.timed_out_ = true;
      d.on_expired();
      continue;
    }
    next = std::min(next, d.due());
    ++i;
  }
  if (!watched_.empty()) arm(next);
}

FLOE_DECL void watchdog::post_idle_check() noexcept {
  if (idle_check_posted_) return;
  idle_check_posted_ = true;
  try {
    boost::asio::post(timer_.get_executor(), [self = shared_from_this()] {
      self->idle_check_posted_ = false;
      if (self->watched_.empty()) self->disarm();
    });
  } catch (...) {  // no memory for the handler: cancel now instead
    idle_check_posted_ = false;
    disarm();
  }
}

FLOE_DECL void watchdog::disarm() noexcept {
  if (!armed_) return;
  ++gen_;
  armed_ = false;
  timer_.cancel();
}

}  // namespace floe::http::detail
