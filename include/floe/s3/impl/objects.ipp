#pragma once
// The object operations: HeadObject, GetObject into memory, PutObject of one
// body, DeleteObject and DeleteObjects. HEAD, the in-memory GET and the PUT
// are the hot path: each leases a warm exchange and keeps its coroutine
// frame small (see detail/operation.hpp, op_scratch).
#include <floe/s3/client.hpp>

#include <floe/s3/detail/exchange_pool.hpp>
#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/reply_decoding.hpp>
#include <floe/s3/detail/request_building.hpp>
#include <floe/s3/detail/verification.hpp>

namespace floe::s3 {

FLOE_DECL boost::asio::awaitable<result<get_result>> client::do_head(std::string const& bucket, std::string const& key,
                                                                      read_conditions const& c) {
  detail::exchange_lease x(spare_exchanges_);
  detail::op_spec op;
  detail::read_op(op, "HeadObject", "HEAD", bucket, key, c);
  detail::set_read_conditions(x.req(), c);
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
  detail::exchange_lease x(spare_exchanges_);
  http::request& req = x.req();
  http::response& res = x.res();
  detail::set_object_headers(req, p);
  detail::set_write_conditions(req, op, p.if_match, p.if_match_unquoted, p.if_none_match);
  if (!req.headers.valid())
    co_return detail::invalid(op.operation, op.resource(), "a header value (content type or metadata) has CR, LF or NUL");
  req.body = body;
  if (p.on_progress) req.on_body_sent = p.on_progress;
  co_await perform(op, req, res, x.scratch());
  if (x.scratch().failure.code) co_return std::move(x.scratch().failure);
  co_return detail::put_result_from(res);
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
