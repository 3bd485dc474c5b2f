#pragma once
// The help texts.

#include <string>
#include <string_view>

namespace floe::cli {

/// `floe --help` and `floe VERB --help`; an empty or unknown verb: the
/// overview.
std::string help_text(std::string_view verb);

}  // namespace floe::cli
