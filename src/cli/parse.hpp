#pragma once
// Parsing the command line.

#include "command_line.hpp"

#include <floe/result.hpp>

#include <string_view>
#include <vector>

namespace floe::cli {

/// Parses argv (without argv[0]). Global options may come before or after
/// the verb. On error: errc::invalid_argument with the message to print.
result<command_line> parse_command_line(std::vector<std::string_view> const& argv);

}  // namespace floe::cli
