#pragma once
#include <floe/http/outcome.hpp>

#include <floe/http/error_words.hpp>
#include <floe/retry/clock_skew.hpp>

#include <string>

namespace floe::http::detail {

FLOE_DECL error finish_error(retry::operation const& op, request const& req, response& res, error e,
                             attempt_state const* a) {
  e.diag.attempt = op.attempt();
  if (e.diag.operation.empty()) e.diag.operation = req.operation;
  if (e.diag.resource.empty()) e.diag.resource = req.target;
  if (a) {
    // A transport failure with no words of its own (a reset, a closed
    // connection) says the operating system's reason.
    auto const words = a->why.empty() ? error_reason(a->ec) : a->why;
    if (!words.empty()) {
      if (!e.diag.message.empty()) e.diag.message += ": ";
      e.diag.message += words;
    }
  }
  res.attempts = op.attempt();
  return e;
}

FLOE_DECL settled settle(client_config const& cfg, std::minstd_rand& rng, std::chrono::seconds& skew,
                         retry::operation& op, retry::request_traits const& traits, request& req, response& res,
                         attempt_state const& a, error& out) {
  retry::attempt_outcome o;
  o.reached_server = a.reached_server;
  o.body_consumed = a.body_consumed || a.sink_dirty;
  o.timed_out = a.timed_out;
  o.reply_received = !a.ec;
  if (a.ec) {
    if (a.ec == errc::reply_too_large || a.ec == errc::invalid_argument) {
      // The request or the reply is wrong: trying again changes nothing.
      out = finish_error(op, req, res, error(a.ec), &a);
      return {true};
    }
    o.kind = errors::kind::transient;
  } else {
    o.kind = req.classify ? req.classify(req, res) : default_classify(req, res);
    res.kind = o.kind;
    if (o.kind == errors::kind::clock_skew)
      if (auto sk = retry::skew_from_date(res.headers.get("Date"), std::chrono::system_clock::now())) skew = *sk;
  }
  double const r01 = cfg.random ? cfg.random() : std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  unsigned const this_attempt = op.attempt();
  auto const d = op.on_outcome(traits, o, r01);
  res.attempts = this_attempt;
  if (d.what == retry::action::done) {
    out.clear();
    return {true};
  }
  if (d.what == retry::action::stop) {
    if (o.reply_received) {
      res.retry_stop = d.reason;
      out.clear();
      return {true};
    }
    auto e = finish_error(op, req, res, error(a.ec), &a);
    e.diag.attempt = this_attempt;
    if (d.reason == errc::unknown_outcome) {
      e.code = make_error_code(errc::unknown_outcome);
      e.diag.message = "the reply to a conditional write was lost: " + (a.why.empty() ? error_reason(a.ec) : a.why);
    } else if (d.reason != errc::ok && d.reason != errc::attempts_exhausted && d.reason != errors::to_errc(o.kind)) {
      // Attempts running out needs no words: the count says it
      // (diagnostics::to_string, "after 3 attempts").
      if (!e.diag.message.empty()) e.diag.message += "; ";
      e.diag.message += this_attempt > 1 ? "not retried further: " : "not retried: ";
      e.diag.message += make_error_code(d.reason).message();
    }
    out = std::move(e);
    return {true};
  }
  return {false, d.delay};
}

}  // namespace floe::http::detail
