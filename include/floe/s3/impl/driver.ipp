#pragma once
// The request driver: one S3 request from its description (op_spec) to its
// outcome. perform() aims it, asks the credentials provider, signs every
// attempt, sends it through the HTTP client (which retries), classifies and
// describes the reply, heals a stale-credentials 403 once and follows a
// region redirect once. S3's own parts are marked "S3:" in perform: where a
// request goes (target_for and follow_region, first below; address_request
// in detail/request_building.hpp), the payload hash (payload_hash_of, ibid.)
// and the 200 that carries <Error>. The rest is the same for any SigV4
// service.
#include <floe/s3/client.hpp>

#include <floe/errors/classify.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/retry/clock_skew.hpp>
#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/request_building.hpp>

#include <boost/asio/deferred.hpp>
#include <boost/asio/this_coro.hpp>

#include <array>
#include <memory>

namespace floe::s3 {

// ---- S3's part of the request path.

FLOE_DECL bool client::target_for(detail::op_spec const& op, request_target& out, error& why) {
  if (op.bucket.empty()) {  // ListBuckets
    auto tgt = resolve_service_target(addressing_);
    if (!tgt) {
      why = std::move(tgt.error());
      return false;
    }
    out = std::move(*tgt);
    return true;
  }
  auto const region = regions_.lookup(op.bucket);  // learned from a redirect
  return resolve_target_into(addressing_, op.bucket, op.key, region ? std::string_view(*region) : std::string_view(),
                             out, why);
}

// S3: a reply naming the bucket's region (x-amz-bucket-region on a 301 or
// 400) that differs from the one signed for is remembered, so the request
// can be sent again there. A service-level request has no bucket to
// redirect.
FLOE_DECL bool client::follow_region(detail::op_spec const& op, http::response const& res,
                                     std::string_view sign_region) {
  if (op.bucket.empty()) return false;
  auto where = res.headers.get("x-amz-bucket-region");
  return !where.empty() && where != sign_region && regions_.remember(op.bucket, where);
}

// ---- The generic part: credentials, signing, sending, classifying, healing.

FLOE_DECL bool client::fixed_credentials(credentials::credentials& out, error& why) const {
  auto got = provider_->get();
  if (!got) {
    why = std::move(got.error());
    return false;
  }
  out = std::move(*got);
  return true;
}

FLOE_DECL boost::asio::awaitable<void> client::fetch_credentials(credentials::credentials& out, error& why) {
  auto got = co_await provider_->async_get(boost::asio::deferred);
  if (got) {
    out = std::move(*got);
  } else {
    why = std::move(got.error());
  }
}

FLOE_DECL void client::declined_refresh(error& out, error& stale) const {
  out = std::move(stale);
  out.diag.message += out.diag.message.empty() ? "" : "; ";
  out.diag.message += "credentials from " + provider_->describe() +
                      " were refreshed recently without curing this; not retried while that refresh backs off";
}

FLOE_DECL boost::asio::awaitable<error> client::execute(detail::op_spec& op, http::request& req,
                                                         http::response& res) {
  detail::op_scratch s;  // off the hot path: a bigger frame is fine here
  co_await perform(op, req, res, s);
  co_return std::move(s.failure);
}

FLOE_DECL boost::asio::awaitable<void> client::perform(detail::op_spec& op, http::request& req, http::response& res,
                                                       detail::op_scratch& s) {
  namespace asio = boost::asio;
  // What lives across a suspension is kept few and small: Asio recycles a
  // coroutine frame only up to ~1 KiB, so a bigger one costs an allocation
  // per request. The big per-request values live in `s`; work with big
  // temporaries (target resolution, fetching credentials) runs in plain
  // functions or a coroutine of its own; errors are written, not returned.
  bool auth_retried = false;
  std::uint64_t stale_generation = 0;
  std::unique_ptr<error> stale_error;  // the reply that made us invalidate, to report if nothing better comes
  bool redirected = false;
  bool const refreshable = provider_->refreshable();
  req.operation = std::string(op.operation);
  error& failure = s.failure;  // this iteration's error, then the outcome
  failure.clear();
  request_target& tgt = s.tgt;
  http::endpoint& ep = s.ep;
  for (;;) {
    // S3: where the request goes (the bucket's region, once learned).
    if (!target_for(op, tgt, failure)) co_return detail::add_context(failure, op);
    detail::address_request(op, tgt, ep, req);

    // A fixed set needs no asynchronous hand-over (and its allocations): it
    // is lent (shared, not copied), or its get() answers what async_get
    // would. A refreshing provider is always asked through async_get, which
    // may wait for or start a fetch.
    std::shared_ptr<credentials::credentials const> lent;
    if (!refreshable) lent = provider_->lend();
    if (!lent && (refreshable || !fixed_credentials(s.owned, failure))) {
      failure.clear();
      co_await fetch_credentials(s.owned, failure);
      if (failure.code) co_return detail::add_context(failure, op);
    }
    credentials::credentials const* const signing = lent ? lent.get() : &s.owned;
    credentials::credentials const& creds = *signing;
    if (auth_retried && creds.generation == stale_generation && stale_error) {
      // The provider declined the invalidation (its forced refreshes are
      // backing off after curing nothing): resending with the same keys
      // would only meet the same 403. Fail at once, naming the source.
      co_return declined_refresh(failure, *stale_error);
    }

    // S3: the payload hash signed with the request. Views, not copies: op,
    // tgt and memory_hash outlive every use below.
    std::array<char, 64> memory_hash;
    std::string_view const payload_hash = detail::payload_hash_of(op.payload_hash, req.body, memory_hash);
    auto query_params = op.query.params();
    std::string_view const path = tgt.path;
    std::string_view const sign_region = tgt.region;

    bool first_attempt = true;
    // The hooks capture one pointer each (to this lambda), so std::function
    // keeps them without a heap block.
    auto sign_attempt = [&](http::request& r, http::attempt_info const& ai) -> error {
      if (!first_attempt && op.before_retry) {
        if (auto e = op.before_retry(); e.code) return e;
      }
      first_attempt = false;
      sign_headers_.clear();
      for (std::size_t i = 0; i < r.headers.size(); ++i) {
        auto f = r.headers[i];
        using F = http::fields;
        if (F::iequals(f.name, sigv4::authorization_header) || F::iequals(f.name, sigv4::amz_date_header) ||
            F::iequals(f.name, sigv4::security_token_header) || F::iequals(f.name, sigv4::content_sha256_header) ||
            F::iequals(f.name, "Expect") || F::iequals(f.name, "Connection") || F::iequals(f.name, "User-Agent"))
          continue;
        sign_headers_.push_back({f.name, f.value});
      }
      sigv4::request_view v;
      v.method = r.method;
      v.path = path;
      v.query = query_params;
      v.headers = sign_headers_;
      v.payload_hash = payload_hash;
      sigv4::credentials_view cv{creds.access_key_id, creds.secret_access_key.reveal(), creds.session_token.reveal()};
      auto signed_ok = signer_.sign_headers(v, cv, sigv4::signing_params::s3(sign_region), now() + ai.clock_skew, sig_);
      if (!signed_ok) return signed_ok.error();
      sig_.for_each_header([&r](std::string_view n, std::string_view val) { r.headers.set(n, val); });
      return {};
    };
    req.sign = [hook = &sign_attempt](http::request& r, http::attempt_info const& ai) { return (*hook)(r, ai); };

    auto facts_of = [&](http::response const& rs) {
      errors::reply_facts f;
      f.status = rs.status;
      f.method = op.method;
      f.is_conditional_write = op.conditional_write;
      f.if_match = op.if_match;
      f.is_conditional_read = op.conditional_read;
      f.credentials_refreshable = refreshable;
      f.clock_skew = retry::skew_from_date(rs.headers.get("Date"), now());
      f.has_bucket_region = rs.headers.contains("x-amz-bucket-region");
      return f;
    };
    auto classify_reply = [&](http::response const& rs) -> errors::kind {
      // S3: CompleteMultipartUpload, CopyObject and DeleteObjects can answer
      // 200 with an <Error> body; describe_reply reads it.
      if (rs.status / 100 == 2 && !op.may_200_error) return errors::kind::success;
      if (rs.status == 304 && op.conditional_read) return errors::kind::success;
      return errors::describe_reply(facts_of(rs), rs.body, {}).what.outcome;
    };
    req.classify = [hook = &classify_reply](http::request const&, http::response const& rs) { return (*hook)(rs); };

    auto reply_error = [&](error& out) {
      auto const resource = op.resource();
      errors::reply_ids ids;
      ids.request_id = res.headers.get("x-amz-request-id");
      ids.host_id = res.headers.get("x-amz-id-2");
      ids.operation = op.operation;
      ids.resource = resource;
      ids.attempt = res.attempts;
      auto report = errors::describe_reply(facts_of(res), res.body, ids);
      if (!report.err.code) report.err.code = errc::service_error;  // never a silent success
      // Ceph sends SignatureDoesNotMatch with an empty message; say what to check.
      if (report.err.diag.code == "SignatureDoesNotMatch" && report.err.diag.message.empty()) {
        report.err.diag.message = "the store computed another signature for this request: check the secret access key";
        if (!creds.source.empty()) report.err.diag.message += " (credentials from " + creds.source + ")";
      }
      if (res.retry_stop == errc::unknown_outcome) report.err.code = errc::unknown_outcome;
      out = std::move(report.err);
    };

    res.clear();
    // The HTTP exchange runs as a plain call on this coroutine's stack, not
    // as an operation of its own (co_spawn): no second coroutine thread, its
    // frames and completion hop per request. It shares this operation's
    // cancellation state (terminal cancellation, as async_send's own). It
    // turns thrown-if-cancelled off for itself; that is put back after.
    bool const throw_if_cancelled = co_await asio::this_coro::throw_if_cancelled();
    try {
      co_await http::detail::run_send_into(http_, ep, req, res, failure);
    } catch (...) {
      failure = http::detail::error_from_exception(std::current_exception());
    }
    co_await asio::this_coro::throw_if_cancelled(throw_if_cancelled);
    if (failure.code) co_return detail::add_context(failure, op);
    if (res.kind == errors::kind::success) {
      // A 403 that fresh credentials cured: the provider's forced-refresh
      // back-off can reset.
      if (auth_retried && creds.generation != stale_generation) provider_->confirm(creds.generation);
      co_return;
    }

    bool const can_resend = req.body.replayable();
    if (res.kind == errors::kind::stale_credentials && refreshable && !auth_retried && can_resend) {
      // The generation that signed this is bad; the next get waits for a
      // fetch started after this point. Once per operation, outside the
      // retry quota and with no back-off timer.
      stale_generation = creds.generation;
      stale_error = std::make_unique<error>();
      reply_error(*stale_error);
      provider_->invalidate(creds.generation);
      auth_retried = true;
      continue;
    }
    if (res.kind == errors::kind::redirect && !redirected && can_resend && follow_region(op, res, sign_region)) {
      redirected = true;  // S3: once, to the region the reply named
      continue;
    }
    co_return reply_error(failure);
  }
}

}  // namespace floe::s3
