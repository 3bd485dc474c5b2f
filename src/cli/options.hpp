#pragma once
// How an option is described, the global options, and the setters and
// entries that more than one family of verbs shares.
//
// The parser and every help text are made from these descriptions, so
// `floe --help`, `floe VERB --help` and what the parser accepts cannot drift
// apart (test_cli_output checks it, test_cli.py checks docs/cli.md too). A verb's
// own options are listed in its verb_spec (verbs.hpp); one name may be
// described once per verb, each with that verb's help.

#include "command_line.hpp"

#include <floe/result.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace floe::cli {

struct option_spec {
  std::string_view long_name;
  char short_name;              // 0: none
  std::string_view value_name;  // empty: a flag
  std::string_view help;        // '\n' starts a continuation line
  /// Stores the value (empty for a flag) in the command line, or says what
  /// is wrong with it (a usage error).
  result<void> (*apply)(command_line& cl, std::string_view value);
};

/// A whole decimal number, nothing else.
bool parse_unsigned(std::string_view s, std::uint64_t& out);

/// For an option that sets a flag of the command line.
template <bool command_line::*Flag>
result<void> set_flag(command_line& cl, std::string_view) {
  cl.*Flag = true;
  return {};
}

/// For an option that stores its value as given.
template <std::string command_line::*Text>
result<void> set_text(command_line& cl, std::string_view value) {
  cl.*Text = std::string(value);
  return {};
}

/// The global options, taken anywhere on the line, in --help order.
std::span<option_spec const* const> global_option_specs();

/// -v / --verbose: the request log, and whoami's details.
result<void> set_verbose(command_line& cl, std::string_view);
/// --if-match ETAG (put, rm, stat).
result<void> set_if_match(command_line& cl, std::string_view value);
/// --if-none-match '*' (put) or ETAG (stat).
result<void> set_if_none_match(command_line& cl, std::string_view value);

// What an upload takes (cp, put).
extern option_spec const content_type_option;
extern option_spec const metadata_option;
extern option_spec const no_progress_option;

}  // namespace floe::cli
