#pragma once
// What the request-driver tests share: a service described as S3 is
// (REST-XML, S3's signing), and the test proxy's plain endpoint.
#include "servers.hpp"

#include <floe/http/url.hpp>
#include <floe/service/driver.hpp>

namespace floe::test {

inline floe::service::description s3_like() {
  floe::service::description d;
  d.id = "s3";
  d.signing_name = "s3";
  d.proto = floe::service::protocol::rest_xml;
  d.s3_signing = true;
  return d;
}

/// The test proxy in front of moto, plain HTTP.
inline floe::http::endpoint proxy_endpoint() { return floe::http::endpoint{false, "127.0.0.1", servers::get().proxy_port}; }

}  // namespace floe::test
