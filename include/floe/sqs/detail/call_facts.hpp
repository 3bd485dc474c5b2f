#pragma once
// What the client needs to know of an operation before sending it, beyond
// its body: the resource its diagnostics name and how long one attempt may
// stay silent. Pure.

#include <floe/sqs/messages.hpp>
#include <floe/sqs/queue.hpp>
#include <floe/sqs/queues.hpp>

#include <chrono>
#include <string>
#include <type_traits>

namespace floe::sqs::detail {

/// The queue an operation is about, as its diagnostics name it: the queue's
/// name (the last segment of its URL, or the name given), never the URL's
/// scheme and host.
template <class P>
std::string resource_of(P const& p) {
  if constexpr (requires { p.queue_url; }) {
    return std::string(queue_name_of(p.queue_url));
  } else if constexpr (requires { p.queue_name; }) {
    return p.queue_name;
  } else {
    return {};
  }
}

/// The idle read timeout of one attempt: a receive may be silent for as
/// long as it waits on the server, so its timeout outlasts the wait
/// (long_poll_read_timeout); any other operation gets `configured` as it
/// is (0: none).
template <class P>
std::chrono::milliseconds read_timeout_for(P const& p, std::chrono::milliseconds configured) noexcept {
  if constexpr (std::is_same_v<P, receive_message_params>) {
    return long_poll_read_timeout(longest_wait(p), configured);
  } else {
    (void)p;
    return configured;
  }
}

}  // namespace floe::sqs::detail
