// cp and cat: objects to and from files, stdin and stdout, and between keys.
// One object is transfer.hpp's; cp --recursive is tree_transfer.cpp's.

#include "../context.hpp"
#include "../one_object.hpp"
#include "../options.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../transfer.hpp"
#include "../transfer_options.hpp"
#include "../tree_transfer.hpp"
#include "../verbs.hpp"

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> cmd_cp(context& x) {
  if (x.cl.recursive) co_return co_await transfer_tree(x, tree_verb::cp);
  auto o = resolve_one_object(x);
  if (!o) co_return usage_error(x, o.error().diag.message);
  if (x.cl.dryrun) {
    std::string_view const word = o->dir == one_object::way::upload     ? "upload"
                                  : o->dir == one_object::way::download ? "download"
                                                                        : "copy";
    print_op_line(x, word, shown_endpoint(o->source()), shown_endpoint(o->destination()));
    co_return exit_ok;
  }
  switch (o->dir) {
    case one_object::way::copy:
      co_return co_await copy_one(x, o->sbucket, o->skey, o->dbucket, o->dkey, nullptr, nullptr);
    case one_object::way::download:
      co_return co_await download_one(x, o->sbucket, o->skey, o->local, false, nullptr);
    case one_object::way::upload: break;
  }
  co_return co_await upload_one(x, o->local, o->dbucket, o->dkey, nullptr);
}

awaitable<int> cmd_cat(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  std::string const out = "-";
  co_return co_await download_one(x, u->bucket, u->key, out, true, nullptr);
}

result<void> check_cp(command_line const& cl) { return check_output_and_filters(cl, cl.recursive); }

constexpr option_spec cp_recursive{"recursive", 'r', "", "copy a directory or prefix", set_flag<&command_line::recursive>};
constexpr option_spec const* cp_options[] = {
    &cp_recursive,           &concurrency_option,        &exclude_option,        &include_option,
    &dryrun_option,       &quiet_option,              &only_show_errors_option, &content_type_option,
    &metadata_option,     &no_guess_mime_type_option, &no_progress_option,    &storage_class_option,
    &sse_option,          &sse_kms_key_id_option,     &acl_option,            &cache_control_option, &checksum_algorithm_option};

constexpr verb_spec cp_verbs[] = {
    {.name = "cp",
     .min_args = 2,
     .max_args = 2,
     .operands = "SRC DST",
     .summary = "copy objects and files",
     .description = "Copies local to S3, S3 to local, or S3 to S3 (server side). '-' is stdin or\n"
                    "stdout. A DST ending in '/' (or an existing directory) receives the source's\n"
                    "base name; a download makes the directories it needs. Prints what it did as\n"
                    "aws s3 does (\"upload: ./f to s3://b/f\"); --json gives the ETag. Large files\n"
                    "go up in parallel parts; an upload's Content-Type is guessed from the file\n"
                    "name unless --content-type or --no-guess-mime-type. On an S3-to-S3 copy,\n"
                    "--content-type, --metadata and --cache-control replace the source's (what is\n"
                    "not given is kept). --storage-class, --sse, --acl and --cache-control apply to\n"
                    "every object written; a download takes none of these (nor --content-type,\n"
                    "--metadata, --no-guess-mime-type). With --recursive, SRC is a directory or an\n"
                    "S3 prefix and --concurrency objects move at once; keys that would leave the\n"
                    "destination directory ('..' segments, absolute) are refused, and local\n"
                    "entries that are not regular files (fifos, sockets, devices, broken links, a\n"
                    "loop) are skipped, each named on stderr. --json --recursive: one\n"
                    "document, {\"source\", \"destination\", \"objects\": [{\"source\", \"destination\",\n"
                    "\"size\", \"etag\"}], \"skipped\": [{\"path\", \"reason\"}], \"errors\": [...],\n"
                    "\"copied\", \"failed\", \"bytes\", \"exit_code\"}, the same in every direction.\n",
     .options = cp_options,
     .check = check_cp,
     .run = cmd_cp},
    {.name = "cat",
     .min_args = 1,
     .max_args = 1,
     .operands = "s3://BUCKET/KEY",
     .summary = "object to stdout",
     .description = "Writes the object to stdout.\n",
     .run = cmd_cat},
};

}  // namespace

namespace verbs {
extern family const cp = cp_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
