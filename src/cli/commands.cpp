// The verbs. Each is a coroutine over s3::client returning an exit code.
//
// GCC 12: no class-type temporary is ever passed inside a co_await
// expression here (see s3/client.hpp); every argument is a named local.

#include "commands.hpp"

#include <floe/s3/addressing.hpp>
#include <floe/s3/conditional.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <variant>

namespace floe::cli {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using asio::awaitable;

namespace {

struct context {
  s3::client& c;
  command_line const& cl;
  global_options const& g;
  // cp --recursive: every failure, for the --json document's "errors".
  std::vector<error>* errors = nullptr;
};

// One object of a recursive copy, for its --json document.
struct transfer_record {
  std::string source, destination;
  std::uint64_t size = 0;
  std::string etag;
  bool ok = false;
};

std::string uri_of(std::string_view bucket, std::string_view key) {
  std::string s = "s3://";
  s += bucket;
  s += '/';
  s += key;
  return s;
}

std::string resource_of(std::string_view bucket, std::string_view key) {
  std::string s(bucket);
  if (!key.empty()) {
    s += '/';
    s += key;
  }
  return s;
}

// -v: one line per operation: what was sent where, and what came back.
// Only the method, host and encoded path; never headers.
class op_trace {
 public:
  op_trace(context& x, std::string_view operation, std::string_view method, std::string_view bucket,
           std::optional<std::string_view> key)
      : x_(x), start_(std::chrono::steady_clock::now()) {
    if (!x.g.debug) return;
    line_ = std::string(operation) + " " + std::string(method) + " ";
    auto tgt = bucket.empty() ? s3::resolve_service_target(x.c.addressing()) : s3::resolve_target(x.c.addressing(), bucket, key);
    if (tgt) line_ += tgt->scheme + "://" + tgt->host_header + tgt->path;
    else line_ += resource_of(bucket, key.value_or(std::string_view{}));
  }

  template <class R>
  void done(R const& r) {
    if (!x_.g.debug) return;
    if (r) return finish(nullptr);
    error e = r.error();
    finish(&e);
  }

 private:
  void finish(error const* e) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
    std::string s = line_ + " -> ";
    if (e == nullptr || !e->code) {
      s += "ok";
    } else {
      auto const& d = e->diag;
      if (d.http_status != 0) s += std::to_string(d.http_status) + " ";
      s += d.code.empty() ? kind_name(*e) : d.code;
      if (!d.request_id.empty()) s += " request-id " + d.request_id;
      if (d.attempt > 1) s += " attempt " + std::to_string(d.attempt);
      if (d.http_status == 0 && !d.message.empty()) s += " (" + d.message + ")";
    }
    s += " " + std::to_string(ms) + " ms";
    debug_line(x_.g, s);
  }

