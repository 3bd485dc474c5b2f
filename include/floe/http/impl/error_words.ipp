#pragma once
#include <floe/http/error_words.hpp>


#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

namespace floe::http {

FLOE_DECL std::string error_reason(boost::system::error_code const& ec) {
  namespace error = boost::asio::error;
  if (!ec) return {};
  if (ec == error::host_not_found) return "name does not resolve";
  if (ec == error::host_not_found_try_again) return "name does not resolve (temporary failure in name resolution)";
  if (ec == error::no_data) return "name has no address";
  if (ec == error::no_recovery) return "name does not resolve (non-recoverable resolver failure)";
  if (ec == error::connection_refused) return "connection refused";
  if (ec == error::connection_reset) return "connection reset by peer";
  if (ec == error::eof || ec == boost::asio::ssl::error::stream_truncated) return "the server closed the connection";
  // strerror's sentences start with a capital ("Network is unreachable");
  // an acronym ("SSL ...") keeps its case.
  std::string s = ec.message();
  if (s.size() > 1 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'a' && s[1] <= 'z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

FLOE_DECL std::string format_duration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

}  // namespace floe::http
