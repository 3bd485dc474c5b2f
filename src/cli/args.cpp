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

struct option_spec {
  std::string_view long_name;
  char short_name;   // 0: none
  bool takes_value;
  opt_id id;
  std::string_view verbs;  // empty: global; else a space-separated list
};

constexpr std::array<option_spec, 21> options{{
    {"endpoint-url", 0, true, opt_id::endpoint_url, ""},
    {"region", 0, true, opt_id::region, ""},
    {"profile", 0, true, opt_id::profile, ""},
    {"path-style", 0, false, opt_id::path_style, ""},
    {"ca-bundle", 0, true, opt_id::ca_bundle, ""},
    {"no-verify-ssl", 0, false, opt_id::no_verify_ssl, ""},
    {"json", 0, false, opt_id::json, ""},
    {"verbose", 'v', false, opt_id::verbose, ""},
    {"debug", 0, false, opt_id::debug, ""},
    {"help", 'h', false, opt_id::help, ""},
    {"version", 0, false, opt_id::version, ""},
    {"recursive", 'r', false, opt_id::recursive, "ls cp rm"},
    {"no-progress", 0, false, opt_id::no_progress, "cp put"},
    {"file", 'f', true, opt_id::file, "put"},
    {"content-type", 0, true, opt_id::content_type, "cp put"},
    {"metadata", 0, true, opt_id::metadata, "cp put"},
    {"if-match", 0, true, opt_id::if_match, "put rm stat"},
    {"if-none-match", 0, true, opt_id::if_none_match, "put stat"},
    {"expires", 0, true, opt_id::expires, "presign"},
    {"method", 0, true, opt_id::method, "presign"},
    {"concurrency", 0, true, opt_id::concurrency, "cp"},
}};

struct verb_spec {
  std::string_view name;
  unsigned min_args, max_args;
};

