#pragma once
// credential_process: a profile names a command whose stdout is a JSON
// credentials document (Version 1, AccessKeyId, SecretAccessKey, optional
// SessionToken and Expiration; see json_credentials.hpp).
//
// How the command is run: no shell. The setting is split into words the
// way botocore splits it on POSIX (shlex.split: blanks separate words;
// '...' is literal; "..." keeps blanks and lets \ escape \ " $ ` and a
// newline; outside quotes \ escapes the next character), then the first
// word is looked up on PATH and run (posix_spawnp) with the rest as its
// arguments. So pipes, redirections and $VARIABLES are not interpreted:
// wrap them in `sh -c '...'` if you need them. stdin is /dev/null, stderr
// is the caller's (passed through, by design, for the tool's own prompts
// and errors: the child writes there, never floe, which prints nothing),
// stdout is read (at most 64 KiB) and never logged or put in a message.
// The process runs in its own process group; past the timeout the group is
// killed (SIGKILL) and the fetch fails.

#include <floe/config.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/refreshing.hpp>
#include <floe/result.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace floe::credentials {

/// Splits a command line into words (see above). Pure. Errors:
/// errc::invalid_argument for an unterminated quote, a trailing backslash
/// or no words at all.
FLOE_DECL result<std::vector<std::string>> split_command_line(std::string_view command);

struct process_config {
  std::string command;     // as written in the profile
  std::string profile;     // for messages
  std::chrono::milliseconds timeout{30'000};
};

/// Runs the command once per fetch; long-term keys (no Expiration) are
/// served until invalidated.
class process_source final : public refreshing_source {
 public:
  /// Errors: split_command_line's.
  FLOE_DECL static result<std::unique_ptr<process_source>> create(boost::asio::any_io_executor ex, process_config cfg);

  FLOE_DECL boost::asio::awaitable<result<credentials>> fetch() override;
  FLOE_DECL std::string describe() const override;

 private:
  process_source(boost::asio::any_io_executor ex, process_config cfg, std::vector<std::string> argv)
      : ex_(std::move(ex)), cfg_(std::move(cfg)), argv_(std::move(argv)) {}

  boost::asio::any_io_executor ex_;
  process_config cfg_;
  std::vector<std::string> argv_;
};

/// Runs `argv` and returns its stdout (at most `limit` bytes). Errors:
/// errc::credentials_unavailable (cannot start: names the program; exited
/// with a status or a signal), errc::timeout (killed after `timeout`),
/// errc::reply_too_large. Messages never include the output.
FLOE_DECL boost::asio::awaitable<result<std::string>> run_credential_process(boost::asio::any_io_executor ex,
                                                                             std::vector<std::string> argv,
                                                                             std::chrono::milliseconds timeout,
                                                                             std::size_t limit);

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/process.ipp>
#endif
