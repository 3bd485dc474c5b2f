#pragma once
#include <floe/s3/detail/trailer_body.hpp>

#include <string_view>

namespace floe::s3::detail {

FLOE_DECL http::body_source stream_trailer_body(std::shared_ptr<trailer_state> const& s) {
  auto const encoded = sigv4::aws_chunked_length(s->length, trailer_chunk, s->alg);
  s->enc.emplace(s->length, trailer_chunk, s->alg);
  // Each call frames the next piece, pulling payload bytes from the stream;
  // a stream that ends before its length is an error, not a short body.
  auto read = [s](std::span<char> dst, boost::system::error_code& ec) -> std::size_t {
    auto const n = s->enc->next(dst, [&](std::span<char> d) -> std::size_t {
      if (ec) return 0;
      auto const got = s->source(d, ec);
      s->pos += got;
      return got;
    });
    if (n == 0 && !s->enc->done() && !ec) ec = make_error_code(errc::invalid_argument);
    return n;
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
