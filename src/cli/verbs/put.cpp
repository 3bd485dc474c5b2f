// put: stdin or a file to one key, optionally conditional (create only, or
// replace only a known version).

#include "../context.hpp"
#include "../options.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../transfer.hpp"
#include "../transfer_options.hpp"
#include "../verbs.hpp"

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_put(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  std::string const local = x.cl.file.empty() ? std::string("-") : x.cl.file;
  x.print_etag = true;
  co_return co_await upload_one(x, local, u->bucket, u->key, nullptr);
}

result<void> check_put(command_line const& cl) {
  if (!cl.if_none_match.empty() && cl.if_none_match != "*")
    return usage("put --if-none-match takes only '*' (create only)");
  if (!cl.if_none_match.empty() && !cl.if_match.empty())
    return usage("put takes --if-match or --if-none-match, not both");
  return check_write_options(cl);
}

constexpr option_spec file{"file", 'f', "FILE", "read the body from FILE (large files go up in parts)",
                           set_text<&command_line::file>};
constexpr option_spec put_if_none_match{"if-none-match", 0, "'*'", "create only: exit 3 if the key exists",
                                    set_if_none_match};
constexpr option_spec put_if_match{
    "if-match", 0, "ETAG",
    "replace only if the current ETag is ETAG, else exit 3.\nA conditional put carries a write id "
    "(x-amz-meta-floe-write-id).\nIf its reply is lost or a 5xx, floe looks (HeadObject): its\nown write there exits 0; "
    "anything else exits 3, saying the\nreply was ambiguous and what is there",
    set_if_match};
constexpr option_spec const* put_options[] = {
    &file,          &put_if_none_match,        &put_if_match,   &content_type_option,  &metadata_option,
    &no_guess_mime_type_option, &no_progress_option, &storage_class_option, &sse_option,
    &sse_kms_key_id_option,     &acl_option,         &cache_control_option, &checksum_algorithm_option};

constexpr verb_spec put_verbs[] = {
    {.name = "put",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET/KEY",
     .summary = "stdin or a file to S3",
     .description = "Uploads FILE, or stdin when no --file is given. Prints the new ETag.\n"
                    "--if-none-match '*' and --if-match exclude each other. The Content-Type is\n"
                    "guessed from FILE's name (stdin: the key's) unless --content-type or\n"
                    "--no-guess-mime-type.\n",
     .options = put_options,
     .check = check_put,
     .run = cmd_put},
};

}  // namespace

namespace verbs {
extern family const put = put_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
