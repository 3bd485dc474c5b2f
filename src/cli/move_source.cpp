// Removing a move's source once its copy is done.

#include "move_source.hpp"

#include "conditional_write.hpp"
#include "op_trace.hpp"
#include "output.hpp"
#include "s3_uri.hpp"

#include <floe/s3/conditional.hpp>

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace floe::cli {

result<file_stamp> stamp_of(std::string const& path) {
  struct ::stat st {};
  if (::stat(path.c_str(), &st) != 0) return system_error_of(errno, "cannot read " + path);
  file_stamp s;
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  s.inode = static_cast<std::uint64_t>(st.st_ino);
  return s;
}

boost::asio::awaitable<int> remove_moved_object(context& x, std::string const& bucket, std::string const& key,
                                                std::string const& etag) {
  std::string const resource = resource_of(bucket, key);
  auto kept = [&](std::string_view now) {
    error e(errc::precondition_failed, "the source changed after it was copied (copied ETag " + etag + ", now " +
                                           std::string(now) + "): it was kept");
    return fail(x, e, "DeleteObject", resource);
  };
  if (etag.empty()) {
    error e(errc::invalid_argument, "no ETag of the copied version: the source was kept");
    co_return fail(x, e, "DeleteObject", resource);
  }
  result<void> r;
  {
    op_trace trace(x, "DeleteObject", "DELETE", bucket, std::string_view(key));
    auto o = co_await s3::async_delete_if_match(x.c, bucket, key, etag);
    if (o) {
      if (std::holds_alternative<s3::precondition_failed>(*o)) co_return kept("another version, or none");
      auto w = written_or_error(*o, "DeleteObject", resource);
      if (!w) r = w.error();
      trace.done(r);
      if (!r) co_return fail(x, r.error(), "DeleteObject", resource);
      co_return exit_ok;
    }
    trace.done(o);
    if (o.error().code != errc::unsupported) co_return fail(x, o.error(), "DeleteObject", resource);
  }
  // The store ignores If-Match on DeleteObject: look, then delete.
  op_trace htrace(x, "HeadObject", "HEAD", bucket, std::string_view(key));
  auto h = co_await x.c.async_head_object(bucket, key);
  htrace.done(h);
  if (!h) {
    if (h.error().code == errc::not_found) co_return kept("none");
    co_return fail(x, h.error(), "HeadObject", resource);
  }
  if (!s3::same_etag(h->info.etag, etag)) co_return kept(h->info.etag);
  op_trace trace(x, "DeleteObject", "DELETE", bucket, std::string_view(key));
  r = co_await x.c.async_delete_object(bucket, key);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "DeleteObject", resource);
  co_return exit_ok;
}

int remove_moved_file(context& x, std::string const& path, file_stamp const& before, std::string const& uri) {
  auto now = stamp_of(path);
  if (!now) return fail(x, now.error(), "move", path);
  if (now->size != before.size || now->mtime_ns != before.mtime_ns || now->inode != before.inode) {
    error e(errc::precondition_failed, path + " changed while it was uploaded to " + uri + ": it was kept");
    return fail(x, e, "move", path);
  }
  if (::unlink(path.c_str()) != 0) return fail(x, system_error_of(errno, "cannot remove " + path), "move", path);
  return exit_ok;
}

}  // namespace floe::cli
