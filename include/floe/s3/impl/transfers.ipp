#pragma once
// The transfers: streamed GetObject (a download to a file, or to a write
// function) that resumes a broken body pinned to the version first seen,
// and the upload of a file, in parts above the multipart threshold (the
// parts also serve a multipart copy, copy.ipp). The download's local file is
// detail/out_file.hpp.
#include <floe/s3/client.hpp>

#include <floe/s3/detail/download_check.hpp>
#include <floe/s3/detail/exchange_pool.hpp>
#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/out_file.hpp>
#include <floe/s3/detail/reply_decoding.hpp>
#include <floe/s3/detail/request_building.hpp>
#include <floe/s3/detail/upload_checksum.hpp>
#include <floe/s3/detail/verification.hpp>
#include <floe/s3/store_support.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>

namespace floe::s3 {

// A streamed GetObject (a download to a file, or to a write function):
// resumes a transfer that broke after delivering bytes, pinned to the
// version first seen. Every reply is checked before its body is delivered
// (detail/download_check.hpp) and the whole is checked at the end: a
// download that does not add up to the object fails, and its file is not
// put in place. Its bytes are verified (detail/verification.hpp) as they
// reach the sink, in order across resumes; a mismatch in a download to a
// temporary file is tried once more from the start (nothing reached the
// caller), else it ends with errc::checksum_mismatch.
FLOE_DECL boost::asio::awaitable<result<get_result>> client::do_get(std::string const& bucket, std::string const& key,
                                                                     get_params const& p, std::string const* path,
                                                                     http::body_sink::write_fn const* write) {
  detail::op_spec op;
  detail::read_op(op, "GetObject", "GET", bucket, key, p.conditions);
  op.set_deadline(p.deadline);
  detail::out_file file;
  if (path != nullptr && !file.open(*path)) {
    co_return detail::invalid(op.operation, op.resource(),
                              "cannot open " + *path + " for writing: " + std::strerror(errno));
  }

  if (detail::backwards(p)) co_return detail::invalid(op.operation, op.resource(), "range end before its start");
  std::uint64_t const first = p.range ? p.range->first : 0;
  std::uint64_t received = 0;  // bytes delivered to the sink over all attempts
  std::string etag;            // the version being read, pinned after the first reply
  detail::download_check check(p.range);
  bool const validate = detail::validating(p.checksum_validation, cfg_.response_checksum_validation);
  detail::body_verifier verifier;
  bool tried_again = false;    // a mismatch was met and the GET started over
  std::string refused;         // why a reply may not continue the download
  unsigned attempts = 0;       // over every resume
  get_result out;
  detail::exchange_lease x(spare_exchanges_);
  http::response& res = x.res();
  for (;;) {
    http::request& req = x.req();
    req.clear();
    bool const ranged = p.range || received > 0;
    std::uint64_t const start = first + received;
    // After a break, pin the version first seen: never splice two versions.
    detail::set_read_headers(req, p, ranged, start, etag, received == 0);
    if (validate) detail::ask_checksums(req.headers);
    bool first_piece = true;
    std::uint64_t const received_before = received;
    op.before_retry = [&received, received_before]() -> error {
      if (received == received_before) return {};
      return error(errc::body_not_replayable, "the reply broke after part of the body was delivered");
    };
    req.sink = http::body_sink::stream([&](std::string_view piece, boost::system::error_code& ec) {
      if (first_piece) {
        first_piece = false;
        refused = check.accept(detail::body_facts(res), ranged, received);
        if (!refused.empty()) {
          ec = make_error_code(errc::malformed_reply);
          return;
        }
        // The first reply says what the whole must match; a resume goes on.
        if (validate && !verifier.started()) verifier.start(detail::expected_of(res.headers, !p.range && res.status == 200));
      }
      if (etag.empty()) etag = std::string(normalize_etag(res.headers.get("ETag")));
      if (file.fd >= 0) {
        std::uint64_t const before = received;
        if (int const failed = file.write(piece, received)) ec = {failed, boost::system::system_category()};
        verifier.update(piece.substr(0, static_cast<std::size_t>(received - before)));
      } else {
        (*write)(piece, ec);
        if (!ec) {
          received += piece.size();
          verifier.update(piece);
        }
      }
    });
    auto e = co_await execute(op, req, res);
    attempts += std::max(1u, res.attempts);
    if (!refused.empty()) co_return detail::download_refused(op, res, std::move(refused));
    if (!e.code) {
      // A reply whose body was empty never reached the sink: its head is
      // checked here (a 304 to the first request is the caller's copy being
      // current).
      bool const not_modified = res.status == 304 && received == 0 && !p.conditions.if_none_match.empty();
      if (!not_modified) {
        if (first_piece) refused = check.accept(detail::body_facts(res), ranged, received);
        if (refused.empty()) refused = check.complete(received);
        if (!refused.empty()) co_return detail::download_refused(op, res, std::move(refused));
        if (validate && !verifier.started()) verifier.start(detail::expected_of(res.headers, !p.range && res.status == 200));
        if (auto bad = verifier.mismatch(); !bad.empty()) {
          // Corruption in transit: where nothing reached the caller (a
          // temporary file), once more from the first byte.
          if (!tried_again && file.rewind()) {
            tried_again = true;
            received = 0;
            etag.clear();
            check = detail::download_check(p.range);
            verifier.reset();
            continue;
          }
          co_return detail::checksum_failed(op, res, std::move(bad), tried_again);
        }
      }
      break;
    }
    // Resume a stream that broke after delivering bytes; anything else is final.
    bool const broken_mid_body = received > 0 && !etag.empty() && (res.status == 0 || res.status / 100 == 2) &&
                                 e.code != boost::asio::error::operation_aborted && out.resumes < cfg_.max_resumes;
    if (!broken_mid_body) {
      if (received > 0 && e.code == errc::precondition_failed) {
        e.diag.message = "the object changed during the download (ETag no longer " + etag +
                         "); the partial data was not completed with another version";
      }
      if (out.resumes > 0) detail::after_resumes(e, attempts, out.resumes);
      co_return e;
    }
    ++out.resumes;
  }
  out.not_modified = res.status == 304;
  detail::fill_info(res, out.info);
  if (auto total = check.total()) out.info.size = *total;  // the size the first reply announced
  if (!out.info.etag.empty() && !etag.empty() && out.info.etag != etag) out.info.etag = etag;
  if (file.fd >= 0) {
    if (out.not_modified) {
      file.discard();  // the caller's copy is current: keep it
    } else if (auto failed = file.commit(); !failed.empty()) {
      co_return detail::invalid(op.operation, op.resource(), "cannot write the download: " + failed);
    }
  }
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<put_result>> client::do_upload_file(std::string const& bucket, std::string const& key,
                                                                             std::string const& path, put_params const& p) {
  struct stat st {};
  errno = 0;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    co_return detail::invalid("PutObject", bucket + "/" + key,
                              "cannot read " + path + ": " + (errno ? std::strerror(errno) : "not a regular file"));
  }
  auto const size = static_cast<std::uint64_t>(st.st_size);
  bool const conditional = !p.if_match.empty() || !p.if_none_match.empty();
  if (conditional) {
    // One PUT while one PUT can take it: moto and Ceph RGW 16.2 ignore a
    // condition on CompleteMultipartUpload and would replace the object
    // whatever its ETag. Above that, only where the store is known to honour
    // it there; elsewhere refused before anything is sent.
    switch (plan_conditional_upload(size, cfg_.max_single_put, addressing_)) {
      case conditional_upload_plan::single_put: {
        auto body = http::body_source::file(path, 0, size);
        co_return co_await do_put(bucket, key, body, p);
      }
      case conditional_upload_plan::condition_on_complete:
        co_return co_await do_multipart(bucket, key, path, size, p);
      case conditional_upload_plan::refuse:
        co_return detail::conditional_upload_refused(bucket, key, size, cfg_.max_single_put, p);
    }
  }
  if (detail::goes_as_one_put(size, cfg_)) {
    auto body = http::body_source::file(path, 0, size);
    co_return co_await do_put(bucket, key, body, p);
  }
  co_return co_await do_multipart(bucket, key, path, size, p);
}

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
      http::request req;
      if (copy) {
        detail::set_part_copy(op, req, *copy, copy_etag, off, len);
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
        if (p.on_progress) {
          req.on_body_sent = [&part_sent, &total_sent, &p, i](std::uint64_t n) {
            total_sent = total_sent - part_sent[i] + n;  // a retried part starts again from 0
            part_sent[i] = n;
            p.on_progress(total_sent);
          };
        }
      }
      http::response res;
      auto e = co_await execute(op, req, res);
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
