#pragma once
#include <floe/credentials/refreshing.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>

#include <exception>
#include <random>

namespace floe::credentials {

namespace detail {
// An expiry on the policy's clock. Past that clock's range (the year 2262
// in nanoseconds) the conversion would overflow; such a set does not expire
// in practice, so the time saturates.
inline refresh::time_point policy_expiry(std::chrono::sys_seconds e) noexcept {
  using tp = refresh::time_point;
  constexpr auto last = std::chrono::duration_cast<std::chrono::seconds>(tp::duration::max());
  constexpr auto first = std::chrono::duration_cast<std::chrono::seconds>(tp::duration::min());
  if (e.time_since_epoch() > last) return tp::max();
  if (e.time_since_epoch() < first) return tp::min();
  return tp(e);
}
}  // namespace detail

FLOE_DECL std::shared_ptr<refreshing_provider> refreshing_provider::create(boost::asio::any_io_executor ex,
                                                                          std::unique_ptr<refreshing_source> source,
                                                                          refreshing_params params) {
  return std::make_shared<refreshing_provider>(token{}, std::move(ex), std::move(source), std::move(params));
}

FLOE_DECL refreshing_provider::refreshing_provider(token, boost::asio::any_io_executor ex,
                                                   std::unique_ptr<refreshing_source> source,
                                                   refreshing_params params)
    : ex_(std::move(ex)),
      source_(std::move(source)),
      params_(std::move(params)),
      source_name_(source_ ? source_->describe() : std::string("(no source)")),
      state_(params_.policy),
      rng_(std::random_device{}()) {}

FLOE_DECL refreshing_provider::~refreshing_provider() = default;

std::chrono::system_clock::time_point refreshing_provider::now() const {
  return params_.clock ? params_.clock() : std::chrono::system_clock::now();
}

double refreshing_provider::draw() {
  if (params_.random) return params_.random();
  std::uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 9007199254740992.0;
}

error refreshing_provider::unavailable() const {
  error e(errc::credentials_unavailable);
  if (last_error_) {
    e.diag = last_error_->diag;
    // The failing request names its own operation; the fetch's goes in the message.
    std::string what = last_error_->diag.operation.empty() ? std::string("fetch") : last_error_->diag.operation;
    e.diag.message = "no usable credentials from " + source_name_ + ": " + what + " failed: " +
                     (last_error_->diag.message.empty() ? last_error_->code.message() : last_error_->diag.message);
    e.diag.operation.clear();
    e.diag.resource.clear();
  } else {
    e.diag.message = "no usable credentials from " + source_name_ + " yet";
  }
  return e;
}

FLOE_DECL std::string refreshing_provider::describe() const { return "refreshing (" + source_name_ + ")"; }

// Each completion runs on its waiter's executor, where its cancellation
// slot is cleared first: Asio's slots are not thread-safe, and the slot's
// signal is emitted on that executor too. Never inside the call that
// decided it (async_get completes as if by post), and never with mu_ held.
void refreshing_provider::deliver(std::list<completion>& done) {
  for (auto& c : done) {
    boost::asio::post(c.ex, [h = std::move(c.handler), v = std::move(c.value), slot = c.slot]() mutable {
      slot.clear();
      std::move(h)(std::move(v));
    });
  }
}

FLOE_DECL void refreshing_provider::do_async_get(boost::asio::any_completion_handler<get_signature> handler,
                                                 boost::asio::any_io_executor ex) {
  std::list<completion> done;
  std::optional<std::uint64_t> start;
  {
    std::lock_guard lk(mu_);
    auto const t = now();
    auto d = state_.on_get(t);
    if (d.start_fetch) start = d.start_id;
    switch (d.what) {
      case refresh::get_action::serve:
        done.push_back({std::move(handler), std::move(ex), *current_});
        break;
      case refresh::get_action::fail:
        done.push_back({std::move(handler), std::move(ex), unavailable()});
        break;
      case refresh::get_action::wait: {
        // Built in place: Boost 1.81's any_completion_handler move assignment recurses.
        auto slot = boost::asio::get_associated_cancellation_slot(handler);
        waiter w{next_waiter_++, d.fetch_id, std::move(handler), std::move(ex), slot};
        if (w.slot.is_connected()) {
          std::weak_ptr<refreshing_provider> weak = weak_from_this();
          auto const id = w.id;
          w.slot.assign([weak, id](boost::asio::cancellation_type type) {
            if ((type & boost::asio::cancellation_type::terminal) == boost::asio::cancellation_type::none) return;
            if (auto self = weak.lock()) self->cancel_waiter(id);
          });
        }
        waiters_.push_back(std::move(w));
        break;
      }
    }
  }
  deliver(done);
  if (start) spawn_fetch(*start);
}

void refreshing_provider::cancel_waiter(std::uint64_t id) {
  std::list<completion> done;
  {
    std::lock_guard lk(mu_);
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (it->id != id) continue;
      // The slot's own handler is running (this is its emit): it is
      // cleared with the completion, on the waiter's executor.
      done.push_back({std::move(it->handler), std::move(it->ex),
                      error(boost::system::error_code(boost::asio::error::operation_aborted)), it->slot});
      waiters_.erase(it);
      ++cancelled_;
      break;
    }
  }
  deliver(done);
}

