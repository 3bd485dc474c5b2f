#pragma once
// What the `floe sqs` subcommands share (verbs/sqs.cpp runs them): the
// client they send through, and the subcommands that take more than a
// few lines, each in a file of its own.

#include "context.hpp"
#include "output.hpp"

#include <floe/result.hpp>
#include <floe/sqs/client.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace floe::cli {

/// The SQS client of this process, made from the same configuration as
/// the S3 client (session, credentials, TLS): sqs_client.cpp.
result<std::unique_ptr<sqs::client>> open_sqs_client(context& x);

/// send QUEUE [BODY] and send --lines QUEUE (sqs_send.cpp).
boost::asio::awaitable<int> sqs_send(context& x, sqs::client& q, std::string const& url);
/// receive QUEUE [--max N] [--wait S] [--visibility S] [--delete] [--drain] (sqs_receive.cpp).
boost::asio::awaitable<int> sqs_receive(context& x, sqs::client& q, std::string const& url);
/// delete QUEUE RECEIPT... (sqs_receive.cpp).
boost::asio::awaitable<int> sqs_delete(context& x, sqs::client& q, std::string const& url);

/// q.async_call(p) from a coroutine. The params are copied in a statement
/// of their own: no class-type temporary lives across the co_await (GCC
/// 12, see sqs/client.hpp).
template <class P>
boost::asio::awaitable<result<typename P::result_type>> call(sqs::client& q, P const& p) {
  auto op = q.async_call(p, boost::asio::use_awaitable);
  co_return co_await std::move(op);
}

/// A batch's failed entries on stderr, one line each, naming `what` (the
/// input line, the receipt handle) through `name_of(entry id)`; returns
/// exit_error when there were any, else exit_ok.
template <class NameOf>
int report_batch_failures(context& x, std::string_view operation, std::vector<sqs::batch_failure> const& failed,
                          NameOf const& name_of) {
  for (auto const& f : failed) {
    errc const kind = f.code == "MD5OfMessageBodyMismatch" ? errc::checksum_mismatch
                      : f.client_detected                 ? errc::malformed_reply
                      : f.code == "ReceiptHandleIsInvalid" ? errc::invalid_receipt_handle
                                                          : errc::service_error;
    error e(kind, f.message);
    e.diag.code = f.code;
    report_error(x.g, std::move(e), operation, name_of(f.id));
  }
  return failed.empty() ? exit_ok : exit_error;
}

}  // namespace floe::cli
