#pragma once
// Conditional writes as the CLI reports them: a typed outcome as success or
// an error with its exit code, the write id a conditional put carries, and
// what an ambiguous reply turns out to have been.

#include "context.hpp"

#include <floe/s3/conditional.hpp>

#include <boost/asio/awaitable.hpp>

#include <string>
#include <string_view>

namespace floe::cli {

/// written is success; precondition_failed and conflict exit 3;
/// unknown_outcome exits 1 and says the reply was ambiguous.
result<s3::written> written_or_error(s3::write_outcome const& o, std::string_view operation,
                                     std::string const& resource);

/// A new write id: 20 characters of [a-z0-9] from the system's random source.
std::string new_write_id();

/// After an ambiguous reply to a conditional put (lost, cut, or a 5xx: it may
/// or may not have landed), the library looks (s3::async_resolve_ambiguous_put:
/// HeadObject, read again while the answer is undecided, as async_update
/// does): this write's id there means it landed (the put succeeded); anything
/// else means this write is not what the key holds, which exits 3 with one
/// line saying so. If the HEAD itself fails the outcome stays unknown (exit 1).
boost::asio::awaitable<result<s3::put_result>> resolve_ambiguous(context& x, std::string const& bucket,
                                                                 std::string const& key, std::string const& write_id,
                                                                 std::string const& if_match, error const& ambiguous);

}  // namespace floe::cli
