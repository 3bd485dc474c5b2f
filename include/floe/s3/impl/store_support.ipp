#pragma once
#include <floe/s3/store_support.hpp>

#include <string_view>

namespace floe::s3 {

FLOE_DECL bool is_aws_endpoint(addressing_config const& a) noexcept {
  if (!a.custom_endpoint) return true;
  std::string_view const host = a.custom_endpoint->host;  // lower-case
  for (std::string_view suffix : {std::string_view(".amazonaws.com"), std::string_view(".amazonaws.com.cn")}) {
    if (host.size() > suffix.size() && host.substr(host.size() - suffix.size()) == suffix) return true;
  }
  return false;
}

FLOE_DECL conditional_upload_plan plan_conditional_upload(std::uint64_t size, std::uint64_t max_single_put,
                                                          addressing_config const& a) noexcept {
  if (size <= max_single_put) return conditional_upload_plan::single_put;
  return is_aws_endpoint(a) ? conditional_upload_plan::condition_on_complete : conditional_upload_plan::refuse;
}

}  // namespace floe::s3
