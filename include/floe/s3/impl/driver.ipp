#pragma once
// S3's part of the request path: one S3 request from its description
// (op_spec) to the service driver (service/driver.hpp), which asks the
// credentials provider, signs every attempt, sends, retries, classifies and
// describes the reply and heals a stale-credentials 403 once. What is S3's
// own is here: where a request goes (target_for, aim; address_request in
// detail/request_building.hpp), the payload hash (payload_hash_of, ibid.),
// the region redirect (follow_region, followed once through the driver's
// hook), the 200 that carries <Error> (op_spec::may_200_error) and a
// streamed GET's refusal to start over (op_spec::before_retry).
#include <floe/s3/client.hpp>

#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/request_building.hpp>


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

// Points the request at its target: the endpoint, the signed path and
// region, the Host header.
FLOE_DECL bool client::aim(detail::op_spec const& op, http::request& req, detail::op_scratch& s, error& why) {
  if (!target_for(op, s.tgt, why)) return false;
  detail::address_request(op, s.tgt, s.ep, req);
  s.spec.ep = &s.ep;
  s.spec.region = s.tgt.region;
  s.spec.path = s.tgt.path;
  return true;
}

FLOE_DECL error detail::op_scratch::before_resend(service::request_spec&, http::request&) {
  return op->before_retry ? op->before_retry() : error();
}

FLOE_DECL bool detail::op_scratch::follow_redirect(service::request_spec&, http::request& req,
                                                    http::response const& res) {
  if (!owner->follow_region(*op, res, spec.region)) return false;
  error why;
  return owner->aim(*op, req, *this, why);
}

FLOE_DECL void detail::op_scratch::describe(error& e, http::response const&, credentials::credentials const* signer) {
  // Ceph sends SignatureDoesNotMatch with an empty message; say what to check.
  if (e.diag.code == "SignatureDoesNotMatch" && e.diag.message.empty()) {
    e.diag.message = "the store computed another signature for this request: check the secret access key";
    if (signer && !signer->source.empty()) e.diag.message += " (credentials from " + signer->source + ")";
  }
}

FLOE_DECL boost::asio::awaitable<error> client::execute(detail::op_spec& op, http::request& req,
                                                         http::response& res) {
  detail::op_scratch s;  // off the hot path: a bigger frame is fine here
  co_await perform(op, req, res, s);
  co_return std::move(s.failure);
}

FLOE_DECL boost::asio::awaitable<void> client::perform(detail::op_spec& op, http::request& req, http::response& res,
                                                       detail::op_scratch& s) {
  // The request's description goes to the driver in `s` (kept with the
  // pooled exchange): this frame holds only references.
  error& failure = s.failure;
  failure.clear();
  if (!describe_request(op, req, s, failure)) co_return detail::add_context(failure, op);
  co_await driver_.run(s.spec, req, res, failure);
  if (failure.code) detail::add_context(failure, op);
}

FLOE_DECL bool client::describe_request(detail::op_spec& op, http::request& req, detail::op_scratch& s, error& why) {
  s.owner = this;
  s.op = &op;
  // S3: where the request goes (the bucket's region, once learned).
  if (!aim(op, req, s, why)) return false;
  s.resource.assign(op.bucket);
  if (op.key) {
    s.resource += '/';
    s.resource += *op.key;
  }
  s.query = op.query.params();
  service::request_spec& spec = s.spec;
  spec.operation = op.operation;
  spec.resource = s.resource;
  spec.query = s.query;
  // S3: the payload hash signed with the request.
  spec.payload_hash = detail::payload_hash_of(op.payload_hash, req.body, s.memory_hash);
  spec.signs = true;
  spec.fixed = nullptr;
  spec.conditional_read = op.conditional_read;
  spec.if_match = op.if_match;
  spec.may_200_error = op.may_200_error;  // S3: Complete, Copy, DeleteObjects may answer 200 with <Error>
  spec.hooks = &s;
  spec.hedgeable = op.hedgeable;
  spec.sized_reply = op.hedgeable && op.operation == "GetObject";  // its hedge delay per size band
  spec.deadline = op.deadline;
  spec.budget = op.budget;
  return true;
}

}  // namespace floe::s3
