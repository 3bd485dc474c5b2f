// Uploads: a file, or stdin (from memory when small, else spooled to a
// temporary file), plainly or through the conditional layer.

#include "transfer.hpp"

#include "conditional_write.hpp"
#include "interrupt.hpp"
#include "json_writer.hpp"
#include "op_trace.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "s3_uri.hpp"
#include "temp_file.hpp"

#include <floe/environment.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace floe::cli {

namespace asio = boost::asio;
using asio::awaitable;

namespace {

// Reads stdin, which may be a pipe or a terminal that stays silent for as
// long as it likes. A blocking read would keep the loop from ever acting on
// a SIGINT or SIGTERM (interrupt.hpp): so stdin is polled, and while it has
// nothing to give, and every 64 reads while it keeps giving, the loop gets
// to run its handlers. After a signal: -1 with errno ECANCELED, also when
// stdin then ended (the Ctrl-C that stopped floe's writer too: what came
// is not all of it); else what read(2) gives.
class stdin_reader {
 public:
  awaitable<ssize_t> read(char* buf, std::size_t size) {
    for (;;) {
      if (++reads_ % 64 == 0 && !co_await let_loop_run()) co_return cancelled();
      pollfd p{0, POLLIN, 0};
      int const ready = ::poll(&p, 1, 100);
      if (ready > 0 || (ready < 0 && errno != EINTR)) {
        auto const n = ::read(0, buf, size);
        if (n < 0 && errno == EINTR) continue;
        if (interrupted() != 0) co_return cancelled();
        co_return n;
      }
      if (!co_await let_loop_run()) co_return cancelled();
    }
  }

 private:
  static awaitable<bool> let_loop_run() {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    co_return interrupted() == 0;
  }
  static ssize_t cancelled() {
    errno = ECANCELED;
    return -1;
  }

  unsigned reads_ = 0;
};

// While an upload runs, redraws its bar every 100 ms: time shows passing
// while no bytes are reported (before the first, or waiting for the reply).
struct ticker {
  explicit ticker(asio::any_io_executor ex) : timer(std::move(ex)) {}
  asio::steady_timer timer;
  bool stopped = false;
};

std::shared_ptr<ticker> start_ticker(asio::any_io_executor ex, progress& p) {
  auto t = std::make_shared<ticker>(ex);
  if (!p.active()) return t;
  asio::co_spawn(
      ex,
      [t, &p]() -> awaitable<void> {
        while (!t->stopped) {
          t->timer.expires_after(std::chrono::milliseconds(100));
          boost::system::error_code ec;
          co_await t->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
          if (t->stopped) break;  // `p` may be gone once stopped
          p.tick();
        }
      },
      asio::detached);
  return t;
}

void stop_ticker(ticker& t) {
  t.stopped = true;
  t.timer.cancel();
}

std::string put_json(std::string_view uri, s3::put_result const& r) {
  json_writer w;
  w.begin_object().field("uri", uri).field("etag", r.etag).field("version_id", r.version_id);
  w.field("parts", r.parts).end_object();
  return w.line();
}

}  // namespace

