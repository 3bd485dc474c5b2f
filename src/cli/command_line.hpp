#pragma once
// The floe command line as parsed: the global options, the verb, its
// arguments and its options.
//
// How src/cli is laid out:
//   main.cpp       process set-up: parse, build the client, run
//   parse.cpp      parsing (pure); help.cpp the help texts
//   options.hpp    how an option is described; the global ones
//   verbs.hpp      how a verb is described; the registry of families
//   verbs/*.cpp    one family of verbs per file (ls; cp and cat; sync; ...)
//   commands.cpp   runs the verb the command line names
//   transfer.hpp   one object up, down or across; tree_transfer.hpp many
//                  (cp --recursive, sync, mv), walked as tree_source.hpp
//   the rest       what the verbs share, one concern a file

#include "filters.hpp"

#include <floe/error.hpp>
#include <floe/s3/params.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace floe::cli {

struct global_options {
  std::string endpoint_url;
  std::string region;
  std::string profile;
  std::string ca_bundle;
  bool path_style = false;
  bool no_verify_ssl = false;
  bool json = false;
  bool debug = false;          // -v / --verbose / --debug: one line per HTTP attempt
  bool debug_headers = false;  // --debug: and the headers of each (secrets redacted)
  // Transfer bounds (negative: the library's default; 0: none).
  std::chrono::milliseconds connect_timeout{-1};
  std::chrono::milliseconds read_timeout{-1};
  std::chrono::milliseconds deadline{0};  // --deadline: 0 none
  std::uint64_t low_speed_limit = 0;  // bytes per second; 0: none
  std::chrono::milliseconds low_speed_time{-1};
};

struct command_line {
  global_options g;
  bool help = false;
  bool version = false;
  std::string verb;                // empty with --help / --version alone
  std::vector<std::string> args;   // positional arguments after the verb
  // Verb options (each verb accepts only its own: verbs/*.cpp).
  bool recursive = false;
  bool no_progress = false;
  std::string file;
  std::string content_type;
  std::string if_match;
  std::string if_none_match;
  std::string method = "GET";
  bool no_guess_mime_type = false;
  std::vector<std::pair<std::string, std::string>> metadata;
  // --storage-class, --sse, --sse-kms-key-id, --acl, --cache-control: every
  // upload and copy (put, cp, sync, mv).
  s3::write_options write;
  // --checksum-algorithm: uploads' checksum (put, cp, sync, mv); nullopt:
  // the client's (CRC64NVME unless request_checksum_calculation is
  // when_required).
  std::optional<checksum::algorithm> checksum_algorithm;
  std::chrono::seconds expires{3600};
  bool expires_given = false;  // --expires or --expires-in seen (not both)
  unsigned concurrency = 8;
  bool concurrency_given = false;  // cp/mv/sync's --concurrency seen
  bool verbose = false;  // -v / --verbose: whoami adds source, generation, expiry
  std::string writer;    // ledger init/add --writer: empty, the host name and pid
  // Many objects (cp --recursive, sync, mv, rm --recursive).
  std::vector<filter_rule> filters;  // --exclude / --include, in the order given
  bool dryrun = false;
  bool quiet = false;             // no operation lines, no errors: the exit code says
  bool only_show_errors = false;  // no operation lines
  // sync
  bool delete_removed = false;  // --delete
  bool exact_timestamps = false;
  bool size_only = false;
  // ls
  bool human_readable = false;
  bool summarize = false;
  // rb
  bool force = false;
  // floe sqs (verbs/sqs.cpp)
  struct sqs_options {
    std::uint64_t max = 0;  // receive --max: 0 when not given
    std::optional<std::chrono::seconds> wait, visibility;
    bool delete_after = false, drain = false, lines = false;
  } sqs;
  // watch
  std::string queue;                        // --queue: a URL or a name
  std::string ledger;                       // --ledger s3://BUCKET[/PREFIX]
  std::string exec;                         // --exec CMD
  bool jsonl = false;                       // --jsonl
  std::string metrics;                      // --metrics ADDRESS:PORT
  std::string log_format = "text";          // --log-format text|json
  std::chrono::seconds visibility{60};      // --visibility-timeout S
  std::chrono::milliseconds reconcile_every{0};  // --reconcile-every DURATION; 0: never
  bool removals = false;                    // --removals
  std::size_t receive_ahead = 30;           // --receive-ahead N
};

/// A usage error (what parsing returns): errc::invalid_argument with the
/// message to print.
inline error usage(std::string message) { return error(errc::invalid_argument, std::move(message)); }

}  // namespace floe::cli
