#pragma once
// The object operations: HeadObject, GetObject into memory, PutObject of one
// body, DeleteObject and DeleteObjects. HEAD, the in-memory GET and the PUT
// are the hot path: each leases a warm exchange and keeps its coroutine
// frame small (see detail/operation.hpp, op_scratch).
#include <floe/s3/client.hpp>

#include <floe/http/restartable_body.hpp>
#include <floe/s3/detail/exchange_pool.hpp>
#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/reply_decoding.hpp>
#include <floe/s3/detail/request_building.hpp>
#include <floe/s3/detail/trailer_body.hpp>
#include <floe/s3/detail/upload_checksum.hpp>
#include <floe/s3/detail/verification.hpp>

namespace floe::s3 {

FLOE_DECL boost::asio::awaitable<result<get_result>> client::do_head(std::string const& bucket, std::string const& key,
                                                                      read_conditions const& c) {
  detail::exchange_lease x(spare_exchanges_);
  detail::op_spec op;
  detail::read_op(op, "HeadObject", "HEAD", bucket, key, c);
  detail::set_read_conditions(x.req(), c);
  detail::ask_checksums(x.req().headers);  // object_info::checksums
  co_await perform(op, x.req(), x.res(), x.scratch());
  if (x.scratch().failure.code) co_return std::move(x.scratch().failure);
  co_return detail::reply_result(x.res());
}

// GetObject into memory. Kept apart from the streamed do_get (its resumes
// and file handling) so that its coroutine frame stays small: this is the
// hot path of a service reading small objects.
FLOE_DECL boost::asio::awaitable<result<get_result>> client::do_get_memory(std::string const& bucket,
                                                                            std::string const& key, get_params const& p) {
  detail::exchange_lease x(spare_exchanges_);
  detail::op_spec op;
  detail::read_op(op, "GetObject", "GET", bucket, key, p.conditions);
  op.set_deadline(p.deadline);
  if (detail::backwards(p)) co_return detail::invalid(op.operation, op.resource(), "range end before its start");
  std::uint64_t const start = p.range ? p.range->first : 0;
  bool const validate = detail::validating(p.checksum_validation, cfg_.response_checksum_validation);
  // A body that does not match its checksum reached nobody yet: the GET is
  // tried once more before it fails (corruption in transit).
  for (bool again = false;; again = true) {
    x.req().clear();
    detail::set_read_headers(x.req(), p, p.range.has_value(), start, {}, true);
    if (validate) detail::ask_checksums(x.req().headers);
    co_await perform(op, x.req(), x.res(), x.scratch());
    if (x.scratch().failure.code) co_return std::move(x.scratch().failure);
    if (detail::memory_get_wrong(x.res(), p.range.has_value(), start))
      co_return detail::memory_get_error(op, x.res(), p.range.has_value(), start);
    if (!validate || detail::memory_body_matches(x.res(), !p.range.has_value())) break;
    if (again) co_return detail::checksum_failed(op, x.res(), detail::memory_body_mismatch(x.res(), true), true);
  }
  co_return detail::reply_result(x.res());
}

FLOE_DECL boost::asio::awaitable<result<put_result>> client::do_put(std::string const& bucket, std::string const& key,
                                                                     http::body_source const& body, put_params const& p) {
  detail::op_spec op;
  op.operation = "PutObject";
  op.method = "PUT";
  op.bucket = bucket;
  op.key = key;
  if (body.size() > cfg_.max_single_put)
    co_return detail::invalid(op.operation, op.resource(),
                              "a single PUT takes at most " + std::to_string(cfg_.max_single_put) +
                                  " bytes (client_config::max_single_put); use async_upload_file");
  if (!p.if_none_match.empty() && p.if_none_match != "*")
    co_return detail::invalid(op.operation, op.resource(),
                              "if_none_match on a write accepts only \"*\" (create only), got \"" + p.if_none_match + "\"");
  if (auto why = detail::write_options_problem(p.write); !why.empty())
    co_return detail::invalid(op.operation, op.resource(), std::move(why));
  auto const alg = detail::upload_algorithm(p, cfg_);
  if (alg && body.type() == http::body_source::kind::stream && body.size() > 0 &&
      !quirks_->refuses_trailer(store_key())) {
    // A caller's stream is read once: its checksum can only follow it, in
    // the trailer form, computed as the bytes are read.
    auto tried = co_await do_put_trailer(op, body, p, *alg);
    if (tried) co_return std::move(*tried);
  }
  // The header form: the checksum goes before the body. A memory body is
  // hashed where it lies, a file body in a first pass (see
  // detail/upload_checksum.hpp): one request per file on every store, and a
  // file changed after that pass is refused by the store rather than kept
  // under the checksum of its new bytes. A stream the store refused to take
  // in the trailer form (before a byte of it was read) goes without one.
  std::optional<checksum::digest> sum;
  if (alg && body.type() != http::body_source::kind::stream) {
    if (body.type() == http::body_source::kind::file) {
      auto d = co_await detail::hash_file(body.path(), body.offset(), body.size(), *alg);
      if (!d) co_return detail::with_context(std::move(d.error()), op);
      sum = *d;
    } else {
      sum = checksum::hasher::of(*alg, body.bytes());
    }
  }
  detail::exchange_lease x(spare_exchanges_);
  http::request& req = x.req();
  http::response& res = x.res();
  detail::set_object_headers(req, p);
  if (sum) detail::set_checksum_headers(req.headers, *sum);
  detail::set_write_conditions(req, op, p.if_match, p.if_match_unquoted, p.if_none_match);
  if (!req.headers.valid())
    co_return detail::invalid(op.operation, op.resource(), "a header value (content type or metadata) has CR, LF or NUL");
  req.body = body;
  if (p.on_progress) req.on_body_sent = p.on_progress;
  co_await perform(op, req, res, x.scratch());
  if (x.scratch().failure.code) co_return std::move(x.scratch().failure);
  auto out = detail::put_result_from(res);
  if (sum) {
    out.checksum = sum->base64();
    out.checksum_algorithm = sum->alg;
    out.checksum_form = "header";
  }
  co_return out;
}

// One PutObject of a caller's stream in the trailer form; nullopt when the
// store refused the form itself before a byte of the stream was read
// (learned for the session: the caller goes on without a checksum). A
// stream refused after a byte of it was read cannot go again: that refusal
// is the answer (a restartable stream can: it goes on as one refused first).
FLOE_DECL boost::asio::awaitable<std::optional<result<put_result>>> client::do_put_trailer(detail::op_spec& op,
                                                                                        http::body_source const& body,
                                                                                        put_params const& p,
                                                                                        checksum::algorithm alg) {
  auto st = std::make_shared<detail::trailer_state>();
  st->length = body.size();
  st->chunk = detail::trailer_chunk_for(cfg_.http.io_chunk);
  st->alg = alg;
  detail::exchange_lease x(spare_exchanges_);
  http::request& req = x.req();
  http::response& res = x.res();
  // A restartable stream (http/restartable_body.hpp) stays one in this
  // form: each attempt (and each put of the same body, as
  // async_put_conditional may make) reads and hashes it from its start.
  auto const* restart = http::restartable_of(body);
  auto attempts = std::make_shared<detail::trailer_attempts>();
  if (restart) {
    req.body = detail::restartable_trailer_body(restart->start, body.size(), st->chunk, alg, attempts);
  } else {
    st->source = body.reader();
    req.body = detail::stream_trailer_body(st);
  }
  detail::set_object_headers(req, p);
  detail::set_trailer_headers(req.headers, alg, body.size());
  detail::set_write_conditions(req, op, p.if_match, p.if_match_unquoted, p.if_none_match);
  if (!req.headers.valid())
    co_return detail::invalid(op.operation, op.resource(), "a header value (content type or metadata) has CR, LF or NUL");
  if (p.on_progress) req.on_body_sent = p.on_progress;
  op.payload_hash = sigv4::streaming_unsigned_payload_trailer;
  // A refusal of the form (Ceph RGW 16.2's XAmzContentSHA256Mismatch, a
  // retryable code for a hashed body) is not tried again in this form: the
  // store said it takes none.
  op.before_retry = [&res]() -> error { return detail::trailer_refused_before_retry(res); };
  co_await perform(op, req, res, x.scratch());
  op.payload_hash.clear();
  op.before_retry = nullptr;
  if (auto& e = x.scratch().failure; e.code) {
    if (!detail::refuses_trailer(e)) co_return std::move(e);
    quirks_->set_refuses_trailer(store_key());
    if (st->pos > 0 && !restart) {
      // Ceph RGW 16.2 reads the body before it refuses: the stream is gone
      // (a restartable one starts again, without a checksum as any stream).
      error gone = std::move(e);
      gone.code = make_error_code(errc::unsupported);
      gone.diag.message =
          "the store refused the aws-chunked trailer form after the stream was read (it cannot be sent again); "
          "later streams to this store go without a checksum: send this one again";
      co_return detail::with_context(std::move(gone), op);
    }
    co_return std::nullopt;
  }
  auto out = detail::put_result_from(res);
  out.checksum = (restart ? attempts->latest : st)->enc->value().base64();
  out.checksum_algorithm = alg;
  out.checksum_form = "trailer";
  co_return out;
}

FLOE_DECL std::string client::store_key() const {
  if (addressing_.custom_endpoint) {
    auto const& e = *addressing_.custom_endpoint;
    return e.scheme + "://" + e.authority() + e.base_path;
  }
  return "aws:" + addressing_.region;
}

FLOE_DECL boost::asio::awaitable<result<void>> client::do_delete(std::string const& bucket, std::string const& key,
                                                                   delete_params const& p) {
  detail::op_spec op;
  op.operation = "DeleteObject";
  op.method = "DELETE";
  op.bucket = bucket;
  op.key = key;
  http::request req;
  detail::set_write_conditions(req, op, p.if_match, p.if_match_unquoted, {});
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) co_return e;
  co_return result<void>{};
}

