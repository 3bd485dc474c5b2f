// mv: copy, then remove the source once the copy is done and only while the
// source is still what was copied (move_source.hpp).

#include "../context.hpp"
#include "../json_writer.hpp"
#include "../move_source.hpp"
#include "../one_object.hpp"
#include "../op_trace.hpp"
#include "../output.hpp"
#include "../s3_uri.hpp"
#include "../transfer.hpp"
#include "../transfer_options.hpp"
#include "../tree_transfer.hpp"
#include "../verbs.hpp"

namespace floe::cli {

namespace {

using boost::asio::awaitable;

awaitable<int> move_one(context& x, one_object const& o, transfer_record& rec) {
  switch (o.dir) {
    case one_object::way::upload: {
      auto before = stamp_of(o.local);
      if (!before) co_return fail(x, before.error(), "PutObject", o.local);
      int rc = co_await upload_one(x, o.local, o.dbucket, o.dkey, &rec);
      if (rc != exit_ok) co_return rc;
      co_return remove_moved_file(x, o.local, *before, o.destination());
    }
    case one_object::way::download: {
      int rc = co_await download_one(x, o.sbucket, o.skey, o.local, false, &rec);
      if (rc != exit_ok) co_return rc;
      co_return co_await remove_moved_object(x, o.sbucket, o.skey, rec.etag);
    }
    case one_object::way::copy: break;
  }
  // The version copied is the one looked at here, and the only one deleted.
  op_trace trace(x, "HeadObject", "HEAD", o.sbucket, std::string_view(o.skey));
  auto h = co_await x.c.async_head_object(o.sbucket, o.skey);
  trace.done(h);
  if (!h) co_return fail(x, h.error(), "HeadObject", resource_of(o.sbucket, o.skey));
  copy_source const cs{h->info.etag, h->info.size};
  rec.size = h->info.size;
  int rc = co_await copy_one(x, o.sbucket, o.skey, o.dbucket, o.dkey, &cs, &rec);
  if (rc != exit_ok) co_return rc;
  co_return co_await remove_moved_object(x, o.sbucket, o.skey, h->info.etag);
}

awaitable<int> cmd_mv(context& x) {
  if (x.cl.recursive) co_return co_await transfer_tree(x, tree_verb::mv);
  auto o = resolve_one_object(x);
  if (!o) co_return usage_error(x, o.error().diag.message);
  if (o->local == "-") co_return usage_error(x, "mv moves a file or an object: not stdin or stdout");
  if (o->dir == one_object::way::copy && o->sbucket == o->dbucket && o->skey == o->dkey)
    co_return usage_error(x, "SRC and DST are the same object");
  std::string const from = shown_endpoint(o->source()), to = shown_endpoint(o->destination());
  if (x.cl.dryrun) {
    print_op_line(x, "move", from, to);
    co_return exit_ok;
  }
  transfer_record rec;
  int const rc = co_await move_one(x, *o, rec);
  if (rc != exit_ok) co_return rc;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("source", o->source()).field("destination", o->destination());
    w.field("size", rec.size).field("etag", rec.etag).end_object();
    write_stdout(w.line());
  } else {
    print_op_line(x, "move", from, to);
  }
  co_return exit_ok;
}

result<void> check_mv(command_line const& cl) { return check_output_and_filters(cl, cl.recursive); }

constexpr option_spec mv_recursive{"recursive", 'r', "", "move a directory or prefix", set_flag<&command_line::recursive>};
constexpr option_spec const* mv_options[] = {
    &mv_recursive,           &concurrency_option,        &exclude_option,        &include_option,
    &dryrun_option,       &quiet_option,              &only_show_errors_option, &content_type_option,
    &metadata_option,     &no_guess_mime_type_option, &no_progress_option,    &storage_class_option,
    &sse_option,          &sse_kms_key_id_option,     &acl_option,            &cache_control_option, &checksum_algorithm_option};

constexpr verb_spec mv_verbs[] = {
    {.name = "mv",
     .min_args = 2,
     .max_args = 2,
     .operands = "SRC DST",
     .summary = "move objects and files",
     .description = "cp, then the source is removed: only once its copy is done, and only while\n"
                    "it is still what was copied (a file of the same size, time and inode; an\n"
                    "object of the same ETag: DeleteObject with If-Match, or where the store\n"
                    "ignores that (Ceph RGW 16.2) a HeadObject just before). A source that\n"
                    "changed is kept: exit 3. SRC and DST as for cp; prints \"move: SRC to DST\".\n"
                    "--json: {\"source\", \"destination\", \"size\", \"etag\"}; with --recursive,\n"
                    "cp --recursive's document.\n",
     .options = mv_options,
     .check = check_mv,
     .run = cmd_mv},
};

}  // namespace

namespace verbs {
extern family const mv = mv_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
