#pragma once
// The options of the verbs that move or delete many objects (cp, mv, sync,
// rm): filters, --dryrun, how much is printed, how many at once, the
// content type of uploads, and how every upload and copy is stored (put
// too).

#include "options.hpp"

namespace floe::cli {

extern option_spec const concurrency_option;
extern option_spec const exclude_option;
extern option_spec const include_option;
extern option_spec const dryrun_option;
extern option_spec const quiet_option;
extern option_spec const only_show_errors_option;
extern option_spec const no_guess_mime_type_option;

// How a written object is stored (s3::write_options): put, cp, sync, mv.
extern option_spec const storage_class_option;
extern option_spec const sse_option;
extern option_spec const sse_kms_key_id_option;
extern option_spec const acl_option;
extern option_spec const cache_control_option;
// The checksum uploads carry (put_params::checksum_algorithm).
extern option_spec const checksum_algorithm_option;

/// The rules across those options: --sse-kms-key-id only with --sse aws:kms.
result<void> check_write_options(command_line const& cl);

/// The rules these options share: filters and --concurrency only where many
/// objects move (`many`: --recursive, or sync), --quiet and
/// --only-show-errors not with --json (which prints one document), nor with
/// each other; check_write_options; and on a download (SRC s3://, DST
/// local) none of the options that say how an object is written
/// (--content-type, --metadata, --no-guess-mime-type and the write options).
result<void> check_output_and_filters(command_line const& cl, bool many);

}  // namespace floe::cli
