#pragma once
// CreateBucket (with a LocationConstraint outside us-east-1) and
// DeleteBucket.
#include <floe/s3/client.hpp>

#include <floe/s3/detail/operation.hpp>
#include <floe/s3/detail/request_building.hpp>

namespace floe::s3 {

FLOE_DECL boost::asio::awaitable<result<void>> client::do_bucket(std::string const& bucket, bool create) {
  detail::op_spec op;
  op.operation = create ? "CreateBucket" : "DeleteBucket";
  op.method = create ? "PUT" : "DELETE";
  op.bucket = bucket;
  if (create) {
    if (auto v = validate_bucket_name(op.bucket, bucket_name_rules::addressable); !v)
      co_return detail::with_context(v.error(), op);
  }
  http::request req;
  std::string body;
  if (create) body = detail::create_bucket_body(addressing_.region);
  if (!body.empty()) req.body = http::body_source::memory(body);
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) co_return e;
  co_return result<void>{};
}

}  // namespace floe::s3