  context& x_;
  std::string line_;
  std::chrono::steady_clock::time_point start_;
};

int usage_error(context& x, std::string_view message) {
  report_usage(x.cl.verb, message);
  return exit_usage;
}

int fail(context& x, error e, std::string_view operation, std::string_view resource) {
  report_error(x.g, e, operation, resource);
  int const rc = exit_code_for(e);
  if (x.errors != nullptr) {
    if (e.diag.operation.empty()) e.diag.operation = std::string(operation);
    if (e.diag.resource.empty()) e.diag.resource = std::string(resource);
    x.errors->push_back(std::move(e));
  }
  return rc;
}

std::string_view base_name(std::string_view path) {
  auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Keeps the first error's exit code, preferring a plain error over the rest.
int worse(int a, int b) {
  if (a == exit_ok) return b;
  if (b == exit_error) return b;
  return a;
}

// Runs fn(0..n-1) with at most `conc` in flight; completes when all are done.
template <class Fn>
awaitable<int> run_parallel(std::size_t n, unsigned conc, Fn& fn) {
  auto ex = co_await asio::this_coro::executor;
  struct state {
    explicit state(asio::any_io_executor e) : done(e, asio::steady_timer::time_point::max()) {}
    std::size_t next = 0;
    std::size_t live = 0;
    int worst = exit_ok;
    asio::steady_timer done;
  };
  auto st = std::make_shared<state>(ex);
  std::size_t const workers = std::min<std::size_t>(conc, n);
  st->live = workers;
  for (std::size_t w = 0; w < workers; ++w) {
    asio::co_spawn(
        ex,
        [st, n, &fn]() -> awaitable<void> {
          while (st->next < n) {
            std::size_t const i = st->next++;
            int rc = co_await fn(i);
            st->worst = worse(st->worst, rc);
          }
          if (--st->live == 0) st->done.cancel();
        },
        asio::detached);
  }
  if (st->live > 0) {
    boost::system::error_code ec;
    co_await st->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return st->worst;
}

// While a transfer whose bytes the library does not count runs, redraws
// the bar's elapsed time.
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

// A temporary file next to `path` (same file system, so rename is atomic).
struct temp_file {
  std::string path;
  int fd = -1;
  bool keep = false;
  temp_file() = default;
  temp_file(temp_file const&) = delete;
  temp_file& operator=(temp_file const&) = delete;
  ~temp_file() {
    if (fd >= 0) ::close(fd);
    if (!keep && !path.empty()) ::unlink(path.c_str());
  }
};

result<void> make_temp(temp_file& t, std::string const& dir_or_near) {
  std::string tmpl = dir_or_near + ".floe-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = ::mkstemp(buf.data());
  if (fd < 0) return error(errc::invalid_argument, "cannot create a temporary file " + tmpl + ": " + std::strerror(errno));
  t.fd = fd;
  t.path = buf.data();
  return {};
}

error system_error_of(int err, std::string message) {
  error e(boost::system::error_code(err, boost::system::system_category()));
  e.diag.message = std::move(message) + ": " + std::strerror(err);
  return e;
}

std::string put_json(std::string_view uri, s3::put_result const& r) {
  json_writer w;
  w.begin_object().field("uri", uri).field("etag", r.etag).field("version_id", r.version_id);
  w.field("parts", r.parts).end_object();
  return w.line();
}

// A conditional write's outcome as the CLI reports it: written is success;
// precondition_failed and conflict exit 3; unknown_outcome exits 1 and says
// the reply was ambiguous.
result<s3::written> written_or_error(s3::write_outcome const& o, std::string_view operation,
                                     std::string const& resource) {
  auto err = [&](errc code, unsigned status, std::string const& scode, std::string const& message) {
    error e(code);
    e.diag.operation = std::string(operation);
    e.diag.resource = resource;
    e.diag.http_status = status;
    e.diag.code = scode;
    e.diag.message = message;
    return e;
  };
  if (auto const* w = std::get_if<s3::written>(&o)) return *w;
  if (auto const* pf = std::get_if<s3::precondition_failed>(&o)) {
    return err(errc::precondition_failed, pf->status, pf->code,
               pf->message.empty() ? std::string("the condition did not hold") : pf->message);
  }
  if (auto const* c = std::get_if<s3::conflict>(&o)) {
    return err(errc::conflict, c->status, c->code,
               (c->message.empty() ? std::string("a concurrent write won") : c->message) + "; nothing was written");
  }
  auto const& u = std::get<s3::unknown_outcome>(o);
  return err(errc::unknown_outcome, u.status, u.code,
             "the reply was ambiguous" + (u.message.empty() ? std::string() : ": " + u.message));
}

// ---- ambiguous conditional writes -------------------------------------------

// 20 characters of [a-z0-9] from the system's random source.
std::string new_write_id() {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 20; ++i) id += alphabet[rd() % 36];
  return id;
}

// After an ambiguous reply to a conditional put (lost, cut, or a 5xx: it may
// or may not have landed), the library looks (s3::async_resolve_ambiguous_put:
// HeadObject, read again while the answer is undecided, as async_update
// does): this write's id there means it landed (the put succeeded); anything
// else means this write is not what the key holds, which exits 3 with one
// line saying so. If the HEAD itself fails the outcome stays unknown (exit 1).
awaitable<result<s3::put_result>> resolve_ambiguous(context& x, std::string const& bucket, std::string const& key,
                                                    std::string const& write_id, std::string const& if_match,
                                                    error const& ambiguous) {
  op_trace trace(x, "HeadObject", "HEAD", bucket, std::string_view(key));
  auto h = co_await s3::async_resolve_ambiguous_put(x.c, bucket, key, write_id, if_match);
  trace.done(h);
  std::string const how = ambiguous.diag.http_status != 0
                              ? std::to_string(ambiguous.diag.http_status) +
                                    (ambiguous.diag.code.empty() ? std::string() : " " + ambiguous.diag.code)
                              : std::string("the reply was lost");
  auto not_current = [&](std::string what) {
    error e(errc::conflict);
    e.diag = ambiguous.diag;
    e.diag.message = "the reply was ambiguous (" + how + "); " + std::move(what);
    return e;
  };
  if (!h) {
    error e = ambiguous;
    e.diag.message = "the reply was ambiguous (" + how + ") and HeadObject could not resolve it (" +
                     h.error().diag.to_string() + ")";
    co_return e;
  }
  auto const& v = h->verdict;
  using what = s3::ambiguous_put_verdict::what;
  switch (v.verdict) {
    case what::landed: {
      debug_line(x.g, "PutObject: the reply was ambiguous (" + how + "); HeadObject shows this write (id " + write_id +
                          ") landed");
      s3::put_result pr;
      pr.etag = v.etag;
      pr.version_id = v.version_id;
      co_return pr;
    }
    case what::absent: co_return not_current("HeadObject finds no object there: this write did not land");
    case what::base_unchanged:
      co_return not_current("the object still has ETag " + v.etag + ", the one --if-match named: this write did not land");
    case what::other_version: break;
  }
  co_return not_current("HeadObject shows another version there (ETag " + v.etag +
                        (v.there_id.empty() ? std::string(", not written by a conditional floe put")
                                            : ", write id " + v.there_id) +
                        "): this write is not the current version");
}

// ---- transfers of one object ---------------------------------------------

// Local file (or "-": stdin) to S3. `rec` (recursive copies): no progress
// bar, and with --json the result goes into *rec instead of stdout.
awaitable<int> upload_one(context& x, std::string const& local, std::string const& bucket, std::string const& key,
                          transfer_record* rec) {
  bool const quiet = rec != nullptr;
  auto ex = co_await asio::this_coro::executor;
  s3::put_params params;
  params.content_type = x.cl.content_type;
  params.metadata = x.cl.metadata;
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
  bool const show = !quiet && !x.cl.no_progress;
  if (local == "-") {
    // Small input goes up from memory; larger input is spooled to a
    // temporary file so that it can be retried and sent in parts. Its size
    // is unknown while it is read: past 8 MiB a bar shows the bytes read.
    progress reading(label, progress::unknown_size, show);
    constexpr std::size_t in_memory = 16u << 20;
    char buf[64 * 1024];
    bool eof = false;
    while (memory.size() < in_memory) {
      auto n = ::read(0, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
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
      char const* tmpdir = std::getenv("TMPDIR");
      auto made = make_temp(spool, std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/stdin");
      if (!made) co_return fail(x, made.error(), "PutObject", resource);
      std::string_view pending = memory;
      for (;;) {
        while (!pending.empty()) {
          auto w = ::write(spool.fd, pending.data(), pending.size());
          if (w < 0 && errno == EINTR) continue;
          if (w < 0) co_return fail(x, system_error_of(errno, "spooling stdin to " + spool.path), "PutObject", resource);
          pending.remove_prefix(static_cast<std::size_t>(w));
        }
        auto n = ::read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
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
  }
  if (rec != nullptr && x.g.json) {
    // in the recursive copy's document
  } else if (x.g.json) {
    write_stdout(put_json(uri, *r));
  } else if (quiet) {
    write_stdout("upload: " + printable(local) + " to " + printable(uri) + "\n");
  } else {
    write_stdout(r->etag + "\n");
  }
  co_return exit_ok;
}

// S3 to a local file (written to a temporary file, renamed when complete)
// or "-" (stdout). `quiet`: no bar (cat, recursive copies); `rec`
// (recursive copies): with --json the result goes there, not to stdout.
awaitable<int> download_one(context& x, std::string const& bucket, std::string const& key, std::string const& local,
                            bool quiet, transfer_record* rec) {
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

// S3 to S3 (CopyObject). `rec` as for upload_one.
awaitable<int> copy_one(context& x, std::string const& sb, std::string const& sk, std::string const& db,
                        std::string const& dk, transfer_record* rec) {
  bool const quiet = rec != nullptr;
  s3::copy_params p;
  p.source_bucket = sb;
  p.source_key = sk;
  p.bucket = db;
  p.key = dk;
  op_trace trace(x, "CopyObject", "PUT", db, std::string_view(dk));
  auto r = co_await x.c.async_copy_object(p);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "CopyObject", resource_of(db, dk));
  if (rec != nullptr) {
    rec->ok = true;
    rec->etag = r->etag;
  }
  if (x.g.json) {
    if (rec == nullptr) {
      json_writer w;
      w.begin_object().field("source", uri_of(sb, sk)).field("uri", uri_of(db, dk)).field("etag", r->etag).end_object();
      write_stdout(w.line());
    }
  } else if (quiet) {
    write_stdout("copy: " + printable(uri_of(sb, sk)) + " to " + printable(uri_of(db, dk)) + "\n");
  } else {
    write_stdout(r->etag + "\n");
  }
  co_return exit_ok;
}

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

// A listing of every key under `prefix`, or the exit code of its failure.
awaitable<result<s3::listing>> list_all(context& x, std::string const& bucket, std::string const& prefix,
                                        std::string const& delimiter) {
  s3::list_params p;
  p.prefix = prefix;
  p.delimiter = delimiter;
  op_trace trace(x, "ListObjectsV2", "GET", bucket, std::nullopt);
  auto r = co_await x.c.async_list_objects(bucket, p);
  trace.done(r);
  co_return r;
}

std::string dir_prefix(std::string key) {
  if (!key.empty() && key.back() != '/') key += '/';
  return key;
}

// ---- verbs ----------------------------------------------------------------

// `floe ls` / `floe ls s3://`: ListBuckets.
awaitable<int> cmd_ls_buckets(context& x) {
  if (x.cl.recursive) co_return usage_error(x, "--recursive needs a bucket: floe ls s3://BUCKET --recursive");
  op_trace trace(x, "ListBuckets", "GET", "", std::nullopt);
  auto r = co_await x.c.async_list_buckets();
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "ListBuckets", "");
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().key("buckets").begin_array();
    for (auto const& b : r->buckets) {
      w.begin_object().field("name", b.name).field("creation_date", b.creation_date).field("region", b.region);
      w.end_object();
    }
    w.end_array();
    w.key("owner").begin_object().field("id", r->owner_id).field("display_name", r->owner_display_name).end_object();
    w.end_object();
    out = w.line();
  } else {
    for (auto const& b : r->buckets) {
      std::string date = b.creation_date;
      date.resize(24, ' ');
      out += printable(date) + " " + printable(b.name) + "\n";
    }
  }
  if (!write_stdout(out)) co_return exit_error;
  co_return exit_ok;
}

awaitable<int> cmd_ls(context& x) {
  if (x.cl.args.empty() || (x.cl.args[0].size() == 5 && is_s3_uri(x.cl.args[0]))) co_return co_await cmd_ls_buckets(x);
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  std::string const delimiter = x.cl.recursive ? "" : "/";
  auto r = co_await list_all(x, u->bucket, u->key, delimiter);
  if (!r) co_return fail(x, r.error(), "ListObjectsV2", resource_of(u->bucket, u->key));
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("bucket", u->bucket).field("prefix", u->key);
    w.key("objects").begin_array();
    for (auto const& o : r->objects) {
      w.begin_object().field("key", o.key).field("size", o.size).field("etag", o.etag);
      w.field("last_modified", o.last_modified).field("storage_class", o.storage_class).end_object();
    }
    w.end_array();
    w.key("prefixes").begin_array();
    for (auto const& p : r->common_prefixes) w.value(p);
    w.end_array().end_object();
    out = w.line();
  } else {
    for (auto const& p : r->common_prefixes) out += std::string(34, ' ') + "PRE " + printable(p) + "\n";
    for (auto const& o : r->objects) {
      char size[32];
      std::snprintf(size, sizeof size, "%12llu", static_cast<unsigned long long>(o.size));
      std::string lm = o.last_modified;
      lm.resize(24, ' ');
      out += lm + " " + size + " " + printable(o.key) + "\n";
    }
  }
  if (!write_stdout(out)) co_return exit_error;
  co_return exit_ok;
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
std::string recursive_summary(std::string_view src, std::string_view dst, std::vector<transfer_record> const& jobs,
                              std::vector<std::pair<std::string, std::string>> const& skipped,
                              std::vector<error> const& errors, int rc) {
  json_writer w;
  w.begin_object().field("source", src).field("destination", dst);
  std::uint64_t copied = 0, bytes = 0;
  w.key("objects").begin_array();
  for (auto const& j : jobs) {
    if (!j.ok) continue;
    ++copied;
    bytes += j.size;
    w.begin_object().field("source", j.source).field("destination", j.destination).field("size", j.size);
    w.field("etag", j.etag).end_object();
  }
  w.end_array();
  w.key("skipped").begin_array();
  for (auto const& [path, reason] : skipped) w.begin_object().field("path", path).field("reason", reason).end_object();
  w.end_array();
  w.key("errors").begin_array();
  for (auto const& e : errors) write_error_fields(w, e);
  w.end_array();
  w.field("copied", copied).field("failed", errors.size()).field("bytes", bytes).field("exit_code", rc);
  w.end_object();
  return w.line();
}

awaitable<int> cmd_cp(context& x) {
  std::string const& src = x.cl.args[0];
  std::string const& dst = x.cl.args[1];
  bool const s3_src = is_s3_uri(src), s3_dst = is_s3_uri(dst);
  if (!s3_src && !s3_dst) co_return usage_error(x, "one of SRC and DST must be an s3:// URI");
  if (!x.cl.recursive) {
    if (s3_src) {
      auto s = parse_s3_uri(src);
      if (!s) co_return usage_error(x, s.error().diag.message);
      if (s->key.empty() || s->key.back() == '/') co_return usage_error(x, "SRC names no object (use --recursive for a prefix)");
      if (s3_dst) {
        auto d = parse_s3_uri(dst);
        if (!d) co_return usage_error(x, d.error().diag.message);
        std::string dk = d->key;
        if (dk.empty() || dk.back() == '/') dk += base_name(s->key);
        co_return co_await copy_one(x, s->bucket, s->key, d->bucket, dk, nullptr);
      }
      std::string local = dst;
      std::error_code ec;
      if (local != "-" && (local.back() == '/' || fs::is_directory(local, ec))) {
        if (local.back() != '/') local += '/';
        local += base_name(s->key);
      }
      co_return co_await download_one(x, s->bucket, s->key, local, false, nullptr);
    }
    auto d = parse_s3_uri(dst);
    if (!d) co_return usage_error(x, d.error().diag.message);
    std::string dk = d->key;
    if (dk.empty() || dk.back() == '/') {
      if (src == "-") co_return usage_error(x, "DST must name a key when SRC is stdin");
      dk += base_name(src);
    }
    if (src != "-") {
      std::error_code ec;
      if (fs::is_directory(src, ec)) co_return usage_error(x, "'" + printable(src) + "' is a directory (use --recursive)");
    }
    co_return co_await upload_one(x, src, d->bucket, dk, nullptr);
  }

  // --recursive: several objects at once. Every direction ends with the
  // same --json document (recursive_summary).
  std::vector<transfer_record> jobs;
  std::vector<std::pair<std::string, std::string>> skipped;  // (path, reason)
  std::vector<error> errors;
  x.errors = &errors;
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
    std::string const no_delimiter;
    auto listed = co_await list_all(x, sbucket, prefix, no_delimiter);
    if (!listed) co_return fail(x, listed.error(), "ListObjectsV2", resource_of(sbucket, prefix));
    for (auto const& o : listed->objects) {
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
    rc = worse(rc, co_await run_parallel(jobs.size(), x.cl.concurrency, fn));
    // The document names objects as URIs on the S3 side.
    for (auto& job : jobs) {
      job.source = uri_of(sbucket, job.source);
      if (s3_dst) job.destination = uri_of(dbucket, job.destination);
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
  }
  x.errors = nullptr;
  if (x.g.json) write_stdout(recursive_summary(src, dst, jobs, skipped, errors, rc));
  co_return rc;
}

awaitable<int> cmd_cat(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  std::string const out = "-";
  co_return co_await download_one(x, u->bucket, u->key, out, true, nullptr);
}

awaitable<int> cmd_put(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  std::string const local = x.cl.file.empty() ? std::string("-") : x.cl.file;
  co_return co_await upload_one(x, local, u->bucket, u->key, nullptr);
}

awaitable<int> cmd_rm(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (!x.cl.recursive) {
    if (u->key.empty()) co_return usage_error(x, "the URI names no object (use --recursive for a prefix)");
    op_trace trace(x, "DeleteObject", "DELETE", u->bucket, std::string_view(u->key));
    result<void> r;
    if (x.cl.if_match.empty()) {
      r = co_await x.c.async_delete_object(u->bucket, u->key);
    } else {
      std::string const etag = x.cl.if_match;
      auto o = co_await s3::async_delete_if_match(x.c, u->bucket, u->key, etag);
      if (!o) {
        r = o.error();
      } else {
        auto w = written_or_error(*o, "DeleteObject", resource_of(u->bucket, u->key));
        if (!w) r = w.error();
      }
    }
    trace.done(r);
    if (!r) co_return fail(x, r.error(), "DeleteObject", resource_of(u->bucket, u->key));
    if (x.g.json) {
      json_writer w;
      w.begin_object().key("deleted").begin_array().value(u->key).end_array();
      w.key("errors").begin_array().end_array().end_object();
      write_stdout(w.line());
    } else {
      write_stdout("delete: " + printable(uri_of(u->bucket, u->key)) + "\n");
    }
    co_return exit_ok;
  }
  if (!x.cl.if_match.empty()) co_return usage_error(x, "--if-match applies to one object, not --recursive");
  std::string const prefix = dir_prefix(u->key);
  std::string const no_delimiter;
  auto listed = co_await list_all(x, u->bucket, prefix, no_delimiter);
  if (!listed) co_return fail(x, listed.error(), "ListObjectsV2", resource_of(u->bucket, prefix));
  std::vector<std::string> keys;
  keys.reserve(listed->objects.size());
  for (auto const& o : listed->objects) keys.push_back(o.key);
  s3::delete_objects_result res;
  if (!keys.empty()) {
    op_trace trace(x, "DeleteObjects", "POST", u->bucket, std::nullopt);
    auto r = co_await x.c.async_delete_objects(u->bucket, keys);
    trace.done(r);
    if (!r) co_return fail(x, r.error(), "DeleteObjects", resource_of(u->bucket, prefix));
    res = std::move(*r);
  }
  for (auto const& f : res.errors) {
    error e(errc::service_error);
    e.diag.code = f.code;
    e.diag.message = f.message;
    report_error(x.g, e, "DeleteObjects", resource_of(u->bucket, f.key));
  }
  // A batch failed after others ran: the keys deleted so far are printed
  // below, the error that stopped it is reported and decides the exit code.
  int const stopped = res.complete() ? exit_ok : fail(x, res.failure, "DeleteObjects", resource_of(u->bucket, prefix));
  if (x.g.json) {
    json_writer w;
    w.begin_object().key("deleted").begin_array();
    for (auto const& k : res.deleted) w.value(k);
    w.end_array().key("errors").begin_array();
    for (auto const& f : res.errors)
      w.begin_object().field("key", f.key).field("code", f.code).field("message", f.message).end_object();
    // Keys a failed batch left: in the failed request or never sent.
    w.end_array().key("not_done").begin_array();
    for (auto const& k : res.not_done) w.value(k);
    w.end_array().end_object();
    write_stdout(w.line());
  } else {
    std::string s;
    for (auto const& k : res.deleted) s += "delete: " + printable(uri_of(u->bucket, k)) + "\n";
    write_stdout(s);
  }
  if (stopped != exit_ok) co_return stopped;
  co_return res.errors.empty() ? exit_ok : exit_error;
}

awaitable<int> cmd_stat(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  s3::read_conditions cond;
  cond.if_match = x.cl.if_match;
  cond.if_none_match = x.cl.if_none_match;
  op_trace trace(x, "HeadObject", "HEAD", u->bucket, std::string_view(u->key));
  auto r = co_await x.c.async_head_object(u->bucket, u->key, cond);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "HeadObject", resource_of(u->bucket, u->key));
  auto const& i = r->info;
  std::string uri = uri_of(u->bucket, u->key);
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("uri", uri).field("not_modified", r->not_modified).field("size", i.size);
    w.field("etag", r->not_modified ? std::string_view(s3::normalize_etag(x.cl.if_none_match)) : std::string_view(i.etag));
    w.field("last_modified", i.last_modified).field("content_type", i.content_type).field("version_id", i.version_id);
    w.key("metadata").begin_object();
    for (auto const& [k, v] : i.metadata) w.field(k, v);
    w.end_object().end_object();
    write_stdout(w.line());
  } else if (!r->not_modified) {
    std::string s = "uri:           " + printable(uri) + "\n";
    s += "size:          " + std::to_string(i.size) + "\n";
    s += "etag:          " + printable(i.etag) + "\n";
    s += "last-modified: " + printable(i.last_modified) + "\n";
    s += "content-type:  " + printable(i.content_type) + "\n";
    if (!i.version_id.empty()) s += "version-id:    " + printable(i.version_id) + "\n";
    for (auto const& [k, v] : i.metadata) s += "meta " + printable(k) + ": " + printable(v) + "\n";
    write_stdout(s);
  }
  if (r->not_modified) {
    // If-None-Match held the ETag: the condition for "changed" is not met.
    if (!x.g.json) {
      std::string line = "floe: stat " + printable(resource_of(u->bucket, u->key)) + ": 304 not modified (ETag " +
                         printable(s3::normalize_etag(x.cl.if_none_match)) + ")\n";
      std::fwrite(line.data(), 1, line.size(), stderr);
    }
    co_return exit_condition;
  }
  co_return exit_ok;
}

awaitable<int> cmd_presign(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  // presign signs with what the provider holds now; a refreshing source
  // (web identity, roles, containers, IMDS) holds nothing in a fresh
  // process until asked, so ask (and wait) first.
  auto creds = co_await x.c.credentials_provider().async_get();
  if (!creds) co_return fail(x, creds.error(), "Presign", resource_of(u->bucket, u->key));
  std::string warning;
  auto r = x.c.presign(x.cl.method, u->bucket, u->key, x.cl.expires, &warning);
  if (!r) co_return fail(x, r.error(), "Presign", resource_of(u->bucket, u->key));
  if (!warning.empty()) {
    std::string line = "floe: warning: " + printable(warning) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("url", *r).field("method", x.cl.method).field("expires", x.cl.expires.count()).end_object();
    write_stdout(w.line());
  } else {
    write_stdout(*r + "\n");
  }
  co_return exit_ok;
}

awaitable<int> cmd_bucket(context& x, bool create) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (!u->key.empty()) co_return usage_error(x, "expected s3://BUCKET with no key");
  if (create) {
    auto strict = s3::validate_bucket_name(u->bucket, s3::bucket_name_rules::aws_create);
    if (!strict) co_return usage_error(x, strict.error().diag.message);
  }
  char const* op = create ? "CreateBucket" : "DeleteBucket";
  op_trace trace(x, op, create ? "PUT" : "DELETE", u->bucket, std::nullopt);
  result<void> r;
  if (create) r = co_await x.c.async_create_bucket(u->bucket);
  else r = co_await x.c.async_delete_bucket(u->bucket);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), op, u->bucket);
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("bucket", u->bucket).field(create ? "created" : "removed", true).end_object();
    write_stdout(w.line());
  } else {
    write_stdout(std::string(create ? "make_bucket: " : "remove_bucket: ") + u->bucket + "\n");
  }
  co_return exit_ok;
}

}  // namespace

