// The global options, and the option setters and entries that more than one
// family of verbs shares.

#include "options.hpp"

#include "metadata_arg.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <string>

namespace floe::cli {

namespace {

template <bool global_options::*Flag>
result<void> set_global_flag(command_line& cl, std::string_view) {
  cl.g.*Flag = true;
  return {};
}

template <std::string global_options::*Text>
result<void> set_global_text(command_line& cl, std::string_view value) {
  cl.g.*Text = std::string(value);
  return {};
}

result<void> set_debug(command_line& cl, std::string_view) {
  cl.g.debug = cl.g.debug_headers = true;
  return {};
}

constexpr option_spec endpoint_url_option{
    "endpoint-url", 0, "URL", "S3 endpoint (else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile, AWS)",
    set_global_text<&global_options::endpoint_url>};
constexpr option_spec region_option{
    "region", 0, "REGION", "signing region (else AWS_REGION, AWS_DEFAULT_REGION, the profile, us-east-1)",
    set_global_text<&global_options::region>};
constexpr option_spec profile_option{
    "profile", 0, "NAME", "profile in ~/.aws/config and ~/.aws/credentials (else AWS_PROFILE)",
    set_global_text<&global_options::profile>};
constexpr option_spec path_style_option{
    "path-style", 0, "", "path-style addressing (host/bucket/key), whatever the profile's\naddressing_style says",
    set_global_flag<&global_options::path_style>};
constexpr option_spec ca_bundle_option{
    "ca-bundle", 0, "FILE", "trusted CAs (PEM) for TLS (else AWS_CA_BUNDLE, the system store)",
    set_global_text<&global_options::ca_bundle>};
constexpr option_spec no_verify_ssl_option{
    "no-verify-ssl", 0, "", "do not verify TLS certificates (test rigs only; warns)",
    set_global_flag<&global_options::no_verify_ssl>};
constexpr option_spec json_option{
    "json", 0, "", "machine-readable output: one JSON document on stdout, errors as\nJSON on stderr",
    set_global_flag<&global_options::json>};
constexpr option_spec verbose_option{
    "verbose", 'v', "",
    "request log on stderr: one line per HTTP attempt (method, URL,\nstatus, request id, attempt, time); retries and "
    "redirects show",
    set_verbose};
constexpr option_spec debug_option{
    "debug", 0, "",
    "-v plus each attempt's request and reply headers; Authorization,\nsession tokens, signatures and credentials are "
    "never shown",
    set_debug};
// SECONDS: a whole or decimal number of seconds (0.5), to the millisecond.
bool parse_seconds(std::string_view s, std::chrono::milliseconds& out) {
  auto const dot = s.find('.');
  std::uint64_t whole = 0, frac = 0;
  auto const int_part = s.substr(0, dot);
  if (int_part.empty() || !parse_unsigned(int_part, whole) || whole > 100'000'000) return false;
  if (dot != std::string_view::npos) {
    auto f = s.substr(dot + 1);
    if (f.empty() || f.size() > 3 || !parse_unsigned(f, frac)) return false;
    for (auto i = f.size(); i < 3; ++i) frac *= 10;
  }
  out = std::chrono::milliseconds(static_cast<std::int64_t>(whole * 1000 + frac));
  return true;
}

template <std::chrono::milliseconds global_options::*Field>
result<void> set_seconds(command_line& cl, std::string_view value) {
  if (!parse_seconds(value, cl.g.*Field)) return usage("expected a number of seconds (e.g. 10 or 2.5), got '" +
                                                       std::string(value) + "'");
  return {};
}

result<void> set_low_speed_limit(command_line& cl, std::string_view value) {
  if (!parse_unsigned(value, cl.g.low_speed_limit) || cl.g.low_speed_limit == 0)
    return usage("--low-speed-limit takes a number of bytes per second above 0, got '" + std::string(value) + "'");
  return {};
}

constexpr option_spec connect_timeout_option{
    "connect-timeout", 0, "SECONDS",
    "resolving, connecting and the TLS handshake together (default 10;\n0: no limit)",
    set_seconds<&global_options::connect_timeout>};
constexpr option_spec read_timeout_option{
    "read-timeout", 0, "SECONDS",
    "no byte moving for SECONDS, or a reply head not whole after SECONDS,\nfails the attempt (default 30; 0: no limit)",
    set_seconds<&global_options::read_timeout>};
constexpr option_spec deadline_option{
    "deadline", 0, "SECONDS",
    "each request's budget: its attempts, back-offs, heal and redirect\ntogether; then it fails as timed out (default none)",
    set_seconds<&global_options::deadline>};
constexpr option_spec low_speed_limit_option{
    "low-speed-limit", 0, "BYTES",
    "a body moving slower than BYTES per second over --low-speed-time\nfails the attempt (a download resumes); default none",
    set_low_speed_limit};
constexpr option_spec low_speed_time_option{
    "low-speed-time", 0, "SECONDS", "the window of --low-speed-limit (default 30)",
    set_seconds<&global_options::low_speed_time>};
constexpr option_spec help_option{"help", 'h', "", "help; floe COMMAND --help for a command",
                                  set_flag<&command_line::help>};
constexpr option_spec version_option{"version", 0, "", "print the version", set_flag<&command_line::version>};

constexpr option_spec const* globals[] = {
    &endpoint_url_option,    &region_option,       &profile_option,         &path_style_option,
    &ca_bundle_option,       &no_verify_ssl_option, &connect_timeout_option, &read_timeout_option,
    &deadline_option,        &low_speed_limit_option, &low_speed_time_option, &json_option,          &verbose_option,
    &debug_option,           &help_option,         &version_option,
};

result<void> set_metadata(command_line& cl, std::string_view value) { return parse_metadata_arg(value, cl.metadata); }

}  // namespace

bool parse_unsigned(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

std::span<option_spec const* const> global_option_specs() { return globals; }

result<void> set_verbose(command_line& cl, std::string_view) {
  cl.g.debug = cl.verbose = true;
  return {};
}

result<void> set_if_match(command_line& cl, std::string_view value) {
  if (value.empty()) return usage("--if-match takes an ETag");
  cl.if_match = std::string(value);
  return {};
}

result<void> set_if_none_match(command_line& cl, std::string_view value) {
  if (value.empty()) return usage("--if-none-match takes '*' (put) or an ETag (stat)");
  cl.if_none_match = std::string(value);
  return {};
}

option_spec const content_type_option{
    "content-type", 0, "TYPE", "Content-Type of uploaded objects (else guessed from the\nfile's name)",
    set_text<&command_line::content_type>};
option_spec const metadata_option{
    "metadata", 0, "N=V[,N=V]",
    "user metadata (x-amz-meta-N), repeatable; a value holding ','\nneeds the JSON form '{\"N\": \"a,b\"}'", set_metadata};
option_spec const no_progress_option{"no-progress", 0, "", "no progress bar", set_flag<&command_line::no_progress>};

}  // namespace floe::cli
