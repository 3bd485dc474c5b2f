// cp --recursive: what to copy (keys listed under a prefix, files walked in
// a directory), the copies in parallel, and one summary.

#include "recursive_copy.hpp"

#include "json_writer.hpp"
#include "output.hpp"
#include "run_parallel.hpp"
#include "interrupt.hpp"
#include "list_pages.hpp"
#include "s3_uri.hpp"
#include "transfer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

namespace floe::cli {

namespace fs = std::filesystem;
using boost::asio::awaitable;

namespace {

// A key's path below a prefix as a relative local path, or nullopt when it
// cannot be one safely (it would leave the directory, or is a directory
// marker).
std::optional<fs::path> safe_relative(std::string_view rel) {
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
  return fs::path(std::string(rel));
}

// Why a directory entry is not uploaded: `own` is the entry itself,
// `target` what a link points to.
std::string not_regular_reason(fs::file_status own, fs::file_status target) {
  auto kind = [](fs::file_type t) -> std::string {
    switch (t) {
      case fs::file_type::directory: return "a directory";
      case fs::file_type::fifo: return "a fifo";
      case fs::file_type::socket: return "a socket";
      case fs::file_type::block: return "a block device";
      case fs::file_type::character: return "a character device";
      case fs::file_type::not_found: return "nothing (broken)";
      default: return "an unknown kind of file";
    }
  };
  if (fs::is_symlink(own)) return "a symbolic link to " + kind(target.type());
  return kind(own.type());
}

// The --json document of a recursive copy, the same in every direction.
// Its "objects" go out as they are copied (a page of keys at a time), so
// that a copy of any number of keys holds none of them at the end; what
// failed or was skipped (few) comes after them.
class summary_doc {
 public:
  summary_doc(std::string_view src, std::string_view dst) : src_(src), dst_(dst) {}

  // Writes out the copies of `jobs` that succeeded.
  bool add(std::vector<transfer_record> const& jobs) {
    begin();
    for (auto const& j : jobs) {
      if (!j.ok) continue;
      ++copied_;
      bytes_ += j.size;
      w_.begin_object().field("source", j.source).field("destination", j.destination).field("size", j.size);
      w_.field("etag", j.etag).end_object();
    }
    return write_stdout(w_.take());
  }

  bool finish(std::vector<std::pair<std::string, std::string>> const& skipped, std::vector<error> const& errors,
              int rc) {
    begin();
    w_.end_array();
    w_.key("skipped").begin_array();
    for (auto const& [path, reason] : skipped)
      w_.begin_object().field("path", path).field("reason", reason).end_object();
    w_.end_array();
    w_.key("errors").begin_array();
    for (auto const& e : errors) write_error_fields(w_, e);
    w_.end_array();
    w_.field("copied", copied_).field("failed", errors.size()).field("bytes", bytes_).field("exit_code", rc);
    w_.end_object();
    return write_stdout(w_.take() + "\n");
  }

 private:
  void begin() {
    if (begun_) return;
    begun_ = true;
    w_.begin_object().field("source", src_).field("destination", dst_).key("objects").begin_array();
  }