awaitable<int> run_command(s3::client& c, command_line const& cl) {
  context x{c, cl, cl.g};
  if (cl.g.debug) {
    auto const& a = c.addressing();
    std::string ep = a.custom_endpoint ? a.custom_endpoint->scheme + "://" + a.custom_endpoint->authority() +
                                             a.custom_endpoint->base_path
                                       : std::string("AWS");
    char const* style = a.style == s3::addressing_style::path             ? "path"
                        : a.style == s3::addressing_style::virtual_hosted ? "virtual"
                                                                          : "automatic";
    debug_line(cl.g, "endpoint " + ep + " (" + a.endpoint_source + "), region " + a.region + " (" + a.region_source +
                         "), addressing " + style);
    auto creds = c.credentials_provider().get();
    if (creds) debug_line(cl.g, "credentials " + creds->to_string());
    else debug_line(cl.g, "credentials: none (" + creds.error().diag.message + ")");
  }
  if (cl.verb == "ls") co_return co_await cmd_ls(x);
  if (cl.verb == "cp") co_return co_await cmd_cp(x);
  if (cl.verb == "cat") co_return co_await cmd_cat(x);
  if (cl.verb == "put") co_return co_await cmd_put(x);
  if (cl.verb == "rm") co_return co_await cmd_rm(x);
  if (cl.verb == "stat") co_return co_await cmd_stat(x);
  if (cl.verb == "presign") co_return co_await cmd_presign(x);
  if (cl.verb == "mb") co_return co_await cmd_bucket(x, true);
  if (cl.verb == "rb") co_return co_await cmd_bucket(x, false);
  if (cl.verb == "whoami") co_return co_await cmd_whoami(c, cl);
  co_return usage_error(x, "unknown command");
}

}  // namespace floe::cli
