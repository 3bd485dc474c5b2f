#pragma once
// The transfers: streamed GetObject (a download to a file, or to a write
// function) that resumes a broken body pinned to the version first seen,
// and the upload of a file, in parts above the multipart threshold
// (uploads.ipp, included at the end; the parts also serve a multipart copy,
// copy.ipp). The download's local file is detail/out_file.hpp.
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

}  // namespace floe::s3

// The upload in parts.
#include <floe/s3/impl/uploads.ipp>