FLOE_DECL result<credentials> refreshing_provider::get() {
  std::optional<std::uint64_t> start;
  result<credentials> out = error(errc::credentials_unavailable);
  {
    std::lock_guard lk(mu_);
    auto d = state_.on_get(now());
    if (d.start_fetch) start = d.start_id;
    if (d.what == refresh::get_action::serve) {
      out = *current_;
    } else if (d.what == refresh::get_action::fail) {
      out = unavailable();
    } else {
      out = error(errc::credentials_unavailable,
                  "credentials from " + source_name_ + " are being fetched; use async_get to wait for them");
    }
  }
  if (start) spawn_fetch(*start);
  return out;
}

FLOE_DECL void refreshing_provider::invalidate(std::uint64_t generation) noexcept {
  std::optional<std::uint64_t> start;
  {
    std::lock_guard lk(mu_);
    auto o = state_.on_invalidate(generation, now(), draw());
    if (o.start_fetch) start = o.start_id;
  }
  if (start) spawn_fetch(*start);
}

FLOE_DECL void refreshing_provider::confirm(std::uint64_t generation) noexcept {
  std::lock_guard lk(mu_);
  state_.on_cured(generation);
}

FLOE_DECL std::optional<std::chrono::system_clock::time_point> refreshing_provider::forced_backoff_until() const {
  std::lock_guard lk(mu_);
  auto const& s = state_.stats();
  if (s.forced_backoff_until && now() < *s.forced_backoff_until) return s.forced_backoff_until;
  return std::nullopt;
}

FLOE_DECL refreshing_provider::statistics refreshing_provider::stats() const {
  std::lock_guard lk(mu_);
  statistics s;
  static_cast<refresh::counters&>(s) = state_.stats();
  s.source = source_name_;
  s.cancelled_waits = cancelled_;
  s.last_error = last_error_;
  return s;
}

void refreshing_provider::spawn_fetch(std::uint64_t id) {
  try {
    boost::asio::co_spawn(ex_, run_fetch(shared_from_this(), id), boost::asio::detached);
  } catch (...) {
    // Out of memory (or not owned by a shared_ptr): report it as a failed fetch.
    std::list<completion> done;
    {
      std::lock_guard lk(mu_);
      last_error_ = error(errc::credentials_unavailable, "could not start a credential fetch");
      (void)state_.on_fetch_failure(id, now(), draw());
      for (auto it = waiters_.begin(); it != waiters_.end();) {
        if (state_.answer(it->fetch_id, now()) == refresh::waiter_action::keep_waiting) {
          ++it;
          continue;
        }
        done.push_back({std::move(it->handler), std::move(it->ex), unavailable(), it->slot});
        it = waiters_.erase(it);
      }
    }
    deliver(done);
  }
}

boost::asio::awaitable<void> refreshing_provider::run_fetch(std::shared_ptr<refreshing_provider> self,
                                                           std::uint64_t id) {
  result<credentials> got = error(errc::credentials_unavailable);
  try {
    got = co_await self->source_->fetch();
  } catch (std::exception const& ex) {
    got = error(errc::credentials_unavailable, std::string("credential fetch threw: ") + ex.what());
  } catch (...) {
    got = error(errc::credentials_unavailable, "credential fetch threw");
  }
  std::list<completion> done;
  std::optional<std::uint64_t> next;
  {
    std::lock_guard lk(self->mu_);
    auto const t = self->now();
    if (got && got->expiry && *got->expiry <= std::chrono::time_point_cast<std::chrono::seconds>(t)) {
      got = error(errc::credentials_unavailable, "the fetched credentials expire at " +
                                                     format_iso8601(*got->expiry) + ", which is not in the future");
    }
    refresh::fetch_outcome o;
    if (got) {
      std::optional<refresh::time_point> expiry;
      if (got->expiry) expiry = detail::policy_expiry(*got->expiry);
      o = self->state_.on_fetch_success(id, expiry, t, self->draw());
      if (o.adopted) {
        self->current_ = std::move(*got);
        self->current_->generation = o.generation;
        if (self->current_->source.empty()) self->current_->source = self->source_name_;
      }
    } else {
      self->last_error_ = got.error();
      o = self->state_.on_fetch_failure(id, t, self->draw());
    }
    if (o.start_fetch) next = o.start_id;
    for (auto it = self->waiters_.begin(); it != self->waiters_.end();) {
      auto const a = self->state_.answer(it->fetch_id, t);
      if (a == refresh::waiter_action::keep_waiting) {
        ++it;
        continue;
      }
      if (a == refresh::waiter_action::serve)
        done.push_back({std::move(it->handler), std::move(it->ex), *self->current_, it->slot});
      else
        done.push_back({std::move(it->handler), std::move(it->ex), self->unavailable(), it->slot});
      it = self->waiters_.erase(it);
    }
  }
  deliver(done);
  if (next) self->spawn_fetch(*next);
}

}  // namespace floe::credentials
