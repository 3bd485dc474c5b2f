#pragma once
// How a verb is described, and the registry of verb families.
//
// A family is the verbs one file under verbs/ defines (ls; cp and cat; mb
// and rb; ...): what each is (operands, help, its own options, the rules
// across them) and the coroutine that runs it. A new family is a new file
// there and its name in verbs.cpp; the parser, every help text and the
// dispatch take it from the registry.
//
// GCC 12: no class-type temporary is ever passed inside a co_await
// expression in a verb (see s3/client.hpp); every argument is a named local.

#include "options.hpp"

#include <boost/asio/awaitable.hpp>

#include <span>
#include <string_view>

namespace floe::cli {

struct context;  // context.hpp

struct verb_spec {
  std::string_view name;
  unsigned min_args = 0, max_args = 0;
  std::string_view operands;     // the usage line's positional part
  std::string_view summary;      // the overview's one-liner
  std::string_view description;  // floe VERB --help
  std::span<option_spec const* const> options = {};  // its own, in --help order
  /// Rules across its options, checked after parsing; nullptr: none.
  result<void> (*check)(command_line const& cl) = nullptr;
  /// Runs the verb: output to stdout, errors to stderr; completes with the
  /// exit code.
  boost::asio::awaitable<int> (*run)(context& x) = nullptr;
  /// The verb makes its clients from a session of its own
  /// (cli_session.hpp), which says where its credentials come from under
  /// -v: the command does not ask its default S3 client (a fetch of a set
  /// nobody would use, an STS call with web identity).
  bool own_session = false;
};

using family = std::span<verb_spec const>;

/// Every family, in the order `floe --help` lists their verbs.
std::span<family const* const> families();

/// The verb of that name, or nullptr.
verb_spec const* find_verb(std::string_view name) noexcept;

/// Whether a verb of that name is registered.
bool is_verb(std::string_view name) noexcept;

}  // namespace floe::cli