  std::string_view src_, dst_;
  json_writer w_;
  bool begun_ = false;
  std::uint64_t copied_ = 0, bytes_ = 0;
};

}  // namespace

awaitable<int> recursive_copy(context& x) {
  std::string const& src = x.cl.args[0];
  std::string const& dst = x.cl.args[1];
  bool const s3_src = is_s3_uri(src), s3_dst = is_s3_uri(dst);
  std::vector<transfer_record> jobs;
  std::vector<std::pair<std::string, std::string>> skipped;  // (path, reason)
  std::vector<error> errors;
  x.errors = &errors;
  summary_doc doc(src, dst);
  std::string sbucket, dbucket;
  int rc = exit_ok;
  if (s3_src) {
    auto s = parse_s3_uri(src);
    if (!s) co_return usage_error(x, s.error().diag.message);
    sbucket = s->bucket;
    std::string const prefix = dir_prefix(s->key);
    std::string dprefix;
    if (s3_dst) {
      auto d = parse_s3_uri(dst);
      if (!d) co_return usage_error(x, d.error().diag.message);
      dbucket = d->bucket;
      dprefix = dir_prefix(d->key);
    } else if (dst == "-") {
      co_return usage_error(x, "--recursive cannot write to stdout");
    }
    // A page of keys at a time: its objects are copied (several at once)
    // before the next page is asked for, so the copy starts with the first
    // page and holds one page whatever the number of keys.
    list_pages pages(x, sbucket, prefix, "");
    s3::list_page page;
    auto fn = [&](std::size_t i) -> awaitable<int> {
      auto& job = jobs[i];
      if (s3_dst) co_return co_await copy_one(x, sbucket, job.source, dbucket, job.destination, &job);
      std::error_code ec;
      fs::create_directories(fs::path(job.destination).parent_path(), ec);
      if (ec) {
        co_return fail(x, system_error_of(ec.value(), "creating the directory of " + job.destination), "GetObject",
                       resource_of(sbucket, job.source));
      }
      co_return co_await download_one(x, sbucket, job.source, job.destination, true, &job);
    };
    for (;;) {
      auto more = co_await pages.next(page);
      if (!more) {
        rc = worse(rc, fail(x, more.error(), "ListObjectsV2", resource_of(sbucket, prefix)));
        break;
      }
      if (!*more) break;
      jobs.clear();
      for (auto const& o : page.objects) {
        // list_pages keeps only keys under the prefix.
        std::string_view rel = std::string_view(o.key).substr(prefix.size());
        if (!rel.empty() && rel.back() == '/' && o.size == 0) continue;  // a "directory" marker
        transfer_record job;
        job.source = o.key;
        job.size = o.size;
        if (s3_dst) {
          if (rel.empty()) continue;
          job.destination = dprefix + std::string(rel);
          jobs.push_back(std::move(job));
          continue;
        }
        auto safe = safe_relative(rel);
        if (!safe) {
          error e(errc::invalid_argument, "refusing key '" + printable(o.key) +
                                              "': as a file name it would leave the destination directory");
          rc = worse(rc, fail(x, e, "GetObject", resource_of(sbucket, o.key)));
          continue;
        }
        job.destination = (fs::path(dst) / *safe).string();
        jobs.push_back(std::move(job));
      }
      rc = worse(rc, co_await run_parallel(jobs.size(), x.cl.concurrency, fn));
      if (interrupted()) break;
      if (x.g.json) {
        // The document names objects as URIs on the S3 side.
        for (auto& job : jobs) {
          job.source = uri_of(sbucket, job.source);
          if (s3_dst) job.destination = uri_of(dbucket, job.destination);
        }
        doc.add(jobs);
      }
    }
  } else {
    // Local directory to an S3 prefix. Only regular files (and links to
    // them) go up; anything else is named on stderr as skipped: it has no
    // bytes to send (fifo, socket, device) or would need a choice floe does
    // not make for you (a link to a directory: followed, it can loop).
    auto d = parse_s3_uri(dst);
    if (!d) co_return usage_error(x, d.error().diag.message);
    dbucket = d->bucket;
    std::string const dprefix = dir_prefix(d->key);
    std::error_code ec;
    if (!fs::is_directory(src, ec)) co_return usage_error(x, "'" + printable(src) + "' is not a directory");
    // Keys from the names as walked (fs::relative would resolve a link to
    // its target's path: "link" -> "../elsewhere").
    fs::path base(src);
    if (!base.has_filename()) base = base.parent_path();
    fs::recursive_directory_iterator it(src, fs::directory_options::none, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code sec;
      auto const own = it->symlink_status(sec);
      if (fs::is_directory(own)) continue;  // walked into
      auto const target = it->status(sec);
      if (fs::is_regular_file(target)) {
        transfer_record job;
        job.source = it->path().string();
        job.destination = dprefix + it->path().lexically_relative(base).generic_string();
        jobs.push_back(std::move(job));
        continue;
      }
      skipped.emplace_back(it->path().string(), not_regular_reason(own, target));
    }
    if (ec) co_return fail(x, system_error_of(ec.value(), "reading " + src), "PutObject", dbucket);
    std::sort(jobs.begin(), jobs.end(),
              [](transfer_record const& l, transfer_record const& r) { return l.source < r.source; });
    std::sort(skipped.begin(), skipped.end());
    for (auto const& [path, reason] : skipped) {
      std::string line = "floe: cp: skipped " + printable(path) + ": " + reason + ", not a regular file\n";
      std::fwrite(line.data(), 1, line.size(), stderr);
    }
    std::fflush(stderr);
    auto fn = [&](std::size_t i) -> awaitable<int> {
      co_return co_await upload_one(x, jobs[i].source, dbucket, jobs[i].destination, &jobs[i]);
    };
    rc = co_await run_parallel(jobs.size(), x.cl.concurrency, fn);
    for (auto& job : jobs) job.destination = uri_of(dbucket, job.destination);
    if (x.g.json) doc.add(jobs);
  }
  x.errors = nullptr;
  if (x.g.json) doc.finish(skipped, errors, rc);
  co_return rc;
}

}  // namespace floe::cli
