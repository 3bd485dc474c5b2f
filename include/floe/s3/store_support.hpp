#pragma once
// What floe trusts a store to honour, judged from the endpoint a client
// talks to. A condition floe cannot trust the store to enforce is either
// enforced by floe itself or refused: never silently dropped.
//
// AWS's own endpoints honour a condition on CompleteMultipartUpload and the
// copy-source conditions of CopyObject. moto 5.2.1 ignores the first and
// x-amz-copy-source-if-match; Ceph RGW 16.2 ignores both (and every
// copy-source condition); any other store is not trusted to honour them.

#include <floe/config.hpp>
#include <floe/s3/addressing.hpp>

#include <cstdint>

namespace floe::s3 {

/// Pure: the client talks to AWS's own S3 endpoints: no custom endpoint, or
/// one whose host is under amazonaws.com or amazonaws.com.cn.
FLOE_DECL bool is_aws_endpoint(addressing_config const& a) noexcept;

/// How a conditional upload of `size` bytes is sent.
enum class conditional_upload_plan : std::uint8_t {
  single_put,             // one PutObject carrying the condition
  condition_on_complete,  // a multipart upload, the condition on CompleteMultipartUpload
  refuse,                 // errc::unsupported: the store would drop the condition
};

/// Pure: one PUT up to `max_single_put` (client_config::max_single_put);
/// above it the condition goes on CompleteMultipartUpload where the store is
/// known to honour it there (is_aws_endpoint), and the upload is refused
/// everywhere else, before anything is sent.
FLOE_DECL conditional_upload_plan plan_conditional_upload(std::uint64_t size, std::uint64_t max_single_put,
                                                          addressing_config const& a) noexcept;

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/store_support.ipp>
#endif