constexpr std::array<verb_spec, 10> verbs{{
    {"ls", 0, 1}, {"cp", 2, 2}, {"cat", 1, 1}, {"rm", 1, 1}, {"stat", 1, 1},
    {"put", 1, 1}, {"presign", 1, 1}, {"mb", 1, 1}, {"rb", 1, 1}, {"whoami", 0, 0},
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
    if (a.starts_with("--")) {
      auto name = a.substr(2);
      auto eq = name.find('=');
      if (eq != std::string_view::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
        shown = "--" + std::string(name);
      }
      for (auto const& o : options)
        if (o.long_name == name) spec = &o;
    } else if (a.size() == 2) {
      for (auto const& o : options)
        if (o.short_name != 0 && o.short_name == a[1]) spec = &o;
    }
    if (spec == nullptr) return usage("unknown option '" + printable(shown) + "'");
    if (!spec->verbs.empty() && !verb_allows(*spec, cl.verb)) {
      if (cl.verb.empty()) return usage("option '" + shown + "' comes after a command (" + std::string(spec->verbs) + ")");
      return usage("option '" + shown + "' does not apply to 'floe " + cl.verb + "'");
    }
    std::string_view value;
    if (spec->takes_value) {
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

std::string help_text(std::string_view verb) {
  constexpr std::string_view whoami_help =
      "usage: floe whoami [--verbose] [--json]\n\n"
      "Asks STS who the credentials belong to (GetCallerIdentity) and prints the\n"
      "account, the ARN and the user id. --verbose adds where the credentials came\n"
      "from (the default chain's source), their generation and their expiry.\n"
      "Never prints a secret key, a session token or a token file's contents.\n"
      "The STS endpoint: --endpoint-url when given, else AWS_ENDPOINT_URL_STS,\n"
      "AWS_ENDPOINT_URL, the regional endpoint (--region, AWS_REGION), the global one.\n"
      "  -v, --verbose        also the credential source, generation and expiry (and, as\n"
      "                       everywhere, the request log on stderr)\n";
  constexpr std::string_view globals =
      "Global options (anywhere on the line):\n"
      "  --endpoint-url URL   S3 endpoint (else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile, AWS)\n"
      "  --region REGION      signing region (else AWS_REGION, AWS_DEFAULT_REGION, the profile, us-east-1)\n"
      "  --profile NAME       profile in ~/.aws/config and ~/.aws/credentials (else AWS_PROFILE)\n"
      "  --path-style         path-style addressing (host/bucket/key)\n"
      "  --ca-bundle FILE     trusted CAs (PEM) for TLS (else AWS_CA_BUNDLE, the system store)\n"
      "  --no-verify-ssl      do not verify TLS certificates (test rigs only; warns)\n"
      "  --json               machine-readable output on stdout, errors as JSON on stderr\n"
      "  -v, --verbose        request log on stderr: one line per HTTP attempt (method, URL,\n"
      "                       status, request id, attempt, time); retries and redirects show\n"
      "  --debug              -v plus each attempt's request and reply headers; Authorization,\n"
      "                       session tokens, signatures and credentials are never shown\n"
      "  -h, --help           help; floe COMMAND --help for a command\n"
      "  --version            print the version\n";
  std::string s;
  if (verb == "ls") {
    s = "usage: floe ls [s3://BUCKET[/PREFIX]] [--recursive]\n\n"
        "With no bucket ('floe ls' or 'floe ls s3://'): lists the buckets (ListBuckets).\n"
        "Text: CREATION-DATE NAME; --json: {\"buckets\": [{\"name\", \"creation_date\",\n"
        "\"region\"}], \"owner\": {\"id\", \"display_name\"}}.\n\n"
        "Lists objects under PREFIX. Without --recursive, keys are grouped at '/'\n"
        "(shown as PRE lines). Text: LAST-MODIFIED SIZE KEY; --json: one object with\n"
        "\"objects\" and \"prefixes\".\n\n"
        "  -r, --recursive      every key under the prefix\n";
  } else if (verb == "cp") {
    s = "usage: floe cp SRC DST [--recursive] [--concurrency N]\n\n"
        "Copies local to S3, S3 to local, or S3 to S3 (server side). '-' is stdin or\n"
        "stdout. A DST ending in '/' (or an existing directory) receives the source's\n"
        "base name. Large files go up in parallel parts. With --recursive, SRC is a\n"
        "directory or an S3 prefix and several objects move at once; keys that would\n"
        "leave the destination directory ('..' segments, absolute) are refused.\n\n"
        "  -r, --recursive      copy a directory or prefix\n"
        "  --concurrency N      objects in flight with --recursive (1-64, default 8)\n"
        "  --content-type TYPE  Content-Type of uploaded objects\n"
        "  --metadata NAME=VAL  user metadata (x-amz-meta-NAME), repeatable\n"
        "  --no-progress        no progress bar\n";
  } else if (verb == "cat") {
    s = "usage: floe cat s3://BUCKET/KEY\n\nWrites the object to stdout.\n";
  } else if (verb == "rm") {
    s = "usage: floe rm s3://BUCKET/KEY [--if-match ETAG] | floe rm s3://BUCKET/PREFIX --recursive\n\n"
        "Deletes an object (a missing key is not an error: S3 answers 204), or with\n"
        "--recursive every key under the prefix (DeleteObjects, 1000 at a time).\n\n"
        "  -r, --recursive      delete every key under the prefix\n"
        "  --if-match ETAG      delete only if the object's ETag is ETAG (else exit 3)\n";
  } else if (verb == "stat") {
    s = "usage: floe stat s3://BUCKET/KEY [--if-none-match ETAG] [--if-match ETAG]\n\n"
        "HeadObject: size, ETag, last modified, content type, version id, metadata.\n\n"
        "  --if-none-match ETAG exit 3 (\"not modified\") when the ETag is still ETAG:\n"
        "                       a cheap change check\n"
        "  --if-match ETAG      exit 3 (precondition failed) unless the ETag is ETAG\n";
  } else if (verb == "put") {
    s = "usage: floe put s3://BUCKET/KEY [--file FILE] [--if-none-match '*' | --if-match ETAG]\n\n"
        "Uploads FILE, or stdin when no --file is given. Prints the new ETag.\n\n"
        "  -f, --file FILE      read the body from FILE (large files go up in parts)\n"
        "  --if-none-match '*'  create only: exit 3 if the key exists\n"
        "  --if-match ETAG      replace only if the current ETag is ETAG, else exit 3\n"
        "                       A conditional put carries a write id (x-amz-meta-floe-write-id).\n"
        "                       If its reply is lost or a 5xx, floe looks (HeadObject): its\n"
        "                       own write there exits 0; anything else exits 3, saying the\n"
        "                       reply was ambiguous and what is there\n"
        "  --content-type TYPE  Content-Type\n"
        "  --metadata NAME=VAL  user metadata (x-amz-meta-NAME), repeatable\n"
        "  --no-progress        no progress bar\n";
  } else if (verb == "whoami") {
    s = whoami_help;
  } else if (verb == "presign") {
    s = "usage: floe presign s3://BUCKET/KEY [--expires SECONDS] [--method GET|PUT|HEAD|DELETE]\n\n"
        "Prints a presigned URL (SigV4 query signing), valid for --expires seconds\n"
        "(default 3600, at most 604800). Nothing is sent.\n";
  } else if (verb == "mb") {
    s = "usage: floe mb s3://BUCKET\n\nCreates a bucket (in --region).\n";
  } else if (verb == "rb") {
    s = "usage: floe rb s3://BUCKET\n\nDeletes an empty bucket.\n";
  } else {
    s = "usage: floe [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
        "Commands:\n"
        "  ls       list buckets or objects  floe ls [s3://b/prefix/] [--recursive]\n"
        "  cp       copy objects and files   floe cp SRC DST [--recursive]\n"
        "  cat      object to stdout         floe cat s3://b/k\n"
        "  put      stdin or a file to S3    floe put s3://b/k [--file F] [--if-none-match '*']\n"
        "  rm       delete                   floe rm s3://b/k | floe rm s3://b/p/ --recursive\n"
        "  stat     object metadata          floe stat s3://b/k [--if-none-match ETAG]\n"
        "  presign  presigned URL            floe presign s3://b/k [--expires S]\n"
        "  mb, rb   make / remove a bucket   floe mb s3://b\n"
        "  whoami   who the credentials are  floe whoami [--verbose]\n\n"
        "Keys are taken literally from the URL: no percent-decoding.\n\n"
        "Exit codes: 0 success, 1 error, 2 usage, 3 condition not met (precondition\n"
        "failed, conflict, not modified), 4 not found.\n\n";
    s += globals;
    return s;
  }
  s += "\n";
  s += globals;
  return s;
}

}  // namespace floe::cli
