// sync: make DST hold what SRC holds, sending only what differs.

#include "../context.hpp"
#include "../options.hpp"
#include "../transfer_options.hpp"
#include "../tree_transfer.hpp"
#include "../verbs.hpp"

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_sync(context& x) { co_return co_await transfer_tree(x, tree_verb::sync); }

result<void> check_sync(command_line const& cl) {
  if (cl.size_only && cl.exact_timestamps) return usage("--size-only and --exact-timestamps exclude each other");
  return check_output_and_filters(cl, true);
}

constexpr option_spec delete_removed{"delete", 0, "", "remove what DST has and SRC lacks (within the filters)",
                                     set_flag<&command_line::delete_removed>};
constexpr option_spec size_only{"size-only", 0, "", "compare sizes only, not modification times",
                                set_flag<&command_line::size_only>};
constexpr option_spec exact_timestamps{
    "exact-timestamps", 0, "",
    "from S3 to local: copy same-sized objects whose time differs\nfrom the file's at all (default: only when newer)",
    set_flag<&command_line::exact_timestamps>};
constexpr option_spec const* sync_options[] = {
    &delete_removed,  &size_only,          &exact_timestamps,        &concurrency_option,
    &exclude_option,  &include_option,     &dryrun_option,           &quiet_option,
    &only_show_errors_option, &content_type_option, &metadata_option, &no_guess_mime_type_option,
    &storage_class_option,    &sse_option,          &sse_kms_key_id_option, &acl_option,
    &cache_control_option, &checksum_algorithm_option};

constexpr verb_spec sync_verbs[] = {
    {.name = "sync",
     .min_args = 2,
     .max_args = 2,
     .operands = "SRC DST",
     .summary = "copy what differs between trees",
     .description = "Local directory to S3 prefix, prefix to directory, or prefix to prefix: copies\n"
                    "what DST lacks, and what differs in size or is newer in SRC (times to the\n"
                    "second; a download is given its object's time). Each side is listed once,\n"
                    "both walked in name order together, and an unchanged tree sends nothing but\n"
                    "the listing. Prints \"upload: ...\", \"download: ...\", \"copy: ...\" and\n"
                    "\"delete: ...\" as aws s3 sync does. --delete removes nothing until both sides\n"
                    "are walked to their end, and nothing if anything failed or a listing is out of\n"
                    "order. --json: the document of a recursive cp, with \"deleted\" and\n"
                    "\"unchanged\" (a count); with --delete, \"not_deleted\" (a count).\n",
     .options = sync_options,
     .check = check_sync,
     .run = cmd_sync},
};

}  // namespace

namespace verbs {
extern family const sync = sync_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
