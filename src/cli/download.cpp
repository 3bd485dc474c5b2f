// Downloads: to a temporary file renamed into place when complete (its
// directory made first when missing), or to stdout.

#include "transfer.hpp"

#include "json_writer.hpp"
#include "op_trace.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "s3_uri.hpp"
#include "temp_file.hpp"

#include <floe/retry/clock_skew.hpp>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace floe::cli {

namespace {

namespace fs = std::filesystem;

// Makes the missing directories above `file`; `made` receives them, the
// deepest last, so that a download that fails can take them away again.
result<void> make_parents(std::string const& file, std::vector<fs::path>& made) {
  fs::path dir = fs::path(file).parent_path();
  std::vector<fs::path> missing;
  std::error_code ec;
  while (!dir.empty() && !fs::exists(dir, ec)) {
    missing.push_back(dir);
    dir = dir.parent_path();
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!fs::create_directory(*it, ec) && ec)
      return system_error_of(ec.value(), "cannot create the directory " + it->string());
    made.push_back(*it);
  }
  return {};
}

// Gives the file the object's modification time (an HTTP date).
void set_mtime(std::string const& file, std::string_view last_modified) {
  auto t = retry::parse_http_date(last_modified);
  if (!t) return;
  struct timespec times[2];
  times[0].tv_sec = 0;
  times[0].tv_nsec = UTIME_OMIT;
  times[1].tv_sec = static_cast<time_t>(t->time_since_epoch().count());
  times[1].tv_nsec = 0;
  ::utimensat(AT_FDCWD, file.c_str(), times, 0);
}

}  // namespace

boost::asio::awaitable<int> download_one(context& x, std::string const& bucket, std::string const& key,
                                         std::string const& local, bool quiet, transfer_record* rec) {
  std::string const resource = resource_of(bucket, key);
  std::string const uri = uri_of(bucket, key);
  bool const to_stdout = local == "-";
  std::vector<fs::path> made_dirs;
  // Alone, a failed download takes away the directories it made (after the
  // temporary file, declared below, is gone); in a tree another download
  // may be using them.
  struct undo_dirs {
    std::vector<fs::path>& dirs;
    bool keep;
    ~undo_dirs() {
      std::error_code ec;
      if (!keep)
        for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) fs::remove(*it, ec);
    }
  } undo{made_dirs, rec != nullptr};
  temp_file tmp;
  if (!to_stdout) {
    auto parents = make_parents(local, made_dirs);
    if (!parents) co_return fail(x, parents.error(), "GetObject", resource);
    auto made = make_temp(tmp, local);
    if (!made) co_return fail(x, made.error(), "GetObject", resource);
  }
  std::uint64_t size = 0;
  bool const may_show =
      !quiet && !x.cl.no_progress && !x.cl.quiet && !x.cl.only_show_errors && stderr_is_tty() && !to_stdout;
  if (may_show) {
    // The size decides whether a bar is drawn; only asked on a terminal.
    op_trace htrace(x, "HeadObject", "HEAD", bucket, std::string_view(key));
    auto h = co_await x.c.async_head_object(bucket, key);
    htrace.done(h);
    if (!h) co_return fail(x, h.error(), "HeadObject", resource);
    size = h->info.size;
  }
  progress bar("download " + std::string(base_name(key)), size, may_show);
  int const fd = to_stdout ? 1 : tmp.fd;
  int write_errno = 0;
  http::body_sink::write_fn writer = [fd, &bar, &write_errno](std::string_view piece, boost::system::error_code& ec) {
    while (!piece.empty()) {
      auto n = ::write(fd, piece.data(), piece.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        write_errno = errno;
        ec = boost::system::error_code(errno, boost::system::system_category());
        return;
      }
      piece.remove_prefix(static_cast<std::size_t>(n));
      bar.add(static_cast<std::uint64_t>(n));
    }
  };
  op_trace trace(x, "GetObject", "GET", bucket, std::string_view(key));
  auto r = co_await x.c.async_get_object_to(bucket, key, writer);
  // Bytes that do not match the object's checksum have reached only the
  // temporary file: the GET is tried once more from the start (corruption
  // in transit). On stdout they have been delivered: the error stands.
  if (!r && r.error().code == errc::checksum_mismatch && !to_stdout && ::ftruncate(tmp.fd, 0) == 0 &&
      ::lseek(tmp.fd, 0, SEEK_SET) == 0) {
    trace.done(r);
    r = co_await x.c.async_get_object_to(bucket, key, writer);
  }
  trace.done(r);
  bar.finish(r.has_value());
  if (!r) {
    if (to_stdout && write_errno == EPIPE) co_return exit_error;  // reader went away: nothing to say
    co_return fail(x, r.error(), "GetObject", resource);
  }
  if (!to_stdout) {
    if (::fsync(tmp.fd) != 0 || ::close(tmp.fd) != 0) {
      tmp.fd = -1;
      co_return fail(x, system_error_of(errno, "writing " + tmp.path), "GetObject", resource);
    }
    tmp.fd = -1;
    // mkstemp made it 0600; give it the mode a new file would have.
    mode_t const mask = ::umask(0);
    ::umask(mask);
    ::chmod(tmp.path.c_str(), 0666 & ~mask);
    if (::rename(tmp.path.c_str(), local.c_str()) != 0)
      co_return fail(x, system_error_of(errno, "renaming " + tmp.path + " to " + local), "GetObject", resource);
    tmp.keep = true;
    undo.keep = true;
    set_mtime(local, r->info.last_modified);
  }
  if (rec != nullptr) {
    rec->ok = true;
    rec->size = r->info.size;
    rec->etag = r->info.etag;
  } else if (x.g.json && !to_stdout) {
    json_writer w;
    w.begin_object().field("uri", uri).field("file", local).field("size", r->info.size);
    w.field("etag", r->info.etag).end_object();
    write_stdout(w.line());
  } else if (!to_stdout) {
    print_op_line(x, "download", uri, shown_endpoint(local));
  }
  co_return exit_ok;
}

}  // namespace floe::cli
