#pragma once
#include <floe/s3/detail/trailer_body.hpp>

#include <floe/http/file_io.hpp>
#include <floe/http/restartable_body.hpp>

#include <algorithm>
#include <string_view>

namespace floe::s3::detail {

FLOE_DECL std::size_t framed_chunk_size(std::size_t chunk) noexcept {
  // One full chunk's share of the framed length (the trailer's cancels out).
  auto const a = checksum::algorithm::crc32;
  return static_cast<std::size_t>(sigv4::aws_chunked_length(chunk, chunk, a) - sigv4::aws_chunked_length(0, chunk, a));
}

FLOE_DECL std::size_t trailer_chunk_for(std::size_t write_size) noexcept {
  constexpr std::size_t page = 4096, least = 8u << 10;
  auto chunk = write_size / page * page;
  while (chunk > least && framed_chunk_size(chunk) > write_size) chunk -= page;
  return std::max(chunk, least);
}

// The reader framing s's payload: each call frames the next piece, pulling
// payload bytes from s->source and hashing them as they come; a source that
// ends before its length is an error, not a short body. Where dst holds a
// framed chunk or more it is cut to whole ones: a chunk's payload is then
// pulled in one piece (one read of a file, at a page-aligned offset).
FLOE_DECL http::body_source::read_fn framing_reader(std::shared_ptr<trailer_state> const& s) {
  return [s](std::span<char> dst, boost::system::error_code& ec) -> std::size_t {
    if (auto const framed = framed_chunk_size(s->chunk); dst.size() >= framed)
      dst = dst.first(dst.size() / framed * framed);
    auto const n = s->enc->next(dst, [&](std::span<char> d) -> std::size_t {
      if (ec) return 0;
      auto const got = s->source(d, ec);
      s->pos += got;
      return got;
    });
    if (n == 0 && !s->enc->done() && !ec) ec = make_error_code(errc::invalid_argument);
    return n;
  };
}

FLOE_DECL http::body_source stream_trailer_body(std::shared_ptr<trailer_state> const& s) {
  auto const encoded = sigv4::aws_chunked_length(s->length, s->chunk, s->alg);
  s->enc.emplace(s->length, s->chunk, s->alg);
  return http::body_source::stream(framing_reader(s), encoded);
}

FLOE_DECL http::body_source restartable_trailer_body(std::function<http::body_source::read_fn()> source,
                                                     std::uint64_t length, std::size_t chunk,
                                                     checksum::algorithm alg,
                                                     std::shared_ptr<trailer_attempts> const& out) {
  auto start = [source = std::move(source), length, chunk, alg, out]() -> http::body_source::read_fn {
    auto st = std::make_shared<trailer_state>();
    st->length = length;
    st->chunk = chunk;
    st->alg = alg;
    st->enc.emplace(length, chunk, alg);
    st->source = source();
    out->latest = st;
    return framing_reader(st);
  };
  return http::restartable_body(std::move(start), sigv4::aws_chunked_length(length, chunk, alg));
}

FLOE_DECL http::body_source file_trailer_body(std::string path, std::uint64_t offset, std::uint64_t length,
                                              std::size_t chunk, checksum::algorithm alg,
                                              std::shared_ptr<trailer_attempts> const& out) {
  // Each attempt opens the file and reads the region from its start.
  auto source = [path = std::move(path), offset]() -> http::body_source::read_fn {
    auto fd = std::make_shared<http::detail::unique_fd>(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    int const open_errno = fd->fd < 0 ? errno : 0;
    auto at = std::make_shared<std::uint64_t>(offset);
    return [fd, open_errno, at](std::span<char> d, boost::system::error_code& ec) -> std::size_t {
      if (fd->fd < 0) {
        ec = boost::system::error_code(open_errno, boost::system::system_category());
        return 0;
      }
      for (;;) {
        auto const n = ::pread(fd->fd, d.data(), d.size(), static_cast<off_t>(*at));
        if (n >= 0) {
          *at += static_cast<std::uint64_t>(n);
          return static_cast<std::size_t>(n);
        }
        if (errno != EINTR) {
          ec = http::detail::errno_code();
          return 0;
        }
      }
    };
  };
  return restartable_trailer_body(std::move(source), length, chunk, alg, out);
}

FLOE_DECL void set_trailer_headers(http::fields& h, checksum::algorithm a, std::uint64_t payload) {
  h.set("Content-Encoding", "aws-chunked");
  h.set("x-amz-decoded-content-length", std::to_string(payload));
  h.set("x-amz-trailer", checksum::header_name(a));
  h.set("x-amz-sdk-checksum-algorithm", checksum::s3_name(a));
}

FLOE_DECL bool refuses_trailer(error const& e) {
  auto const status = e.diag.http_status;
  if (status == 501) return true;
  if (status != 400) return false;
  if (e.diag.code == "XAmzContentSHA256Mismatch") return true;
  auto names = [](std::string_view m) {
    for (std::string_view w : {"aws-chunked", "x-amz-content-sha256", "x-amz-trailer", "x-amz-decoded-content-length",
                               "STREAMING-", "Content-Encoding", "content hash", "trailer", "Trailing checksum"})
      if (m.find(w) != std::string_view::npos) return true;
    return false;
  };
  return names(e.diag.message);
}

FLOE_DECL error trailer_refused_before_retry(http::response const& res) {
  if (res.status != 400 || res.body.find("XAmzContentSHA256Mismatch") == std::string::npos) return {};
  error e(errc::unsupported, "the store refused the aws-chunked trailer form");
  e.diag.http_status = res.status;
  e.diag.code = "XAmzContentSHA256Mismatch";
  return e;
}

}  // namespace floe::s3::detail
