#pragma once
// The heal matrix (issue 30): every request shape the library sends, each a
// row of a table, meets a revocation of every key issued so far — a 403
// with an AccessDenied body and a bare 403 with no body — at exactly its
// own request, and must heal with one STS call; an S3 row also meets a
// region redirect there and must follow it. A row says which request is
// hit (`target`, a proxy match). test_heal_matrix_coverage.cpp
// checks that every public operation of the S3, SQS and STS clients has a
// row (or a stated reason not to), so a new one cannot come without it.

#include "cred_world.hpp"

#include <floe/sqs/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace floe::test::heal {

/// Every exchange's operation and status, as the clients' observers saw them.
struct exchanges {
  std::mutex mu;
  std::vector<std::pair<std::string, unsigned>> seen;
  void add(std::string_view op, unsigned status) {
    std::lock_guard lock(mu);
    seen.emplace_back(std::string(op), status);
  }
  /// The statuses `op` got, in order.
  std::vector<unsigned> of(std::string const& op) {
    std::lock_guard lock(mu);
    std::vector<unsigned> out;
    for (auto const& [o, s] : seen)
      if (o == op) out.push_back(s);
    return out;
  }
};

/// What a row's operation works with: a world whose proxy is the auth gate
/// (its S3 client has small multipart thresholds, so parts are cheap), a
/// bucket of the row's own, a scratch directory, and for the SQS rows a
/// client on the same credentials provider with the queue its setup made.
struct ctx {
  world& w;
  std::string bucket;
  std::string dir;
  std::shared_ptr<floe::session> session;
  std::unique_ptr<floe::sqs::client> sqs;
  std::string queue_url;
  std::vector<std::string> handles;  // receipt handles the setup received
};

struct row {
  std::string name;  // the request shape, e.g. "GetObject into a file"
  /// The public function it goes through, e.g. "async_download", or the
  /// SQS operation's name; what the coverage test looks for.
  std::string api;
  std::string operation;  // the request the fault hits, as the exchange observer names it
  bool redirect = false;  // S3 may answer it with a region redirect
  /// Proxy match (a JSON object) of that request; `{B}` stands for the
  /// row's bucket. The revocation is armed to fire as the first request it
  /// accepts reaches the proxy's forwarding decision, so that request is the
  /// first one refused whatever ran before it; the redirect rule answers it.
  std::string target;
  std::function<void(ctx&)> setup;
  /// Runs the operation on the world's io_context and says what went
  /// wrong ("" when it did what it should, its result checked).
  std::function<boost::asio::awaitable<std::string>(ctx&)> run;
};

/// The rows of every S3 request shape (test_heal_matrix.cpp).
std::vector<row> s3_rows();
/// SQS and STS (test_heal_matrix_services.cpp).
std::vector<row> service_rows();

/// Public functions with no row, and why (the coverage test's exceptions).
struct exemption {
  std::string api;
  std::string why;
};
std::vector<exemption> exemptions();

/// The result of an operation as the row's verdict: "" or the error.
template <class R>
std::string verdict(R const& r) {
  return r ? std::string() : std::string(r.error().what());
}

}  // namespace floe::test::heal
