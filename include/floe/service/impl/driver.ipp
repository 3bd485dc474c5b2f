#pragma once
#include <floe/service/driver.hpp>

#include <floe/http/exchange.hpp>
#include <floe/http/restartable_body.hpp>
#include <floe/retry/clock_skew.hpp>
#include <floe/service/diagnostics.hpp>
#include <floe/service/request_machine.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>

#include <random>

// GCC 12 misreads the sized operator delete of Asio's coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace floe::service {

namespace detail {

// Whether the operation's cancellation slot fired; called as
// fired(co_await this_coro::cancellation_state) (no coroutine frame).
inline bool fired(boost::asio::cancellation_state const& cs) noexcept {
  return cs.cancelled() != boost::asio::cancellation_type::none;
}

// The wait before a retry, in a frame of its own (only a retry pays for it).
inline boost::asio::awaitable<void> back_off(boost::asio::any_io_executor ex, std::chrono::nanoseconds delay) {
  boost::asio::steady_timer t(ex, delay);
  co_await t.async_wait(boost::asio::as_tuple(boost::asio::deferred));
}

// Waits on `t`: true when it expired, false when cancelled (the raced
// wait ended first, or the caller cancelled). A cancellation that came
// while nothing was waiting (between two waits of a racer: Asio's signal
// then reaches no operation) is seen in the state, not waited past.
inline boost::asio::awaitable<bool> expiry(boost::asio::steady_timer& t) {
  if (fired(co_await boost::asio::this_coro::cancellation_state)) co_return false;
  auto [ec] = co_await t.async_wait(boost::asio::as_tuple(boost::asio::deferred));
  co_return !ec;
}

// One exchange as a coroutine of its own (the deadline's race runs it
// beside the timer): as in driver::run, a cancellation is an outcome, not
// an exception.
inline boost::asio::awaitable<void> guarded_exchange(http::client& c, http::endpoint const& ep, http::request& req,
                                                     http::response& res, unsigned attempt, error& out,
                                                     http::exchange_facts& xf) {
  co_await boost::asio::this_coro::throw_if_cancelled(false);
  try {
    co_await http::detail::run_exchange(c, ep, req, res, attempt, out, xf);
  } catch (...) {
    out = http::detail::error_from_exception(std::current_exception());
    xf = {};
    xf.final = true;
  }
}

inline bool excluded_from_signing(std::string_view name) noexcept {
  using F = http::fields;
  return F::iequals(name, sigv4::authorization_header) || F::iequals(name, sigv4::amz_date_header) ||
         F::iequals(name, sigv4::security_token_header) || F::iequals(name, sigv4::content_sha256_header) ||
         F::iequals(name, "Expect") || F::iequals(name, "Connection") || F::iequals(name, "User-Agent");
}

}  // namespace detail

FLOE_DECL driver::driver(http::client& http, description d, std::shared_ptr<credentials::provider> provider,
                         driver_config cfg)
    : http_(http),
      desc_(d),
      provider_(std::move(provider)),
      cfg_(std::move(cfg)),
      rng_state_(std::random_device{}()),
      ttfb_(cfg_.hedge),
      sizes_(16, cfg_.hedge.max_age),
      hedge_budget_(cfg_.hedge) {}