FLOE_DECL boost::asio::awaitable<result<delete_objects_result>> client::do_delete_objects(std::string const& bucket,
                                                                                          std::vector<std::string>& keys) {
  delete_objects_result all;
  std::vector<std::string> batch;
  std::vector<std::string> singles;  // keys XML cannot carry
  std::size_t i = 0;
  while (i < keys.size()) {
    detail::next_delete_batch(keys, i, batch, singles);
    if (batch.empty()) continue;
    auto body = build_delete_objects_body(batch, true);
    if (!body) co_return body.error();
    detail::op_spec op;
    op.operation = "DeleteObjects";
    op.method = "POST";
    op.bucket = bucket;
    op.query.add_flag("delete");
    op.may_200_error = true;
    http::request req;
    req.headers.set("Content-Type", "application/xml");
    req.headers.set("Content-MD5", detail::md5_base64(*body));
    req.body = http::body_source::memory(*body);
    http::response res;
    auto e = co_await execute(op, req, res);
    auto parsed = e.code ? result<delete_objects_result>(std::move(e)) : parse_delete_objects(res.body);
    if (!parsed) {
      auto err = detail::with_context(parsed.error(), op);
      // The first request: nothing was done, a plain error. Later: what the
      // earlier batches did is kept, with the error and the keys left over.
      if (all.deleted.empty() && all.errors.empty()) co_return err;
      detail::stop_deleting(all, std::move(err), batch, keys, i, singles);
      co_return all;
    }
    // Quiet mode lists only failures: the rest of the batch was deleted.
    detail::merge_delete_batch(all, batch, *parsed);
  }
  for (auto& k : singles) {
    delete_params none;
    auto r = co_await do_delete(bucket, k, none);
    if (r) all.deleted.push_back(std::move(k));
    else all.errors.push_back({std::move(k), r.error().diag.code, r.error().what()});
  }
  co_return all;
}

}  // namespace floe::s3
