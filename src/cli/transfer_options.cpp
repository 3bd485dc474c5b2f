// Options shared by cp, mv, sync and rm.

#include "transfer_options.hpp"

namespace floe::cli {

namespace {

result<void> set_concurrency(command_line& cl, std::string_view value) {
  std::uint64_t n = 0;
  if (!parse_unsigned(value, n) || n < 1 || n > 64) return usage("--concurrency takes 1 to 64");
  cl.concurrency = static_cast<unsigned>(n);
  return {};
}

template <bool Include>
result<void> add_filter(command_line& cl, std::string_view value) {
  if (value.empty()) return usage(Include ? "--include takes a pattern" : "--exclude takes a pattern");
  cl.filters.push_back(filter_rule{Include, std::string(value)});
  return {};
}

}  // namespace

option_spec const concurrency_option{"concurrency", 0, "N", "objects in flight at once (1-64, default 8)",
                                     set_concurrency};
option_spec const exclude_option{
    "exclude", 0, "PATTERN",
    "leave out what matches PATTERN (* ? [..], '*' crosses '/'),\nmatched against the path below SRC (and below DST "
    "for what\nsync would delete); repeatable, with --include: the last\nmatch decides",
    add_filter<false>};
option_spec const include_option{"include", 0, "PATTERN",
                                 "take what matches PATTERN although an earlier --exclude\nleft it out",
                                 add_filter<true>};
option_spec const dryrun_option{"dryrun", 0, "", "print what would be done, \"(dryrun) upload: ...\"; write\nnothing",
                                set_flag<&command_line::dryrun>};
option_spec const quiet_option{"quiet", 0, "", "print nothing, not even errors: the exit code says",
                               set_flag<&command_line::quiet>};
option_spec const only_show_errors_option{"only-show-errors", 0, "", "print errors only, no operation lines",
                                          set_flag<&command_line::only_show_errors>};
option_spec const no_guess_mime_type_option{
    "no-guess-mime-type", 0, "",
    "do not guess uploads' Content-Type from the file name\n(S3 then stores binary/octet-stream)",
    set_flag<&command_line::no_guess_mime_type>};

result<void> check_output_and_filters(command_line const& cl, bool many) {
  if (!many && !cl.filters.empty()) return usage("--exclude and --include apply with --recursive");
  if (cl.quiet && cl.only_show_errors) return usage("--quiet and --only-show-errors exclude each other");
  if (cl.g.json && (cl.quiet || cl.only_show_errors))
    return usage("--json prints one document: it takes neither --quiet nor --only-show-errors");
  return {};
}

}  // namespace floe::cli