FLOE_DECL double driver::draw() {
  if (cfg_.random) return cfg_.random();
  if (http_.config().random) return http_.config().random();
  // splitmix64: private to this driver, so no locking.
  std::uint64_t z = (rng_state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 9007199254740992.0;
}

FLOE_DECL credentials::credentials const* driver::lend_or_get(request_spec& spec,
                                                              std::shared_ptr<credentials::credentials const>& lent,
                                                              error& why) {
  // A fixed set needs no asynchronous hand-over (and its allocations): it
  // is lent (shared, not copied), or its get() answers what async_get
  // would. A refreshing provider is always asked through async_get, which
  // may wait for or start a fetch.
  if (spec.fixed) return spec.fixed;
  if (!provider_) {
    why = error(errc::credentials_unavailable, "this client has no credentials provider");
    return nullptr;
  }
  if (provider_->refreshable()) return nullptr;
  lent = provider_->lend();
  if (lent) return lent.get();
  auto got = provider_->get();
  if (!got) {
    why = std::move(got.error());
    return nullptr;
  }
  spec.owned = std::move(*got);
  return &spec.owned;
}

FLOE_DECL boost::asio::awaitable<void> driver::fetch(credentials::credentials& out, error& why) {
  auto got = co_await provider_->async_get(boost::asio::deferred);
  if (got) {
    out = std::move(*got);
  } else {
    why = std::move(got.error());
  }
}

FLOE_DECL error driver::sign(request_spec const& spec, http::request& req, credentials::credentials const& c) {
  sign_headers_.clear();
  for (std::size_t i = 0; i < req.headers.size(); ++i) {
    auto f = req.headers[i];
    if (!detail::excluded_from_signing(f.name)) sign_headers_.push_back({f.name, f.value});
  }
  sigv4::request_view v;
  v.method = req.method;
  v.path = spec.path;
  v.query = spec.query;
  v.headers = sign_headers_;
  v.payload_hash = spec.payload_hash;
  sigv4::credentials_view cv{c.access_key_id, c.secret_access_key.reveal(), c.session_token.reveal()};
  auto const params = desc_.s3_signing ? sigv4::signing_params::s3(spec.region)
                                       : sigv4::signing_params::generic(spec.region, desc_.signing_name);
  auto ok = signer_.sign_headers(v, cv, params, now() + http_.clock_skew(), sig_);
  if (!ok) return ok.error();
  sig_.for_each_header([&req](std::string_view n, std::string_view val) { req.headers.set(n, val); });
  return {};
}

FLOE_DECL errors::reply_facts driver::facts_of(request_spec const& spec, http::request const& req,
                                               http::response const& res) const {
  errors::reply_facts f;
  f.status = res.status;
  f.method = req.method;
  f.is_conditional_write = req.traits.conditional_write;
  f.if_match = spec.if_match;
  f.is_conditional_read = spec.conditional_read;
  f.credentials_refreshable = spec.signs && !spec.fixed && provider_ && provider_->refreshable();
  f.is_credential_fetch = spec.credential_fetch;
  f.clock_skew = retry::skew_from_date(res.headers.get("Date"), now());
  f.has_bucket_region = res.headers.contains("x-amz-bucket-region");
  return f;
}

FLOE_DECL void driver::reply_error(request_spec const& spec, http::request const& req, http::response const& res,
                                   credentials::credentials const* signer, unsigned attempts, error& out) const {
  errors::reply_ids ids;
  ids.operation = spec.operation;
  ids.resource = spec.resource;
  ids.attempt = attempts;
  auto report = decode_reply(desc_.proto, facts_of(spec, req, res), res.headers, res.body, ids, spec.may_200_error);
  if (!report.err.code) report.err.code = errc::service_error;  // never a silent success
  if (spec.hooks) spec.hooks->describe(report.err, res, signer);
  out = std::move(report.err);
}

FLOE_DECL boost::asio::awaitable<error> driver::run_value(request_spec& spec, http::request& req,
                                                          http::response& res) {
  error e;
  co_await run(spec, req, res, e);
  co_return e;
}

FLOE_DECL action driver::after_exchange(request_machine& m, request_spec& spec, http::request const& req,
                                       http::response& res, http::exchange_facts const& xf,
                                       credentials::credentials const* signer, error& out) {
  if (out.code) {
    transport_facts t;
    t.reached_server = xf.reached_server;
    t.body_consumed = xf.body_consumed;
    t.sink_dirty = xf.sink_dirty;
    t.timed_out = xf.timed_out;
    t.final = xf.final;
    return m.on_transport_failure(t, draw());
  }
  reply_facts f;
  // A 2xx (or a 304 to a conditional read) is a success with nothing
  // read: no facts, no Date parsed, no clock asked on the hot path.
  if ((res.status / 100 != 2 || spec.may_200_error) && !(res.status == 304 && spec.conditional_read))
    f.kind = classify_reply(desc_.proto, facts_of(spec, req, res), res.headers, res.body, spec.may_200_error);
  if (f.kind != errors::kind::success) {
    if (desc_.retryable_code) {
      errors::reply_ids none;
      auto r = decode_reply(desc_.proto, facts_of(spec, req, res), res.headers, res.body, none, spec.may_200_error);
      f.service_retryable = !r.err.diag.code.empty() && desc_.retryable_code(r.err.diag.code);
    }
    if (f.kind == errors::kind::clock_skew) f.skew = retry::skew_from_date(res.headers.get("Date"), now());
    if (f.kind == errors::kind::stale_credentials && !spec.stale && m.healed() == false) {
      spec.stale = std::make_unique<error>();
      reply_error(spec, req, res, signer, m.attempt(), *spec.stale);
    }
  }
  f.body_consumed = xf.body_consumed;
  f.sink_dirty = xf.sink_dirty;
  res.kind = f.kind;
  // The store pushes back: no hedging for a while.
  if (f.kind == errors::kind::throttled || res.status == 503) hedge_budget_.on_throttled();
  return m.on_reply(f, draw());
}

FLOE_DECL void driver::failed(request_machine const& m, action const& a, request_spec& spec, http::request const& req,
                              http::response& res, credentials::credentials const* signer, bool sink_dirty,
                              error& out) const {
  res.attempts = m.attempt();
  switch (a.why) {
    case failure::reply:
      res.retry_stop = a.stop;
      reply_error(spec, req, res, signer, m.attempt(), out);
      add_stop_reason(out, a.stop, m.attempt());
      break;
    case failure::transport: {
      // A reply partly handed to a stream sink (a download) stops here for
      // its consumer to resume or give up on: no request body is involved,
      // so "request body cannot be replayed" would mislead.
      bool const sink_took_reply = a.stop == errc::body_not_replayable && sink_dirty;
      out = transport_error(std::move(out), sink_took_reply ? errc::ok : a.stop, m.attempt());
      add_context(out, spec.operation, spec.resource);
      break;
    }
    case failure::declined_refresh:
      // The provider declined the invalidation (its forced refreshes are
      // backing off after curing nothing): resending with the same keys
      // would only meet the same refusal.
      if (spec.stale) out = std::move(*spec.stale);
      add_declined_refresh(out, provider_ ? provider_->describe() : std::string("the provider"));
      break;
    case failure::deadline: {
      // What the last attempt met, when it failed before the deadline cut
      // the next one or refused its back-off.
      res.retry_stop = a.stop;
      error last = std::move(out);
      if (!last.code && res.status != 0 && res.kind != errors::kind::success)
        reply_error(spec, req, res, signer, m.attempt(), last);
      auto const budget = spec.deadline ? spec.budget : std::chrono::nanoseconds(cfg_.retry.deadline);
      out = deadline_error(budget, m.attempt(), last);
      add_context(out, spec.operation, spec.resource);
      break;
    }
    case failure::credentials:
    case failure::none:
      add_context(out, spec.operation, spec.resource);
      break;
  }
  if (!out.code) out = error(errc::service_error);
}

FLOE_DECL request_machine::params driver::machine_params(request_spec const& spec, http::request& req) const {
  if (req.operation != spec.operation) req.operation.assign(spec.operation);
  request_machine::params mp;
  mp.traits = req.traits;
  // Only the request body: whether the reply's sink took bytes is a fact of
  // each attempt (exchange_facts::sink_dirty), and one that took none can
  // be sent again (retry::may_send_again).
  mp.traits.replayable_body = http::can_replay(req.body);
  mp.signs = spec.signs;
  mp.refreshable = spec.signs && !spec.fixed && provider_ && provider_->refreshable();
  return mp;
}

FLOE_DECL boost::asio::awaitable<void> driver::run(request_spec& spec, http::request& req, http::response& res,
                                                   error& out) {
  namespace asio = boost::asio;
  // Only what lives across a suspension is kept here, few and small: Asio
  // recycles a coroutine frame only up to ~1 KiB, and GCC gives every local
  // of the coroutine a slot of its own. The steps between suspensions run
  // in the plain member functions above; big values live in `spec`; errors
  // are written, not returned.
  out.clear();
  // The deadline ({}: none); only with one is the clock read.
  auto const until = deadline_of(spec);
  bool const timed = until != std::chrono::steady_clock::time_point{};
  request_machine m(cfg_.retry, http_.quota(), machine_params(spec, req));
  if (timed) {
    m.set_deadline(until);
    m.at(std::chrono::steady_clock::now());
  }
  std::shared_ptr<credentials::credentials const> lent;
  credentials::credentials const* signer = nullptr;
  http::exchange_facts xf;
  // The exchange shares this coroutine's cancellation state; thrown-if-
  // cancelled is turned off while it runs and put back after.
  bool const throw_if_cancelled = co_await asio::this_coro::throw_if_cancelled();
  co_await asio::this_coro::throw_if_cancelled(false);
  action a = m.start();
  for (bool over = false; !over;) {
    switch (a.what) {
      case step::invalidate:
        // The generation that signed this is bad; the next get waits for a
        // fetch started after this point.
        provider_->invalidate(a.generation);
        [[fallthrough]];
      case step::get_credentials:
        lent.reset();
        signer = lend_or_get(spec, lent, out);
        if (!signer && !out.code) {
          if (!timed) {
            co_await fetch(spec.owned, out);
          } else if (!co_await fetch_until(until, spec.owned, out)) {
            if (detail::fired(co_await asio::this_coro::cancellation_state)) {
              out = error(asio::error::operation_aborted);
              over = true;
              break;
            }
            out.clear();
            a = m.on_deadline();
            break;
          }
          if (!out.code) signer = &spec.owned;
        }
        if (timed) m.at(std::chrono::steady_clock::now());
        a = signer ? m.on_credentials(signer->generation) : m.on_credentials_failed();
        break;
      case step::send:
        if (a.delay.count() > 0) {
          co_await detail::back_off(http_.get_executor(), a.delay);
          if (detail::fired(co_await asio::this_coro::cancellation_state)) {
            out = error(asio::error::operation_aborted);
            over = true;
            break;
          }
        }
        if (!prepare_send(m, a, spec, req, signer, out)) {
          over = true;
          break;
        }
        if (hedge_eligible(spec, req)) {
          if (m.sends() == 1) hedge_budget_.on_request();
          int const how = co_await exchange_hedged(until, spec, req, res, m.attempt(), out, xf);
          if (how >= 2 && !detail::fired(co_await asio::this_coro::cancellation_state)) {
            res.status = 0;
            if (how == 3) {
              out.clear();
              a = m.on_deadline();
              break;
            }
            // No reply head by the late bound: a timeout, retried as one.
            out = error(errc::timeout, "no reply within the learned bound (" +
                                           std::to_string(static_cast<unsigned>(cfg_.hedge.late_factor)) +
                                           "x the hedge delay)");
            xf = {};
            xf.timed_out = true;
          }
        } else if (!timed) {
          try {
            co_await http::detail::run_exchange(http_, *spec.ep, req, res, m.attempt(), out, xf);
          } catch (...) {
            out = http::detail::error_from_exception(std::current_exception());
            xf = {};
            xf.final = true;
          }
        } else if (!co_await exchange_until(until, spec, req, res, m.attempt(), out, xf) &&
                   !detail::fired(co_await asio::this_coro::cancellation_state)) {
          // Cut by the deadline (its connection closed): no reply to name.
          out.clear();
          res.status = 0;
          a = m.on_deadline();
          break;
        }
        if (xf.cancelled) {
          if (timed) out = error(asio::error::operation_aborted);
          over = true;
          break;
        }
        if (timed) m.at(std::chrono::steady_clock::now());
        a = after_exchange(m, spec, req, res, xf, signer, out);
        break;
      case step::ask_service:
        a = m.on_service(spec.hooks && spec.hooks->follow_redirect(spec, req, res));
        break;
      case step::done:
        // A stale reply that fresh credentials cured: the provider's
        // forced-refresh back-off can reset.
        if (a.generation != 0 && provider_) provider_->confirm(a.generation);
        res.attempts = m.attempt();
        out.clear();
        over = true;
        break;
      case step::fail:
        failed(m, a, spec, req, res, signer, xf.sink_dirty, out);
        over = true;
        break;
    }
  }
  spec.stale.reset();
  co_await asio::this_coro::throw_if_cancelled(throw_if_cancelled);
}

FLOE_DECL bool driver::prepare_send(request_machine const& m, action const& a, request_spec& spec, http::request& req,
                                    credentials::credentials const* signer, error& out) {
  if (a.skew) http_.set_clock_skew(*a.skew);
  out.clear();
  if (m.sends() > 1 && spec.hooks) out = spec.hooks->before_resend(spec, req);
  if (!out.code && signer) out = sign(spec, req, *signer);
  if (!out.code) return true;
  add_context(out, spec.operation, spec.resource);
  return false;
}

FLOE_DECL boost::asio::awaitable<void> send_unsigned(driver& d, http::endpoint const& ep, std::string_view operation,
                                                     http::request& req, http::response& res, error& out) {
  request_spec spec;
  spec.operation = operation;
  spec.ep = &ep;
  spec.signs = false;
  spec.credential_fetch = true;
  co_await d.run(spec, req, res, out);
  if (out.code && res.status != 0) out.clear();  // a reply: its status is the caller's to read
}

}  // namespace floe::service

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The attempt raced against its hedge, its late bound and the deadline.
#include <floe/service/impl/driver_race.ipp>
