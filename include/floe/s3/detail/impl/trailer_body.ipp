#pragma once
#include <floe/s3/detail/trailer_body.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

namespace floe::s3::detail {

FLOE_DECL trailer_state::~trailer_state() {
  if (fd >= 0) ::close(fd);
}

namespace trailer_impl {

// The framed bytes of the next piece into dst, pulling payload bytes from
// `pull` (which reads the file or the caller's stream).
template <class Pull>
std::size_t frame_into(trailer_state& s, std::span<char> dst, boost::system::error_code& ec, Pull&& pull) {
  auto const n = s.enc->next(dst, [&](std::span<char> d) -> std::size_t {
    if (ec) return 0;
    auto const got = pull(d, ec);
    s.pos += got;
    return got;
  });
  if (n == 0 && !s.enc->done() && !ec) ec = make_error_code(errc::invalid_argument);
  return n;
}

}  // namespace trailer_impl

FLOE_DECL http::body_source file_trailer_body(std::shared_ptr<trailer_state> const& s) {
  auto const encoded = sigv4::aws_chunked_length(s->length, trailer_chunk, s->alg);
  auto restart = [s]() {
    s->enc.emplace(s->length, trailer_chunk, s->alg);
    s->pos = 0;
    if (s->fd < 0) s->fd = ::open(s->path.c_str(), O_RDONLY | O_CLOEXEC);
  };
  auto read = [s](std::span<char> dst, boost::system::error_code& ec) -> std::size_t {
    if (s->fd < 0) {
      ec = boost::system::error_code(errno ? errno : ENOENT, boost::system::system_category());
      return 0;
    }
    return trailer_impl::frame_into(*s, dst, ec, [&s](std::span<char> d, boost::system::error_code& e) -> std::size_t {
      for (;;) {
        auto const n = ::pread(s->fd, d.data(), d.size(), static_cast<off_t>(s->offset + s->pos));
        if (n >= 0) return static_cast<std::size_t>(n);  // 0: the file is shorter: the encoder stops
        if (errno == EINTR) continue;
        e = boost::system::error_code(errno, boost::system::system_category());
        return 0;
      }
    });
  };
  return http::body_source::restartable_stream(std::move(read), std::move(restart), encoded);
}

FLOE_DECL http::body_source stream_trailer_body(std::shared_ptr<trailer_state> const& s) {
  auto const encoded = sigv4::aws_chunked_length(s->length, trailer_chunk, s->alg);
  s->enc.emplace(s->length, trailer_chunk, s->alg);
  auto read = [s](std::span<char> dst, boost::system::error_code& ec) -> std::size_t {
    return trailer_impl::frame_into(*s, dst, ec, [&s](std::span<char> d, boost::system::error_code& e) {
      return s->source(d, e);
    });
  };
  return http::body_source::stream(std::move(read), encoded);
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
                               "STREAMING-", "Content-Encoding", "content hash", "trailer"})
      if (m.find(w) != std::string_view::npos) return true;
    return false;
  };
  return names(e.diag.message);
}

}  // namespace floe::s3::detail
