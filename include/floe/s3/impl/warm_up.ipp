#pragma once
// s3::client::async_warm_up: the endpoint a bucket's requests go to, as
// the request path aims them (target_for), warmed by the http::client.
#include <floe/s3/client.hpp>

#include <floe/s3/detail/operation.hpp>

namespace floe::s3 {

FLOE_DECL boost::asio::awaitable<error> client::run_warm_up(std::string bucket, std::size_t n) {
  http::endpoint ep;
  {
    detail::op_spec op;
    op.bucket = bucket;
    request_target tgt;
    error why;
    if (!target_for(op, tgt, why)) co_return why;
    ep.tls = tgt.scheme == "https";
    ep.host = std::move(tgt.host);
    ep.port = tgt.port;
  }
  co_return co_await http::detail::run_warm_up(http_, std::move(ep), n);
}

}  // namespace floe::s3