awaitable<int> upload_one(context& x, std::string const& local, std::string const& bucket, std::string const& key,
                          transfer_record* rec) {
  auto ex = co_await asio::this_coro::executor;
  s3::put_params params;
  // stdin has no name of its own: the key's says what it is.
  params.content_type = upload_content_type(x, local == "-" ? std::string_view(key) : std::string_view(local));
  params.metadata = x.cl.metadata;
  params.write = x.cl.write;
  params.checksum_algorithm = x.cl.checksum_algorithm;
  params.if_match = x.cl.if_match;
  params.if_none_match = x.cl.if_none_match;
  // A conditional write carries a write id, so that an ambiguous reply can
  // be resolved by looking at what the key holds (resolve_ambiguous).
  std::string write_id;
  if (!params.if_match.empty() || !params.if_none_match.empty()) {
    for (auto const& [n, v] : params.metadata)
      if (n == s3::write_id_metadata_name) write_id = v;
    if (write_id.empty()) {
      write_id = new_write_id();
      params.metadata.emplace_back(std::string(s3::write_id_metadata_name), write_id);
    }
  }
  std::string const uri = uri_of(bucket, key);
  std::string const resource = resource_of(bucket, key);

  std::string path = local;
  std::string memory;
  temp_file spool;
  std::string const label = "upload " + std::string(local == "-" ? std::string_view("stdin") : base_name(local));
  // --quiet and --only-show-errors draw no bar either: only errors, or nothing.
  bool const show = !x.many && !x.cl.no_progress && !x.cl.quiet && !x.cl.only_show_errors;
  if (local == "-") {
    // Small input goes up from memory; larger input is spooled to a
    // temporary file so that it can be retried and sent in parts. Its size
    // is unknown while it is read: past 8 MiB a bar shows the bytes read.
    progress reading(label, progress::unknown_size, show);
    constexpr std::size_t in_memory = 16u << 20;
    char buf[64 * 1024];
    bool eof = false;
    stdin_reader in;
    while (memory.size() < in_memory) {
      auto n = co_await in.read(buf, sizeof buf);
      if (n < 0 && interrupted() != 0) co_return exit_error;  // the exit code says it
      if (n < 0) co_return fail(x, system_error_of(errno, "reading stdin"), "PutObject", resource);
      if (n == 0) {
        eof = true;
        break;
      }
      memory.append(buf, static_cast<std::size_t>(n));
      reading.add(static_cast<std::uint64_t>(n));
    }
    if (eof) {
      path.clear();
    } else {
      // The client's environment lookup (the CLI's: its session's), as every
      // variable floe reads.
      auto const tmpdir = floe::non_empty(x.c.config().env, "TMPDIR");
      auto made = make_temp(spool, tmpdir.value_or("/tmp") + "/stdin");
      if (!made) co_return fail(x, made.error(), "PutObject", resource);
      std::string_view pending = memory;
      for (;;) {
        while (!pending.empty()) {
          auto w = ::write(spool.fd, pending.data(), pending.size());
          if (w < 0 && errno == EINTR) continue;
          if (w < 0) co_return fail(x, system_error_of(errno, "spooling stdin to " + spool.path), "PutObject", resource);
          pending.remove_prefix(static_cast<std::size_t>(w));
        }
        auto n = co_await in.read(buf, sizeof buf);
        if (n < 0 && interrupted() != 0) co_return exit_error;
        if (n < 0) co_return fail(x, system_error_of(errno, "reading stdin"), "PutObject", resource);
        if (n == 0) break;
        pending = std::string_view(buf, static_cast<std::size_t>(n));
        reading.add(static_cast<std::uint64_t>(n));
      }
      memory.clear();
      memory.shrink_to_fit();
      path = spool.path;
    }
    reading.clear();  // the upload's own bar (its size now known) follows
  }

  op_trace trace(x, path.empty() ? "PutObject" : "PutObject/Upload", "PUT", bucket, std::string_view(key));
  result<s3::put_result> r;
  bool const conditional = !params.if_match.empty() || !params.if_none_match.empty();
  std::uint64_t file_size = 0;
  if (!path.empty()) {
    struct ::stat cst {};
    if (::stat(path.c_str(), &cst) == 0) file_size = static_cast<std::uint64_t>(cst.st_size);
  }
  if (conditional) {
    // Through the conditional layer (typed outcomes, the Ceph quoted-ETag
    // fallback), which also decides how a file too large for one PUT goes:
    // in parts with the condition on CompleteMultipartUpload where the store
    // honours it there (AWS), refused before anything is sent elsewhere
    // (s3::plan_conditional_upload, client_config::max_single_put).
    auto body = path.empty() ? http::body_source::memory(memory) : http::body_source::file(path, 0, file_size);
    progress bar(label, path.empty() ? memory.size() : file_size, show);
    auto tick = start_ticker(ex, bar);
    if (bar.active()) params.on_progress = [&bar](std::uint64_t n) { bar.set(n); };
    auto o = co_await s3::async_put_conditional(x.c, bucket, key, body, params);
    stop_ticker(*tick);
    if (o) {
      auto w = written_or_error(*o, "PutObject", resource);
      if (w) {
        s3::put_result pr;
        pr.etag = w->etag;
        pr.version_id = w->version_id;
        r = std::move(pr);
      } else {
        r = w.error();
      }
    } else {
      r = o.error();
    }
    bar.finish(r.has_value());
  } else if (path.empty()) {
    auto body = http::body_source::memory(memory);
    progress bar(label, memory.size(), show);
    auto tick = start_ticker(ex, bar);
    if (bar.active()) params.on_progress = [&bar](std::uint64_t n) { bar.set(n); };
    r = co_await x.c.async_put_object(bucket, key, body, params);
    stop_ticker(*tick);
    bar.finish(r.has_value());
  } else {
    struct ::stat st {};
    if (::stat(path.c_str(), &st) != 0) co_return fail(x, system_error_of(errno, "cannot read " + path), "PutObject", resource);
    if (!S_ISREG(st.st_mode)) {
      error e(errc::invalid_argument, path + " is not a regular file");
      co_return fail(x, e, "PutObject", resource);
    }
    file_size = static_cast<std::uint64_t>(st.st_size);
    progress bar(label, file_size, show);
    auto tick = start_ticker(ex, bar);
    if (bar.active()) params.on_progress = [&bar](std::uint64_t n) { bar.set(n); };
    r = co_await x.c.async_upload_file(bucket, key, path, params);
    stop_ticker(*tick);
    bar.finish(r.has_value());
  }
  if (!r && !write_id.empty() && r.error().code == errc::unknown_outcome) {
    trace.done(r);
    error const ambiguous = r.error();
    r = co_await resolve_ambiguous(x, bucket, key, write_id, params.if_match, ambiguous);
  } else {
    trace.done(r);
  }
  if (!r) co_return fail(x, r.error(), "PutObject", resource);
  if (rec != nullptr) {
    rec->ok = true;
    rec->etag = r->etag;
    rec->size = path.empty() ? memory.size() : file_size;
  } else if (x.g.json) {
    write_stdout(put_json(uri, *r));
  } else if (x.print_etag) {
    write_stdout(r->etag + "\n");
  } else if (local != "-") {  // a stream's upload prints nothing, as with aws s3
    print_op_line(x, "upload", shown_endpoint(local), uri);
  }
  co_return exit_ok;
}

}  // namespace floe::cli
