#pragma once
// Naming a queue, and the timing rule of a long poll. Pure.
//
// A queue is named by its URL (https://sqs.eu-west-1.amazonaws.com/
// 123456789012/orders, or a local endpoint's http://127.0.0.1:4566/
// 000000000000/orders) or by its name ("orders", "orders.fifo"). A name is
// turned into a URL once, with GetQueueUrl (get_queue_url_params below),
// and the URL is what every other request carries (queue_url_request in
// sqs/queues.hpp builds that lookup from a queue_ref).

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace floe::sqs {

/// Whether `queue` is a queue URL rather than a name: it starts with
/// http:// or https:// (any case). A name cannot hold ':' or '/', so the
/// two never overlap.
FLOE_DECL bool is_queue_url(std::string_view queue) noexcept;

/// Checks a queue name: 1 to 80 characters of [A-Za-z0-9_-], where a FIFO
/// queue's name ends in ".fifo" (counted in the 80). Errors:
/// errc::invalid_argument naming what is wrong.
FLOE_DECL result<void> check_queue_name(std::string_view name);

/// Checks a queue URL: http(s)://host[:port]/path with a non-empty host
/// and a path that names a queue (its last segment is not empty), no
/// whitespace or control characters. Errors: errc::invalid_argument.
FLOE_DECL result<void> check_queue_url(std::string_view url);

/// The queue name at the end of a URL ("orders" for .../123456789012/orders);
/// empty when the URL has no path.
FLOE_DECL std::string_view queue_name_of(std::string_view url) noexcept;

/// A QUEUE argument, sorted: exactly one of `url` and `name` is set.
struct queue_ref {
  std::string url{};   // given as a URL: used as it is
  std::string name{};  // given as a name: needs a GetQueueUrl first
  bool needs_lookup() const noexcept { return url.empty(); }
};

/// Sorts and checks a QUEUE argument (check_queue_url or check_queue_name).
FLOE_DECL result<queue_ref> parse_queue_ref(std::string_view queue);

/// The idle read timeout for one attempt of a ReceiveMessage that waits up
/// to `wait` for messages. The server says nothing while it waits, so a
/// read timeout no longer than the wait would cut every empty long poll:
/// the answer is `wait` plus `configured` (the silence tolerated from a
/// server that should already have answered), so always longer than the
/// wait. A `configured` of zero means no read timeout and stays zero; a
/// negative wait counts as zero.
FLOE_DECL std::chrono::milliseconds long_poll_read_timeout(std::chrono::seconds wait,
                                                           std::chrono::milliseconds configured) noexcept;

}  // namespace floe::sqs

#if defined(FLOE_HEADER_ONLY)
#include <floe/sqs/impl/queue.ipp>
#endif
