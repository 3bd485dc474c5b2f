// cp --recursive, sync and mv --recursive: two trees walked side by side,
// the transfers started as the walk finds them.

#include "tree_transfer.hpp"

#include "delete_batch.hpp"
#include "filters.hpp"
#include "interrupt.hpp"
#include "job_pool.hpp"
#include "json_writer.hpp"
#include "move_source.hpp"
#include "output.hpp"
#include "s3_uri.hpp"
#include "shown_path.hpp"
#include "spill_buffer.hpp"
#include "spill_list.hpp"
#include "transfer.hpp"
#include "tree_source.hpp"

#include <boost/asio/this_coro.hpp>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <unistd.h>
#include <utility>
#include <vector>

namespace floe::cli {

namespace fs = std::filesystem;
using boost::asio::awaitable;

namespace {

enum class tree_side { source, destination };

struct side {
  bool s3 = false;
  std::string bucket, prefix;  // S3: the prefix as a folder ("" or ending in '/')
  std::string dir;             // local
  std::string uri_or_path(std::string const& rel) const {
    return s3 ? uri_of(bucket, prefix + rel) : local_path_of(dir, rel);
  }
};

result<side> side_of(std::string const& arg) {
  side s;
  if (!is_s3_uri(arg)) {
    s.dir = arg;
    return s;
  }
  auto u = parse_s3_uri(arg);
  if (!u) return u.error();
  s.s3 = true;
  s.bucket = std::move(u->bucket);
  s.prefix = dir_prefix(std::move(u->key));
  return s;
}

// A key's path below a prefix as a relative local path, or nullopt when it
// cannot safely be one (it would leave the directory).
std::optional<std::string> safe_relative(std::string_view rel) {
  if (rel.empty() || rel.front() == '/' || rel.back() == '/') return std::nullopt;
  if (rel.find('\0') != std::string_view::npos) return std::nullopt;
  std::string_view rest = rel;
  while (true) {
    auto slash = rest.find('/');
    auto seg = rest.substr(0, slash);
    if (seg == ".." || seg == "." || seg.empty()) return std::nullopt;
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return std::string(rel);
}

struct run {
  run(context& cx, tree_verb v, side s, side d) : x(cx), verb(v), src(std::move(s)), dst(std::move(d)) {}
  context& x;
  tree_verb verb;
  side src, dst;
  compare_mode mode = compare_mode::size_and_time;
  // --json: the document goes out as the objects are done (its "objects"
  // first), so that no part of it grows with the number of objects in
  // memory; what sync --delete removed (as many) waits in a spill_buffer.
  json_writer doc;
  bool begun = false;
  std::uint64_t copied = 0, bytes = 0;
  spill_buffer deleted;  // JSON values, comma-separated
  json_writer deleted_values{json_elements};  // writes them
  std::vector<std::pair<std::string, std::string>> skipped;
  // What the source has but does not send (a fifo, a loop): never taken
  // for something it lacks. A rel, or a rel and '/' for a whole subtree.
  std::set<std::string> kept;
  std::vector<error> errors;
  // sync --delete: the destination's extra entries (rels), held until both
  // walks have ended whole; then removed (S3: DeleteObjects batches, whose
  // keys go to `deleted` under --json), or, after any error, none of them.
  spill_list extra;
  delete_tally deletes;
  std::uint64_t unchanged = 0, not_deleted = 0;

  // Whether the source skipped `rel` or a directory holding it.
  bool kept_by_source(std::string const& rel) const {
    auto it = kept.upper_bound(rel);  // what is <= rel comes before it
    if (it == kept.begin()) return false;
    --it;
    return *it == rel || (it->back() == '/' && rel.starts_with(*it));
  }

  std::string_view word() const {
    if (verb == tree_verb::mv) return "move";
    return src.s3 ? (dst.s3 ? "copy" : "download") : "upload";
  }

  void begin_document() {
    if (begun) return;
    begun = true;
    doc.begin_object().field("source", x.cl.args[0]).field("destination", x.cl.args[1]).key("objects").begin_array();
  }

  // --json: one object done.
  void add_object(transfer_record const& r) {
    begin_document();
    ++copied;
    bytes += r.size;
    doc.begin_object().field("source", r.source).field("destination", r.destination).field("size", r.size);
    doc.field("etag", r.etag).end_object();
    write_stdout(doc.take());
  }

  // --json: one deleted key or file, as given.
  void add_deleted(std::string const& uri_or_path) {
    if (auto r = deleted.append(deleted_values.value(uri_or_path).take()); !r) {
      fail(x, r.error(), "delete", uri_or_path);
      errors.push_back(r.error());
    }
  }
};

// One entry copied (and, for mv, its source removed).
awaitable<int> transfer_entry(run& st, tree_entry const& e) {
  context& x = st.x;
  transfer_record record;
  transfer_record* rec = &record;
  rec->source = st.src.uri_or_path(e.rel);
  rec->destination = st.dst.uri_or_path(e.rel);
  rec->size = e.size;
  std::string const from = shown_endpoint(rec->source), to = shown_endpoint(rec->destination);
  if (x.cl.dryrun) {
    print_op_line(x, st.word(), from, to);
    if (x.g.json) st.add_object(record);
    co_return exit_ok;
  }
  bool const moving = st.verb == tree_verb::mv;
  std::string const skey = st.src.prefix + e.rel, dkey = st.dst.prefix + e.rel;
  int rc = exit_ok;
  if (st.src.s3 && st.dst.s3) {
    // A move copies exactly the version listed, and deletes only that.
    copy_source cs{moving ? e.etag : std::string(), e.size};
    rc = co_await copy_one(x, st.src.bucket, skey, st.dst.bucket, dkey, &cs, rec);
    if (rc == exit_ok && moving) rc = co_await remove_moved_object(x, st.src.bucket, skey, e.etag);
  } else if (st.src.s3) {
    rc = co_await download_one(x, st.src.bucket, skey, rec->destination, true, rec);
    if (rc == exit_ok && moving) rc = co_await remove_moved_object(x, st.src.bucket, skey, rec->etag);
  } else {
    file_stamp before;
    if (moving) {
      auto s = stamp_of(rec->source);
      if (!s) co_return fail(x, s.error(), "PutObject", rec->source);
      before = *s;
    }
    rc = co_await upload_one(x, rec->source, st.dst.bucket, dkey, rec);
    if (rc == exit_ok && moving) rc = remove_moved_file(x, rec->source, before, rec->destination);
  }
  if (rc != exit_ok) co_return rc;
  print_op_line(x, st.word(), from, to);
  if (x.g.json) st.add_object(record);
  co_return exit_ok;
}

// sync --delete: one destination entry the source lacks, held until both
// walks have ended (a listing that fails or breaks its order later must
// delete nothing).
int hold_extra(run& st, tree_entry const& d) {
  if (st.kept_by_source(d.rel)) return exit_ok;
  if (auto r = st.extra.push_back(d.rel); !r) return fail(st.x, r.error(), "delete", st.dst.uri_or_path(d.rel));
  return exit_ok;
}

// sync --delete, both walks whole and nothing failed: what was held goes,
// S3 keys in DeleteObjects batches of 1000 (up to --concurrency at once),
// local files one by one.
awaitable<int> remove_extra(run& st, job_pool& pool) {
  context& x = st.x;
  int rc = exit_ok;
  std::vector<std::string> batch;
  auto send = [&]() -> awaitable<void> {
    auto job = [&st, keys = std::exchange(batch, {})]() mutable {
      return delete_keys(st.x, st.dst.bucket, keys, st.deletes);
    };
    co_await pool.submit(job);
  };
  std::string rel;
  while (interrupted() == 0) {
    auto more = st.extra.next(rel);
    if (!more) co_return worse(rc, fail(x, more.error(), "delete", st.dst.uri_or_path("")));
    if (!*more) break;
    if (st.dst.s3) {
      batch.push_back(st.dst.prefix + rel);
      if (batch.size() == 1000) co_await send();
      continue;
    }
    std::string const path = local_path_of(st.dst.dir, rel);
    if (!x.cl.dryrun && ::unlink(path.c_str()) != 0) {
      rc = worse(rc, fail(x, system_error_of(errno, "cannot remove " + path), "delete", path));
      continue;
    }
    if (x.g.json) st.add_deleted(path);
    print_op_line(x, "delete", shown_path(path), "");
  }
  if (!batch.empty() && interrupted() == 0) co_await send();
  co_return rc;
}

// The rest of the --json document after its "objects"; false when stdout
// fails.
bool end_document(run& st, int rc) {
  context const& x = st.x;
  st.begin_document();
  json_writer& w = st.doc;
  w.end_array();
  w.key("skipped").begin_array();
  for (auto const& [path, reason] : st.skipped)
    w.begin_object().field("path", path).field("reason", reason).end_object();
  w.end_array();
  w.key("errors").begin_array();
  for (auto const& e : st.errors) write_error_fields(w, e);
  w.end_array();
  if (st.verb == tree_verb::sync) {
    // "deleted" comes out of the spill buffer, between two takes.
    w.key("deleted").begin_array().splice_values(!st.deleted.empty());
    if (!write_stdout(w.take()) || !st.deleted.write_to_stdout()) return false;
    w.end_array().field("unchanged", st.unchanged);
    if (st.x.cl.delete_removed) w.field("not_deleted", st.not_deleted);
  }
  if (x.cl.dryrun) w.field("dryrun", true);
  w.field("copied", st.copied).field("failed", st.errors.size()).field("bytes", st.bytes).field("exit_code", rc);
  return write_stdout(w.end_object().line());
}

std::string_view verb_name(tree_verb v) {
  switch (v) {
    case tree_verb::cp: return "cp";
    case tree_verb::sync: return "sync";
    case tree_verb::mv: return "mv";
  }
  return "cp";
}

// The rules a pair of trees must meet; empty when they do.
std::string refusal(run const& st) {
  auto const& s = st.src;
  auto const& d = st.dst;
  if (!s.s3 && !d.s3) return "one of SRC and DST must be an s3:// URI";
  if (d.dir == "-" || s.dir == "-") return "stdin and stdout hold one object: not with a tree";
  if (s.s3 && d.s3 && s.bucket == d.bucket && (s.prefix.starts_with(d.prefix) || d.prefix.starts_with(s.prefix)))
    return "s3://" + s.bucket + "/" + s.prefix + " and s3://" + d.bucket + "/" + d.prefix +
           " overlap: the walk would meet its own copies";
  if (st.x.cl.exact_timestamps && !(s.s3 && !d.s3))
    return "--exact-timestamps applies from S3 to a local directory (an upload or a copy is always newer than "
           "its source)";
  return {};
}

}  // namespace

awaitable<int> transfer_tree(context& x, tree_verb verb) {
  auto s = side_of(x.cl.args[0]);
  if (!s) co_return usage_error(x, s.error().diag.message);
  auto d = side_of(x.cl.args[1]);
  if (!d) co_return usage_error(x, d.error().diag.message);
  run st{x, verb, std::move(*s), std::move(*d)};
  if (auto why = refusal(st); !why.empty()) co_return usage_error(x, why);
  std::error_code ec;
  if (!st.src.s3 && !fs::is_directory(st.src.dir, ec))
    co_return usage_error(x, "'" + printable(st.src.dir) + "' is not a directory");
  if (x.cl.size_only) st.mode = compare_mode::size_only;
  if (x.cl.exact_timestamps) st.mode = compare_mode::exact_timestamps;

  std::string const name(verb_name(verb));
  skipped_fn on_skip = [&st, &name](skipped_entry const& e) {
    if (!st.x.cl.quiet) {
      std::string line = "floe: " + name + ": skipped " + printable(e.path) + ": " + e.reason;
      line += e.subtree ? "\n" : ", not a regular file\n";
      std::fwrite(line.data(), 1, line.size(), stderr);
      std::fflush(stderr);
    }
    st.skipped.emplace_back(e.path, e.reason);
    st.kept.insert(e.subtree ? e.rel + "/" : e.rel);
  };
  auto source = st.src.s3 ? s3_tree(x, st.src.bucket, st.src.prefix) : local_tree(st.src.dir, on_skip);
  // Only sync looks at the destination; a local one that is not there yet
  // is empty.
  std::unique_ptr<tree_source> dest;
  if (verb == tree_verb::sync) {
    if (st.dst.s3) dest = s3_tree(x, st.dst.bucket, st.dst.prefix);
    else if (fs::exists(st.dst.dir, ec)) dest = local_tree(st.dst.dir, nullptr);
  }

  x.errors = &st.errors;
  x.many = true;
  if (x.g.json)
    st.deletes.on_deleted = [&st](std::vector<std::string> const& keys) {
      for (auto const& k : keys) st.add_deleted(uri_of(st.dst.bucket, k));
    };
  job_pool pool(co_await boost::asio::this_coro::executor, x.cl.concurrency);
  // Jobs in flight use `st`: a signal must not throw this frame away under
  // them. The listings in progress are still cancelled (they fail as
  // aborted), the walk stops, and drain() waits for the jobs to unwind.
  co_await boost::asio::this_coro::throw_if_cancelled(false);
  int rc = exit_ok;
  tree_entry se, de;
  auto step = [&](tree_source& t, tree_entry& e, tree_side which) -> awaitable<std::optional<bool>> {
    auto r = co_await t.next(e);
    if (r) co_return *r;
    auto const& sd = which == tree_side::source ? st.src : st.dst;
    rc = worse(rc, fail(x, r.error(), sd.s3 ? "ListObjectsV2" : "read", sd.s3 ? resource_of(sd.bucket, sd.prefix) : sd.dir));
    co_return std::nullopt;
  };
  std::optional<bool> hs = co_await step(*source, se, tree_side::source);
  std::optional<bool> hd = dest ? co_await step(*dest, de, tree_side::destination) : std::optional<bool>(false);
  bool const deleting = verb == tree_verb::sync && x.cl.delete_removed;
  while (hs && hd && (*hs || *hd) && interrupted() == 0) {
    if (*hd && (!*hs || de.rel < se.rel)) {  // only at the destination
      if (deleting && included(x.cl.filters, de.rel)) rc = worse(rc, hold_extra(st, de));
      hd = co_await step(*dest, de, tree_side::destination);
      continue;
    }
    bool const both = *hd && de.rel == se.rel;
    if (included(x.cl.filters, se.rel)) {
      if (both && !needs_copy(se, de, st.mode)) {
        ++st.unchanged;
      } else if (!st.src.s3 || st.dst.s3 || safe_relative(se.rel)) {
        auto job = [&st, e = se]() { return transfer_entry(st, e); };
        co_await pool.submit(job);
      } else {
        error e(errc::invalid_argument, "refusing key '" + printable(st.src.prefix + se.rel) +
                                            "': as a file name it would leave the destination directory");
        rc = worse(rc, fail(x, e, "GetObject", resource_of(st.src.bucket, st.src.prefix + se.rel)));
      }
    }
    hs = co_await step(*source, se, tree_side::source);
    if (both && hs) hd = co_await step(*dest, de, tree_side::destination);
  }
  rc = worse(rc, co_await pool.drain());
  // What --delete held goes only when both walks ended whole and nothing
  // failed: an entry the source has is never taken for one it lacks.
  if (!st.extra.empty()) {
    bool const whole = hs && hd && !*hs && !*hd && interrupted() == 0;
    if (whole && rc == exit_ok) {
      rc = worse(rc, co_await remove_extra(st, pool));
      rc = worse(rc, co_await pool.drain());
    } else {
      st.not_deleted = st.extra.size();
      if (!x.cl.quiet && !x.g.json && interrupted() == 0) {
        std::string line = "floe: sync: --delete removed nothing (" + std::to_string(st.not_deleted) +
                           (st.not_deleted == 1 ? " entry" : " entries") + " the source lacks): there were errors\n";
        std::fwrite(line.data(), 1, line.size(), stderr);
        std::fflush(stderr);
      }
    }
  }
  x.errors = nullptr;
  if (x.g.json) end_document(st, rc);
  co_return rc;
}

}  // namespace floe::cli
