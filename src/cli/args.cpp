// Command-line parsing and help texts. Pure: strings in, a command_line or
// a usage message out.

#include "cli.hpp"

#include <floe/s3/addressing.hpp>

#include <algorithm>
#include <array>
#include <charconv>

namespace floe::cli {

namespace {

constexpr std::string_view scheme = "s3://";

enum class opt_id {
  endpoint_url, region, profile, path_style, ca_bundle, no_verify_ssl, json, verbose, debug, help, version,
  recursive, no_progress, file, content_type, metadata, if_match, if_none_match, expires, method,
  concurrency,
};

// The option table: the parser and every help text are made from it, so
// `floe --help`, `floe VERB --help` and what the parser accepts cannot
// drift apart (test_cli_output checks it, test_cli.py checks README too).
// A name may appear once per verb: per-verb entries carry per-verb help.
struct option_spec {
  std::string_view long_name;
  char short_name;              // 0: none
  std::string_view value_name;  // empty: a flag
  opt_id id;
  std::string_view verbs;  // empty: global; else a space-separated list
  std::string_view help;   // '\n' starts a continuation line
};

constexpr std::array<option_spec, 27> options{{
    {"endpoint-url", 0, "URL", opt_id::endpoint_url, "",
     "S3 endpoint (else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile, AWS)"},
    {"region", 0, "REGION", opt_id::region, "",
     "signing region (else AWS_REGION, AWS_DEFAULT_REGION, the profile, us-east-1)"},
    {"profile", 0, "NAME", opt_id::profile, "", "profile in ~/.aws/config and ~/.aws/credentials (else AWS_PROFILE)"},
    {"path-style", 0, "", opt_id::path_style, "",
     "path-style addressing (host/bucket/key), whatever the profile's\naddressing_style says"},
    {"ca-bundle", 0, "FILE", opt_id::ca_bundle, "", "trusted CAs (PEM) for TLS (else AWS_CA_BUNDLE, the system store)"},
    {"no-verify-ssl", 0, "", opt_id::no_verify_ssl, "", "do not verify TLS certificates (test rigs only; warns)"},
    {"json", 0, "", opt_id::json, "", "machine-readable output: one JSON document on stdout, errors as\nJSON on stderr"},
    {"verbose", 'v', "", opt_id::verbose, "whoami",
     "also the credential source, generation and expiry (and, as\neverywhere, the request log on stderr)"},
    {"verbose", 'v', "", opt_id::verbose, "",
     "request log on stderr: one line per HTTP attempt (method, URL,\nstatus, request id, attempt, time); retries and "
     "redirects show"},
    {"debug", 0, "", opt_id::debug, "",
     "-v plus each attempt's request and reply headers; Authorization,\nsession tokens, signatures and credentials are "
     "never shown"},
    {"help", 'h', "", opt_id::help, "", "help; floe COMMAND --help for a command"},
    {"version", 0, "", opt_id::version, "", "print the version"},
    {"recursive", 'r', "", opt_id::recursive, "ls", "every key under the prefix, not grouped at '/'"},
    {"recursive", 'r', "", opt_id::recursive, "cp", "copy a directory or prefix"},
    {"recursive", 'r', "", opt_id::recursive, "rm", "delete every key under the prefix"},
    {"concurrency", 0, "N", opt_id::concurrency, "cp", "objects in flight with --recursive (1-64, default 8)"},
    {"file", 'f', "FILE", opt_id::file, "put", "read the body from FILE (large files go up in parts)"},
    {"if-none-match", 0, "'*'", opt_id::if_none_match, "put", "create only: exit 3 if the key exists"},
    {"if-none-match", 0, "ETAG", opt_id::if_none_match, "stat",
     "exit 3 (\"not modified\") when the ETag is still ETAG: a cheap\nchange check"},
    {"if-match", 0, "ETAG", opt_id::if_match, "put",
     "replace only if the current ETag is ETAG, else exit 3.\nA conditional put carries a write id "
     "(x-amz-meta-floe-write-id).\nIf its reply is lost or a 5xx, floe looks (HeadObject): its\nown write there exits 0; "
     "anything else exits 3, saying the\nreply was ambiguous and what is there"},
    {"if-match", 0, "ETAG", opt_id::if_match, "rm", "delete only if the object's ETag is ETAG (else exit 3)"},
    {"if-match", 0, "ETAG", opt_id::if_match, "stat", "exit 3 (precondition failed) unless the ETag is ETAG"},
    {"content-type", 0, "TYPE", opt_id::content_type, "cp put", "Content-Type of uploaded objects"},
    {"metadata", 0, "NAME=VAL", opt_id::metadata, "cp put", "user metadata (x-amz-meta-NAME), repeatable"},
    {"no-progress", 0, "", opt_id::no_progress, "cp put", "no progress bar"},
    {"expires", 0, "SECONDS", opt_id::expires, "presign", "validity in seconds (default 3600, at most 604800)"},
    {"method", 0, "METHOD", opt_id::method, "presign", "the request the URL allows: GET (default), PUT, HEAD or DELETE"},
}};

struct verb_spec {
  std::string_view name;
  unsigned min_args, max_args;
  std::string_view operands;  // the usage line's positional part
  std::string_view summary;   // the overview's one-liner
  std::string_view description;
};

constexpr std::array<verb_spec, 10> verbs{{
    {"ls", 0, 1, "[s3://BUCKET[/PREFIX]]", "list buckets or objects",
     "With no bucket ('floe ls' or 'floe ls s3://'): lists the buckets (ListBuckets).\n"
     "Text: CREATION-DATE NAME; --json: {\"buckets\": [{\"name\", \"creation_date\",\n"
     "\"region\"}], \"owner\": {\"id\", \"display_name\"}}.\n\n"
     "Lists objects under PREFIX. Without --recursive, keys are grouped at '/'\n"
     "(shown as PRE lines). Text: LAST-MODIFIED SIZE KEY; --json: one object with\n"
     "\"objects\" and \"prefixes\".\n"},
    {"cp", 2, 2, "SRC DST", "copy objects and files",
     "Copies local to S3, S3 to local, or S3 to S3 (server side). '-' is stdin or\n"
     "stdout. A DST ending in '/' (or an existing directory) receives the source's\n"
     "base name. Large files go up in parallel parts. With --recursive, SRC is a\n"
     "directory or an S3 prefix and several objects move at once; keys that would\n"
     "leave the destination directory ('..' segments, absolute) are refused, and\n"
     "local entries that are not regular files (fifos, sockets, devices, links to\n"
     "directories) are skipped, each named on stderr. --json --recursive: one\n"
     "document, {\"source\", \"destination\", \"objects\": [{\"source\", \"destination\",\n"
     "\"size\", \"etag\"}], \"skipped\": [{\"path\", \"reason\"}], \"errors\": [...],\n"
     "\"copied\", \"failed\", \"bytes\", \"exit_code\"}, the same in every direction.\n"},
    {"cat", 1, 1, "s3://BUCKET/KEY", "object to stdout", "Writes the object to stdout.\n"},
    {"rm", 1, 1, "s3://BUCKET/KEY|PREFIX", "delete",
     "Deletes an object (a missing key is not an error: S3 answers 204), or with\n"
     "--recursive every key under the prefix (DeleteObjects, 1000 at a time).\n"},
    {"stat", 1, 1, "s3://BUCKET/KEY", "object metadata",
     "HeadObject: size, ETag, last modified, content type, version id, metadata.\n"},
    {"put", 1, 1, "s3://BUCKET/KEY", "stdin or a file to S3",
     "Uploads FILE, or stdin when no --file is given. Prints the new ETag.\n"
     "--if-none-match '*' and --if-match exclude each other.\n"},
    {"presign", 1, 1, "s3://BUCKET/KEY", "presigned URL",
     "Prints a presigned URL (SigV4 query signing), valid for --expires seconds.\n"
     "Nothing is sent.\n"},
    {"mb", 1, 1, "s3://BUCKET", "make a bucket", "Creates a bucket (in --region).\n"},
    {"rb", 1, 1, "s3://BUCKET", "remove a bucket", "Deletes an empty bucket.\n"},
    {"whoami", 0, 0, "", "who the credentials are",
     "Asks STS who the credentials belong to (GetCallerIdentity) and prints the\n"
     "account, the ARN and the user id. --verbose adds where the credentials came\n"
     "from (the default chain's source), their generation and their expiry.\n"
     "Never prints a secret key, a session token or a token file's contents.\n"
     "The STS endpoint: --endpoint-url when given, else AWS_ENDPOINT_URL_STS,\n"
     "AWS_ENDPOINT_URL, the regional endpoint (--region, AWS_REGION), the global one.\n"},
}};

bool verb_allows(option_spec const& o, std::string_view verb) {
  if (o.verbs.empty()) return true;
  std::string_view rest = o.verbs;
  while (!rest.empty()) {
    auto sp = rest.find(' ');
    auto word = rest.substr(0, sp);
    if (word == verb) return true;
    if (sp == std::string_view::npos) break;
    rest.remove_prefix(sp + 1);
  }
  return false;
}

error usage(std::string message) { return error(errc::invalid_argument, std::move(message)); }

bool parse_unsigned(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

bool is_token_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= '0' && u <= '9') return true;
  if ((u | 0x20) >= 'a' && (u | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

result<void> apply(command_line& cl, option_spec const& o, std::string_view value) {
  switch (o.id) {
    case opt_id::endpoint_url: cl.g.endpoint_url = std::string(value); break;
    case opt_id::region: cl.g.region = std::string(value); break;
    case opt_id::profile: cl.g.profile = std::string(value); break;
    case opt_id::path_style: cl.g.path_style = true; break;
    case opt_id::ca_bundle: cl.g.ca_bundle = std::string(value); break;
    case opt_id::no_verify_ssl: cl.g.no_verify_ssl = true; break;
    case opt_id::json: cl.g.json = true; break;
    case opt_id::verbose: cl.g.debug = cl.verbose = true; break;  // whoami: also its details
    case opt_id::debug: cl.g.debug = cl.g.debug_headers = true; break;
    case opt_id::help: cl.help = true; break;
    case opt_id::version: cl.version = true; break;
    case opt_id::recursive: cl.recursive = true; break;
    case opt_id::no_progress: cl.no_progress = true; break;
    case opt_id::file: cl.file = std::string(value); break;
    case opt_id::content_type: cl.content_type = std::string(value); break;
    case opt_id::metadata: {
      auto eq = value.find('=');
      if (eq == std::string_view::npos || eq == 0) return usage("--metadata takes NAME=VALUE");
      auto name = value.substr(0, eq);
      if (!std::all_of(name.begin(), name.end(), is_token_char))
        return usage("--metadata: the name must be letters, digits or !#$%&'*+-.^_`|~");
      cl.metadata.emplace_back(std::string(name), std::string(value.substr(eq + 1)));
      break;
    }
    case opt_id::if_match:
      if (value.empty()) return usage("--if-match takes an ETag");
      cl.if_match = std::string(value);
      break;
    case opt_id::if_none_match:
      if (value.empty()) return usage("--if-none-match takes '*' (put) or an ETag (stat)");
      cl.if_none_match = std::string(value);
      break;
    case opt_id::expires: {
      std::uint64_t n = 0;
      if (!parse_unsigned(value, n) || n < 1 || n > 604800)
        return usage("--expires takes seconds, 1 to 604800 (7 days)");
      cl.expires = std::chrono::seconds(static_cast<std::int64_t>(n));
      break;
    }
    case opt_id::method: {
      std::string m(value);
      for (auto& c : m) c = static_cast<char>((c >= 'a' && c <= 'z') ? c - 32 : c);
      if (m != "GET" && m != "PUT" && m != "HEAD" && m != "DELETE")
        return usage("--method takes GET, PUT, HEAD or DELETE");
      cl.method = std::move(m);
      break;
    }
    case opt_id::concurrency: {
      std::uint64_t n = 0;
      if (!parse_unsigned(value, n) || n < 1 || n > 64) return usage("--concurrency takes 1 to 64");
      cl.concurrency = static_cast<unsigned>(n);
      break;
    }
  }
  return {};
}

}  // namespace

bool is_s3_uri(std::string_view s) noexcept {
  return s.size() >= scheme.size() && std::equal(scheme.begin(), scheme.end(), s.begin(), [](char a, char b) {
           return a == static_cast<char>((b >= 'A' && b <= 'Z') ? b + 32 : b);
         });
}

result<s3_uri> parse_s3_uri(std::string_view s) {
  if (!is_s3_uri(s)) return usage("expected s3://BUCKET[/KEY], got '" + printable(s) + "'");
  auto rest = s.substr(scheme.size());
  s3_uri u;
  auto slash = rest.find('/');
  u.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) {
    u.has_key = true;
    u.key = std::string(rest.substr(slash + 1));
  }
  if (u.bucket.empty()) return usage("'" + printable(s) + "' names no bucket");
  auto ok = s3::validate_bucket_name(u.bucket);
  if (!ok) return usage("'" + printable(u.bucket) + "': " + ok.error().diag.message);
  if (u.key.size() > s3::max_key_size) return usage("the key is longer than 1024 bytes");
  return u;
}

bool is_verb(std::string_view verb) noexcept {
  return std::any_of(verbs.begin(), verbs.end(), [&](verb_spec const& v) { return v.name == verb; });
}

result<command_line> parse_command_line(std::vector<std::string_view> const& argv) {
  command_line cl;
  bool options_done = false;
  // The verb is the first positional; options seen before it must be global.
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    bool const looks_like_option = !options_done && a.size() > 1 && a[0] == '-';
    if (!looks_like_option) {
      if (cl.verb.empty()) {
        if (!is_verb(a)) return usage("unknown command '" + printable(a) + "'");
        cl.verb = std::string(a);
      } else {
        cl.args.emplace_back(a);
      }
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    option_spec const* spec = nullptr;
    std::optional<std::string_view> inline_value;
    std::string shown(a);
    std::string_view long_name;  // empty: a short option (-x)
    if (a.starts_with("--")) {
      long_name = a.substr(2);
      auto eq = long_name.find('=');
      if (eq != std::string_view::npos) {
        inline_value = long_name.substr(eq + 1);
        long_name = long_name.substr(0, eq);
        shown = "--" + std::string(long_name);
      }
    }
    auto named = [&](option_spec const& o) {
      if (!long_name.empty()) return o.long_name == long_name;
      return a.size() == 2 && o.short_name != 0 && o.short_name == a[1];
    };
    // The verb's own entry first (its help differs), else the global one,
    // else any: another verb's option is "does not apply", not unknown.
    for (auto const& o : options)
      if (spec == nullptr && named(o) && !o.verbs.empty() && !cl.verb.empty() && verb_allows(o, cl.verb)) spec = &o;
    for (auto const& o : options)
      if (spec == nullptr && named(o) && o.verbs.empty()) spec = &o;
    for (auto const& o : options)
      if (spec == nullptr && named(o)) spec = &o;
    if (spec == nullptr) return usage("unknown option '" + printable(shown) + "'");
    if (!spec->verbs.empty() && !verb_allows(*spec, cl.verb)) {
      if (cl.verb.empty()) return usage("option '" + shown + "' comes after a command (" + std::string(spec->verbs) + ")");
      return usage("option '" + shown + "' does not apply to 'floe " + cl.verb + "'");
    }
    std::string_view value;
    if (!spec->value_name.empty()) {
      if (inline_value) {
        value = *inline_value;
      } else {
        if (i + 1 >= argv.size()) return usage("option '" + shown + "' needs a value");
        value = argv[++i];
      }
    } else if (inline_value) {
      return usage("option '" + shown + "' takes no value");
    }
    auto applied = apply(cl, *spec, value);
    if (!applied) return applied.error();
  }
  if (cl.help || cl.version) return cl;
  if (cl.verb.empty()) return usage("no command given");
  for (auto const& v : verbs) {
    if (v.name != cl.verb) continue;
    if (cl.args.size() < v.min_args) return usage("missing argument");
    if (cl.args.size() > v.max_args) return usage("too many arguments");
  }
  if (cl.verb == "put") {
    if (!cl.if_none_match.empty() && cl.if_none_match != "*")
      return usage("put --if-none-match takes only '*' (create only)");
    if (!cl.if_none_match.empty() && !cl.if_match.empty())
      return usage("put takes --if-match or --if-none-match, not both");
  }
  if (cl.verb == "stat" && !cl.if_none_match.empty() && cl.if_none_match == "*")
    return usage("stat --if-none-match takes an ETag");
  return cl;
}

namespace {

// "  -r, --recursive      help" with the help at column 23 (on the next line
// when the name is longer), continuation lines indented to it.
void append_option_lines(std::string& s, option_spec const& o) {
  std::string name = "  ";
  if (o.short_name != 0) {
    name += '-';
    name += o.short_name;
    name += ", ";
  }
  name += "--";
  name += o.long_name;
  if (!o.value_name.empty()) {
    name += ' ';
    name += o.value_name;
  }
  constexpr std::size_t column = 23;
  if (name.size() + 1 > column) {
    name += '\n';
    name.append(column, ' ');
  } else {
    name.append(column - name.size(), ' ');
  }
  s += name;
  std::string_view rest = o.help;
  while (true) {
    auto nl = rest.find('\n');
    s += rest.substr(0, nl);
    s += '\n';
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
    s.append(column, ' ');
  }
}

std::string synopsis(verb_spec const& v) {
  std::string s = "floe ";
  s += v.name;
  if (!v.operands.empty()) {
    s += ' ';
    s += v.operands;
  }
  for (auto const& o : options) {
    if (o.verbs.empty() || !verb_allows(o, v.name)) continue;
    s += " [--";
    s += o.long_name;
    if (!o.value_name.empty()) {
      s += ' ';
      s += o.value_name;
    }
    s += ']';
  }
  return s;
}

std::string global_help() {
  std::string s = "Global options (anywhere on the line):\n";
  for (auto const& o : options)
    if (o.verbs.empty()) append_option_lines(s, o);
  return s;
}

}  // namespace

std::string help_text(std::string_view verb) {
  for (auto const& v : verbs) {
    if (v.name != verb) continue;
    std::string s = "usage: " + synopsis(v) + "\n\n";
    s += v.description;
    bool first = true;
    for (auto const& o : options) {
      if (o.verbs.empty() || !verb_allows(o, v.name)) continue;
      if (first) s += "\nOptions:\n";
      first = false;
      append_option_lines(s, o);
    }
    s += "\n";
    s += global_help();
    return s;
  }
  std::string s = "usage: floe [GLOBAL OPTIONS] COMMAND [ARGS]\n\nCommands:\n";
  for (auto const& v : verbs) {
    std::string name = "  " + std::string(v.name);
    name.resize(11, ' ');
    s += name + std::string(v.summary) + "\n";
    // The synopsis, wrapped before an option at 79 columns.
    std::string const syn = synopsis(v);
    std::string line(11, ' ');
    std::size_t from = 0;
    while (from < syn.size()) {
      auto next = syn.find(" [--", from + 1);
      auto piece = std::string_view(syn).substr(from, next == std::string::npos ? std::string::npos : next - from);
      if (line.size() + piece.size() > 79 && line.size() > 13) {
        s += line + "\n";
        line = std::string(12, ' ');
      }
      line += piece;
      from = next == std::string::npos ? syn.size() : next;
    }
    s += line + "\n";
  }
  s += "\n"
       "Keys are taken literally from the URL: no percent-decoding.\n\n"
       "Exit codes: 0 success, 1 error, 2 usage, 3 condition not met (precondition\n"
       "failed, conflict, not modified), 4 not found.\n\n";
  s += global_help();
  return s;
}

}  // namespace floe::cli
