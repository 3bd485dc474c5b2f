#pragma once
// The upload of a file in parts (and a multipart copy's parts, copy.ipp):
// CreateMultipartUpload, the parts a few at a time, each with its checksum
// (the aws-chunked trailer form where the store takes it, else the header
// form), CompleteMultipartUpload with the whole object's, and the abort of
// an upload that failed. Included by transfers.ipp.
#include <floe/s3/client.hpp>

#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/reply_decoding.hpp>
#include <floe/s3/detail/request_building.hpp>
#include <floe/s3/detail/trailer_body.hpp>
#include <floe/s3/detail/upload_checksum.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>

namespace floe::s3 {

namespace detail {
// The parts as a completion without their checksums names them.
inline std::vector<completed_part> without_checksums(std::vector<completed_part> parts) {
  for (auto& p : parts) p.checksum.clear();
  return parts;
}
}  // namespace detail

// The abort outlives the operation that failed (it runs detached, so that
// it also happens after a cancellation), and the caller may destroy this
// client as soon as the upload has returned. So it runs on a client of its
// own, made from this one's configuration (same executor, credentials
// provider, addressing, store quirks, learned clock skew and bucket
// region) and owned by the abort's coroutine: it uses nothing of this
// client. Tracking the abort and cancelling it from ~client would not do:
// a cancelled coroutine still has to run to its end on the executor, after
// the client's memory is gone, and ~client cannot wait for it. The cost is
// a connection of its own, on a path taken only after a failure.
FLOE_DECL void client::abort_detached(std::string const& bucket, std::string const& key, std::string const& upload_id) {
  namespace asio = boost::asio;
  std::shared_ptr<client> own;
  try {
    own.reset(new client(get_executor(), cfg_, addressing_, provider_));
    own->quirks_ = quirks_;
    own->http_.set_clock_skew(http_.clock_skew());
    if (auto region = regions_.lookup(bucket)) own->regions_.remember(bucket, *region);
    auto ex = own->get_executor();
    asio::co_spawn(
        ex, [own = std::move(own), b = bucket, k = key, u = upload_id]() { return own->abort_multipart(b, k, u); },
        asio::detached);
  } catch (std::exception const&) {
    // Best effort, as the abort itself: making the client may fail (memory,
    // a TLS context), and that must not turn the upload's own error into an
    // exception. A lifecycle rule cleans up what this misses.
  }
}

FLOE_DECL boost::asio::awaitable<void> client::abort_multipart(std::string const& bucket, std::string const& key,
                                                                std::string const& upload_id) {
  detail::op_spec op;
  op.operation = "AbortMultipartUpload";
  op.method = "DELETE";
  op.bucket = bucket;
  op.key = key;
  op.query.add("uploadId", upload_id);
  http::request req;
  http::response res;
  (void)co_await execute(op, req, res);  // best effort: a lifecycle rule cleans up what this misses
}

FLOE_DECL boost::asio::awaitable<result<put_result>> client::do_multipart(std::string const& bucket, std::string const& key,
                                                                           std::string const& path, std::uint64_t size,
                                                                           put_params const& p, copy_params const* copy,
                                                                           std::string const* copy_etag) {
  namespace asio = boost::asio;
  if (!p.if_none_match.empty() && p.if_none_match != "*")
    co_return detail::invalid("CreateMultipartUpload", bucket + "/" + key,
                              "if_none_match on a write accepts only \"*\" (create only)");
  if (auto why = detail::write_options_problem(p.write); !why.empty())
    co_return detail::invalid("CreateMultipartUpload", bucket + "/" + key, std::move(why));
  auto ex = co_await asio::this_coro::executor;
  // Each part carries its checksum and the whole object's goes on the
  // completion (a copy's parts are the store's own bytes: none).
  auto const alg = copy ? std::nullopt : detail::upload_algorithm(p, cfg_);
  std::string upload_id;
  {
    detail::op_spec op;
    op.operation = "CreateMultipartUpload";
    op.method = "POST";
    op.bucket = bucket;
    op.key = key;
    op.query.add_flag("uploads");
    http::request req;
    detail::set_object_headers(req, p);
    if (alg) detail::set_multipart_checksum(req.headers, *alg);
    if (!req.headers.valid())
      co_return detail::invalid(op.operation, op.resource(), "a header value (content type or metadata) has CR, LF or NUL");
    http::response res;
    // A cancellation (a Ctrl-C) while the create is in flight would leave
    // an upload on the store whose id nobody learns, billed until a
    // lifecycle rule ends it: the create is shielded from cancellation, and
    // a cancellation that came meanwhile aborts the id it returned.
    auto create = execute(op, req, res);
    auto shielded = asio::bind_cancellation_slot(asio::cancellation_slot(), asio::use_awaitable);
    auto e = co_await asio::co_spawn(ex, std::move(create), std::move(shielded));
    if (e.code) co_return e;
    auto id = parse_initiate_multipart(res.body);
    if (!id) co_return detail::with_context(id.error(), op);
    upload_id = std::move(*id);
    auto const cs = co_await asio::this_coro::cancellation_state;
    if (cs.cancelled() != asio::cancellation_type::none) {
      abort_detached(bucket, key, upload_id);
      co_return detail::with_context(error(boost::system::error_code(asio::error::operation_aborted)), op);
    }
  }

  auto const plan = detail::plan_parts(size, copy ? cfg_.copy_part_size : cfg_.part_size);
  auto const part_size = plan.part_size;
  auto const count = plan.count;
  std::vector<completed_part> parts(count);
  // Bytes sent of each part in its current attempt, and their sum.
  std::vector<std::uint64_t> part_sent(p.on_progress && !copy ? count : 0);
  std::uint64_t total_sent = 0;
  std::size_t next = 0;
  std::optional<error> failure;

  auto worker = [&]() -> asio::awaitable<void> {
    while (!failure && next < count) {
      auto const i = next++;
      auto const off = static_cast<std::uint64_t>(i) * part_size;
      auto const len = std::min(part_size, size - off);
      detail::op_spec op;
      op.operation = copy ? "UploadPartCopy" : "UploadPart";
      op.method = "PUT";
      op.bucket = bucket;
      op.key = key;
      op.query.add("partNumber", std::to_string(i + 1));
      op.query.add("uploadId", upload_id);
      http::response res;
      error e;
      if (copy) {
        http::request req;
        detail::set_part_copy(op, req, *copy, copy_etag, off, len);
        e = co_await execute(op, req, res);
      } else {
        // The trailer form where the store takes it: the part is read once,
        // framed and hashed as it goes (a restartable body: an attempt
        // sent again reads and hashes it again). Else the header form: a
        // hashing pass first, then the send. A store that refuses the
        // trailer form has it learned for the session, and the part goes
        // again in the header form.
        for (bool trailer = alg && !quirks_->refuses_trailer(store_key());; trailer = false) {
          http::request req;
          res = http::response();
          op.payload_hash.clear();
          op.before_retry = nullptr;
          std::shared_ptr<detail::trailer_attempts> sent;
          if (trailer) {
            sent = std::make_shared<detail::trailer_attempts>();
            req.body = detail::file_trailer_body(path, off, len, detail::trailer_chunk_for(cfg_.http.io_chunk), *alg,
                                                 sent);
            detail::set_trailer_headers(req.headers, *alg, len);
            op.payload_hash = sigv4::streaming_unsigned_payload_trailer;
            op.before_retry = [&res]() -> error { return detail::trailer_refused_before_retry(res); };
          } else {
            if (alg) {
              auto d = co_await detail::hash_file(path, off, len, *alg);
              if (!d) {
                if (!failure) failure = detail::with_context(std::move(d.error()), op);
                co_return;
              }
              detail::set_checksum_headers(req.headers, *d);
              parts[i].checksum = d->base64();
              parts[i].checksum_algorithm = *alg;
            }
            req.body = http::body_source::file(path, off, len);
          }
          if (p.on_progress) {
            // Framed bytes count as the payload's share of them (the framing
            // is well under 1% of a part: the product cannot overflow).
            std::uint64_t const framed = req.body.size();
            req.on_body_sent = [&part_sent, &total_sent, &p, i, len, framed](std::uint64_t n) {
              auto const payload = n >= framed ? len : n - (framed - len) * n / framed;
              total_sent = total_sent - part_sent[i] + payload;  // a retried part starts again from 0
              part_sent[i] = payload;
              p.on_progress(total_sent);
            };
          }
          e = co_await execute(op, req, res);
          op.before_retry = nullptr;
          if (e.code && trailer && detail::refuses_trailer(e)) {
            quirks_->set_refuses_trailer(store_key());
            continue;
          }
          if (!e.code && trailer) {
            parts[i].checksum = sent->latest->enc->value().base64();
            parts[i].checksum_algorithm = *alg;
          }
          break;
        }
      }
      if (e.code) {
        if (!failure) failure = std::move(e);
        co_return;
      }
      parts[i].number = static_cast<unsigned>(i + 1);
      if (copy) {
        auto cr = parse_copy_result(res.body);
        if (!cr) {
          if (!failure) failure = detail::with_context(cr.error(), op);
          co_return;
        }
        parts[i].etag = "\"" + cr->etag + "\"";
      } else {
        parts[i].etag = std::string(res.headers.get("ETag"));
        if (normalize_etag(parts[i].etag).empty()) {
          // Completing with an empty ETag would fail on the store, or worse,
          // be accepted: the part is refused here and the upload aborted.
          if (!failure) failure = detail::missing_part_etag(op, res, i + 1);
          co_return;
        }
      }
    }
  };

  auto const n = std::max<std::size_t>(1, std::min<std::size_t>(cfg_.multipart_concurrency, count));
  using op_type = decltype(asio::co_spawn(ex, worker(), asio::deferred));
  std::vector<op_type> ops;
  ops.reserve(n);
  for (std::size_t i = 0; i < n; ++i) ops.push_back(asio::co_spawn(ex, worker(), asio::deferred));
  std::exception_ptr thrown;
  try {
    auto [order, excs] = co_await asio::experimental::make_parallel_group(std::move(ops))
                             .async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    (void)order;
    for (auto& x : excs)
      if (x && !thrown) thrown = x;
  } catch (...) {
    thrown = std::current_exception();
  }
  if (thrown || failure) {
    // Detached so that it also happens when this operation was cancelled.
    abort_detached(bucket, key, upload_id);
    if (thrown) std::rethrow_exception(thrown);
    co_return std::move(*failure);
  }

  detail::op_spec op;
  op.operation = "CompleteMultipartUpload";
  op.method = "POST";
  op.bucket = bucket;
  op.key = key;
  op.query.add("uploadId", upload_id);
  op.may_200_error = true;
  http::request req;
  // Swift 2.30 refuses a completion whose parts name their checksums (400
  // MalformedXML): learned once, its completions go without them.
  bool const bare = alg && quirks_->refuses_complete_checksums(store_key());
  std::string body = bare ? build_complete_multipart_body(detail::without_checksums(parts)) : build_complete_multipart_body(parts);
  req.headers.set("Content-Type", "application/xml");
  std::optional<detail::whole_checksum> whole;
  if (alg) {
    std::vector<std::uint64_t> sizes(count);
    for (std::size_t i = 0; i < count; ++i) sizes[i] = std::min(part_size, size - i * part_size);
    auto w = detail::whole_object_checksum(*alg, parts, sizes);
    if (!w) {
      abort_detached(bucket, key, upload_id);
      co_return detail::with_context(std::move(w.error()), op);
    }
    whole = std::move(*w);
    if (!bare) detail::set_complete_checksum(req.headers, *alg, *whole);
  }
  // A condition is never dropped: it goes on the completion.
  detail::set_write_conditions(req, op, p.if_match, p.if_match_unquoted, p.if_none_match);
  req.body = http::body_source::memory(body);
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code && alg && !bare && e.diag.http_status == 400 && e.diag.code == "MalformedXML") {
    quirks_->set_refuses_complete_checksums(store_key());
    body = build_complete_multipart_body(detail::without_checksums(parts));
    req.headers.erase(checksum::header_name(*alg));
    req.headers.erase("x-amz-checksum-type");
    req.body = http::body_source::memory(body);
    e = co_await execute(op, req, res);
  }
  if (e.code) {
    if (e.code != errc::unknown_outcome) abort_detached(bucket, key, upload_id);
    co_return e;
  }
  auto done = parse_complete_multipart(res.body);
  if (!done) co_return detail::with_context(done.error(), op);
  auto out = detail::completed_upload(*done, res, parts);
  if (whole) {
    out.checksum = std::move(whole->value);
    out.checksum_algorithm = *alg;
    out.checksum_form = "header";
  }
  co_return out;
}

}  // namespace floe::s3
