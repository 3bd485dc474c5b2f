#pragma once
// How a failed request is put into words: what was being done, the
// operating system's reason for a transport failure, why it was not sent
// again, the operation, the resource ("bkt/k", one form everywhere) and the
// attempts made ("connecting to 127.0.0.1:1: connection refused (after 3
// attempts)"). Pure.

#include <floe/config.hpp>
#include <floe/error.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace floe::service {

/// A transport failure after `attempts` attempts. `cause` holds the code
/// and what the attempt said of it ("connecting to 127.0.0.1:1: connection
/// refused"; without words, the code's own reason is said). `stop` is why
/// it was not sent again (request_machine's action::stop): attempts
/// running out needs no words (the count says it); a conditional write's
/// lost reply becomes errc::unknown_outcome; another reason is said ("not
/// retried: ..." after one attempt, "not retried further: ..." after more).
FLOE_DECL error transport_error(error cause, errc stop, unsigned attempts);

/// Adds to the error of a reply that was the answer why it was not retried
/// further (`stop`): errc::unknown_outcome becomes its code; the quota, a
/// body that cannot be replayed and the like are said in the message;
/// attempts running out is said by the count alone.
FLOE_DECL void add_stop_reason(error& e, errc stop, unsigned attempts);

/// The resource as errors name it: "bkt/k" (`resource` and `key` joined by
/// '/'), "bkt", or `resource` alone.
FLOE_DECL std::string resource_name(std::string_view resource, std::optional<std::string_view> key);

/// Names the operation and the resource when the error does not already.
FLOE_DECL void add_context(error& e, std::string_view operation, std::string_view resource,
                           std::optional<std::string_view> key = std::nullopt);

/// The request was refused as stale credentials and the provider declined
/// to refresh (`source`: what the provider is): says so after the reply's
/// own words.
FLOE_DECL void add_declined_refresh(error& e, std::string_view source);

/// The operation's deadline of `budget` ran out after `attempts` attempts
/// (errc::timeout): "deadline of 250 ms ran out during the first attempt"
/// (more attempts are counted as every error's are: "(after 3 attempts)"),
/// then what the last attempt met when one failed (`last`, may be empty).
FLOE_DECL error deadline_error(std::chrono::nanoseconds budget, unsigned attempts, error const& last);

/// A duration in words for messages: "250 ms", "2.5 s", "90 s".
FLOE_DECL std::string duration_words(std::chrono::nanoseconds d);

}  // namespace floe::service

#if defined(FLOE_HEADER_ONLY)
#include <floe/service/impl/diagnostics.ipp>
#endif
