#pragma once
// The floe command line: what the parts of src/cli share.
//
// args.cpp     command-line parsing (pure) and the help texts
// output.cpp   text and JSON output, the one-line error report, exit codes
// progress.cpp the stderr progress bar
// commands.cpp the verbs, as coroutines over floe::s3::client
// main.cpp     process set-up: parse, build the client, run

#include <floe/error.hpp>
#include <floe/http/client_config.hpp>
#include <floe/result.hpp>

#include <chrono>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::cli {

/// Documented exit codes.
enum exit_code : int {
  exit_ok = 0,
  exit_error = 1,
  exit_usage = 2,
  exit_condition = 3,  // precondition failed, conflict, not modified
  exit_not_found = 4,
};

/// s3://bucket[/key]. The key is everything after the first '/' after the
/// bucket, byte for byte: no percent-decoding, no dot-segment removal.
struct s3_uri {
  std::string bucket;
  std::string key;       // may be empty
  bool has_key = false;  // a '/' followed the bucket
};

bool is_s3_uri(std::string_view s) noexcept;
/// Parses an s3:// URI; the error says what is wrong (no bucket, bad name).
result<s3_uri> parse_s3_uri(std::string_view s);

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
};

struct command_line {
  global_options g;
  bool help = false;
  bool version = false;
  std::string verb;                // empty with --help / --version alone
  std::vector<std::string> args;   // positional arguments after the verb
  // Verb options (each verb accepts only its own; see args.cpp).
  bool recursive = false;
  bool no_progress = false;
  std::string file;
  std::string content_type;
  std::string if_match;
  std::string if_none_match;
  std::string method = "GET";
  std::vector<std::pair<std::string, std::string>> metadata;
  std::chrono::seconds expires{3600};
  unsigned concurrency = 8;
  bool verbose = false;  // -v / --verbose: whoami adds source, generation, expiry
};

/// Parses argv (without argv[0]). Global options may come before or after
/// the verb. On error: errc::invalid_argument with the message to print.
result<command_line> parse_command_line(std::vector<std::string_view> const& argv);

/// `floe --help` and `floe VERB --help`; empty verb: the overview.
std::string help_text(std::string_view verb);
bool is_verb(std::string_view verb) noexcept;

// ---- output ---------------------------------------------------------------

/// Appends `s` as a JSON string literal (quotes included). Valid UTF-8 is
/// kept; any byte that is not part of valid UTF-8 becomes U+FFFD.
void append_json_string(std::string& out, std::string_view s);

/// The one JSON writer of the CLI: every `--json` document and JSON error
/// line is built with it, so commas and string escaping live in one place
/// (append_json_string). Keys are escaped like values. Misuse (a value
/// where a key is due) is the caller's bug; the writer does not check.
///
///   json_writer w;
///   w.begin_object().field("uri", uri).field("size", n).end_object();
///   write_stdout(w.line());
class json_writer {
 public:
  json_writer& begin_object() { return open('{'); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array() { return open('['); }
  json_writer& end_array() { return close(']'); }
  /// The next member's name (inside an object).
  json_writer& key(std::string_view k);
  json_writer& value(std::string_view s);
  json_writer& value(char const* s) { return value(std::string_view(s)); }
  json_writer& value(bool b);
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  json_writer& value(T n) {
    return raw(std::to_string(n));
  }
  json_writer& null() { return raw("null"); }
  /// key(k).value(v)
  template <class T>
  json_writer& field(std::string_view k, T const& v) {
    key(k);
    return value(v);
  }

  std::string const& str() const noexcept { return out_; }
  /// The document and a newline.
  std::string line() const { return out_ + "\n"; }

 private:
  json_writer& open(char c);
  json_writer& close(char c);
  json_writer& raw(std::string_view token);
  void separate();

  std::string out_;
  std::vector<bool> empty_;  // per open container: no member written yet
  bool after_key_ = false;
};

/// `s` for a terminal: control characters and DEL as \xNN, the rest as is.
std::string printable(std::string_view s);

/// The exit code an error maps to.
int exit_code_for(error const& e) noexcept;

/// A short stable name for an error's kind ("not_found", "precondition_failed", ...).
std::string kind_name(error const& e);

/// Writes the error to stderr: one line, "floe: error: OPERATION RESOURCE:
/// STATUS CODE: MESSAGE (request id ID)", or a JSON object with --json.
/// Fills operation and resource from the arguments when the error lacks them.
void report_error(global_options const& g, error e, std::string_view operation, std::string_view resource);

/// The error as one JSON object: kind, operation, resource, status, code,
/// message, request_id, exit_code (what `--json` puts under "error").
void write_error_fields(json_writer& w, error const& e);

/// A usage error (exit 2): one line on stderr and a pointer to --help.
void report_usage(std::string_view verb, std::string_view message);

/// -v / --debug: one line on stderr, prefixed "floe: debug: ". Callers
/// never pass secrets: only methods, paths, statuses, request ids and the
/// credentials' own redacted description.
void debug_line(global_options const& g, std::string_view line);

/// A request target (path?query as sent) with the values of signing
/// parameters (X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token,
/// Signature, AWSAccessKeyId, WebIdentityToken...) replaced by REDACTED.
std::string redact_target(std::string_view target);

/// Headers whose values are never shown: Authorization, Proxy-Authorization,
/// X-Amz-Security-Token, cookies, SSE customer keys.
bool is_secret_header(std::string_view name) noexcept;

/// -v: the line logged for one HTTP attempt (with --debug also its headers,
/// redacted). Never a body.
void log_exchange(global_options const& g, http::exchange_view const& v);

/// Writes all of `s` to stdout (fd 1). False on a write error (EPIPE...).
bool write_stdout(std::string_view s);

// ---- progress -------------------------------------------------------------

/// A progress bar on stderr, drawn only when stderr is a terminal and the
/// transfer is at least 8 MiB (and not turned off). A stream of unknown size
/// (stdin) shows its bar once 8 MiB have gone through: bytes and rate, no
/// total and no ETA.
class progress {
 public:
  static constexpr std::uint64_t threshold = 8ull << 20;
  struct unknown_size_t {};
  static constexpr unknown_size_t unknown_size{};

  progress(std::string label, std::uint64_t total, bool allowed);
  progress(std::string label, unknown_size_t, bool allowed);
  ~progress();
  progress(progress const&) = delete;
  progress& operator=(progress const&) = delete;

  bool active() const noexcept { return active_; }
  /// Bytes moved so far (known byte counts).
  void add(std::uint64_t n);
  /// Sets the bytes moved so far (an upload's count, which can go back when
  /// a part is retried).
  void set(std::uint64_t done);
  /// Redraws with the elapsed time only (transfers whose byte count the
  /// library does not report: uploads).
  void tick();
  /// Clears the line and prints the summary.
  void finish(bool ok);
  /// Clears the line, no summary (another bar takes over).
  void clear();

 private:
  void draw(bool force);

  std::string label_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  bool active_ = false;
  bool unknown_ = false;
  bool allowed_ = false;  // unknown size: may become active
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  unsigned spin_ = 0;
};

/// Whether stderr is a terminal.
bool stderr_is_tty() noexcept;

/// "24.0 MiB".
std::string human_size(std::uint64_t bytes);

}  // namespace floe::cli
