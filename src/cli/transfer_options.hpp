#pragma once
// The options of the verbs that move or delete many objects (cp, mv, sync,
// rm): filters, --dryrun, how much is printed, how many at once, and the
// content type of uploads.

#include "options.hpp"

namespace floe::cli {

extern option_spec const concurrency_option;
extern option_spec const exclude_option;
extern option_spec const include_option;
extern option_spec const dryrun_option;
extern option_spec const quiet_option;
extern option_spec const only_show_errors_option;
extern option_spec const no_guess_mime_type_option;

/// The rules these options share: filters only where many objects move
/// (`many`: --recursive, or sync), --quiet and --only-show-errors not with
/// --json (which prints one document), nor with each other.
result<void> check_output_and_filters(command_line const& cl, bool many);

}  // namespace floe::cli
