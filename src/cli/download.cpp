// Downloads: to a temporary file renamed into place when complete, or to
// stdout.

#include "transfer.hpp"

#include "json_writer.hpp"
#include "op_trace.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "s3_uri.hpp"
#include "temp_file.hpp"

#include <cerrno>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

namespace floe::cli {

boost::asio::awaitable<int> download_one(context& x, std::string const& bucket, std::string const& key,
                                         std::string const& local, bool quiet, transfer_record* rec) {
  std::string const resource = resource_of(bucket, key);
  std::string const uri = uri_of(bucket, key);
  bool const to_stdout = local == "-";
  temp_file tmp;
  if (!to_stdout) {
    auto made = make_temp(tmp, local);
    if (!made) co_return fail(x, made.error(), "GetObject", resource);
  }
  std::uint64_t size = 0;
  bool const may_show = !quiet && !x.cl.no_progress && stderr_is_tty() && !to_stdout;
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
  }
  if (rec != nullptr) {
    rec->ok = true;
    rec->size = r->info.size;
    rec->etag = r->info.etag;
  }
  if (x.g.json && !to_stdout) {
    if (rec == nullptr) {
      json_writer w;
      w.begin_object().field("uri", uri).field("file", local).field("size", r->info.size);
      w.field("etag", r->info.etag).end_object();
      write_stdout(w.line());
    }
  } else if (quiet && !to_stdout) {
    write_stdout("download: " + printable(uri) + " to " + printable(local) + "\n");
  }
  co_return exit_ok;
}

}  // namespace floe::cli
