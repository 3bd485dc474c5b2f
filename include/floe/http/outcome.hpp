#pragma once
// What the end of one attempt means for the exchange, with no I/O: the
// reply classified, the retry policy asked, and a failure put into words
// (what was being done, the operating system's reason, why it was not
// retried further).

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/http/attempt_state.hpp>
#include <floe/http/client_config.hpp>
#include <floe/http/message.hpp>
#include <floe/retry/policy.hpp>

#include <chrono>
#include <random>

namespace floe::http::detail {

// Completes a failure with what is known of the operation: its name, its
// target, the attempts made and, with `a`, what went wrong on the last
// attempt (a.why, or else the reason a.ec gives).
FLOE_DECL error finish_error(retry::operation const& op, request const& req, response& res, error e,
                             attempt_state const* a);

// How an attempt ended: over (the exchange's result is in `out`) or another
// attempt after `delay`.
struct settled {
  bool over = false;
  std::chrono::nanoseconds delay{0};
};

// Decides how the attempt that left `a` (and `res`, when a reply came)
// ends. A plain function: its temporaries stay off the retry loop's
// coroutine frame. `rng` draws the back-off jitter unless cfg.random does;
// `skew` learns the server's clock from a clock-skew rejection.
FLOE_DECL settled settle(client_config const& cfg, std::minstd_rand& rng, std::chrono::seconds& skew,
                         retry::operation& op, retry::request_traits const& traits, request& req, response& res,
                         attempt_state const& a, error& out);

}  // namespace floe::http::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/outcome.ipp>
#endif
