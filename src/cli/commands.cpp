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

int fail(context& x, error const& e, std::string_view operation, std::string_view resource) {
  report_error(x.g, e, operation, resource);
  return exit_code_for(e);
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
  std::string s = "{\"uri\":";
  append_json_string(s, uri);
  s += ",\"etag\":";
  append_json_string(s, r.etag);
  s += ",\"version_id\":";
  append_json_string(s, r.version_id);
  s += ",\"parts\":" + std::to_string(r.parts) + "}";
  return s;
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

// Local file (or "-": stdin) to S3. `quiet`: no progress (recursive copies).
awaitable<int> upload_one(context& x, std::string const& local, std::string const& bucket, std::string const& key,
                          bool quiet, std::string* json_out) {
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
  if (local == "-") {
    // Small input goes up from memory; larger input is spooled to a
    // temporary file so that it can be retried and sent in parts.
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
      }
      memory.clear();
      memory.shrink_to_fit();
      path = spool.path;
    }
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
    progress bar("upload " + std::string(base_name(local == "-" ? std::string_view("stdin") : std::string_view(local))),
                 path.empty() ? 0 : file_size, !quiet && !x.cl.no_progress && !path.empty());
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
    r = co_await x.c.async_put_object(bucket, key, body, params);
  } else {
    struct ::stat st {};
    if (::stat(path.c_str(), &st) != 0) co_return fail(x, system_error_of(errno, "cannot read " + path), "PutObject", resource);
    if (!S_ISREG(st.st_mode)) {
      error e(errc::invalid_argument, path + " is not a regular file");
      co_return fail(x, e, "PutObject", resource);
    }
    progress bar("upload " + std::string(base_name(local == "-" ? std::string_view("stdin") : std::string_view(local))),
                 static_cast<std::uint64_t>(st.st_size), !quiet && !x.cl.no_progress);
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
  if (json_out != nullptr) {
    *json_out = put_json(uri, *r);
  } else if (x.g.json) {
    write_stdout(put_json(uri, *r) + "\n");
  } else if (quiet) {
    write_stdout("upload: " + printable(local) + " to " + printable(uri) + "\n");
  } else {
    write_stdout(r->etag + "\n");
  }
  co_return exit_ok;
}

// S3 to a local file (written to a temporary file, renamed when complete)
// or "-" (stdout).
awaitable<int> download_one(context& x, std::string const& bucket, std::string const& key, std::string const& local,
                            bool quiet) {
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
  if (x.g.json && !to_stdout) {
    std::string s = "{\"uri\":";
    append_json_string(s, uri);
    s += ",\"file\":";
    append_json_string(s, local);
    s += ",\"size\":" + std::to_string(r->info.size) + ",\"etag\":";
    append_json_string(s, r->info.etag);
    s += "}\n";
    if (!quiet) write_stdout(s);
  } else if (quiet && !to_stdout && !x.g.json) {
    write_stdout("download: " + printable(uri) + " to " + printable(local) + "\n");
  }
  co_return exit_ok;
}

awaitable<int> copy_one(context& x, std::string const& sb, std::string const& sk, std::string const& db,
                        std::string const& dk, bool quiet) {
  s3::copy_params p;
  p.source_bucket = sb;
  p.source_key = sk;
  p.bucket = db;
  p.key = dk;
  op_trace trace(x, "CopyObject", "PUT", db, std::string_view(dk));
  auto r = co_await x.c.async_copy_object(p);
  trace.done(r);
  if (!r) co_return fail(x, r.error(), "CopyObject", resource_of(db, dk));
  if (x.g.json) {
    if (!quiet) {
      std::string s = "{\"source\":";
      append_json_string(s, uri_of(sb, sk));
      s += ",\"uri\":";
      append_json_string(s, uri_of(db, dk));
      s += ",\"etag\":";
      append_json_string(s, r->etag);
      s += "}\n";
      write_stdout(s);
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
    out = "{\"buckets\":[";
    for (std::size_t i = 0; i < r->buckets.size(); ++i) {
      auto const& b = r->buckets[i];
      if (i) out += ',';
      out += "{\"name\":";
      append_json_string(out, b.name);
      out += ",\"creation_date\":";
      append_json_string(out, b.creation_date);
      out += ",\"region\":";
      append_json_string(out, b.region);
      out += '}';
    }
    out += "],\"owner\":{\"id\":";
    append_json_string(out, r->owner_id);
    out += ",\"display_name\":";
    append_json_string(out, r->owner_display_name);
    out += "}}\n";
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
    out = "{\"bucket\":";
    append_json_string(out, u->bucket);
    out += ",\"prefix\":";
    append_json_string(out, u->key);
    out += ",\"objects\":[";
    bool first = true;
    for (auto const& o : r->objects) {
      if (!first) out += ',';
      first = false;
      out += "{\"key\":";
      append_json_string(out, o.key);
      out += ",\"size\":" + std::to_string(o.size) + ",\"etag\":";
      append_json_string(out, o.etag);
      out += ",\"last_modified\":";
      append_json_string(out, o.last_modified);
      out += ",\"storage_class\":";
      append_json_string(out, o.storage_class);
      out += '}';
    }
    out += "],\"prefixes\":[";
    first = true;
    for (auto const& p : r->common_prefixes) {
      if (!first) out += ',';
      first = false;
      append_json_string(out, p);
    }
    out += "]}\n";
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
        co_return co_await copy_one(x, s->bucket, s->key, d->bucket, dk, false);
      }
      std::string local = dst;
      std::error_code ec;
      if (local != "-" && (local.back() == '/' || fs::is_directory(local, ec))) {
        if (local.back() != '/') local += '/';
        local += base_name(s->key);
      }
      co_return co_await download_one(x, s->bucket, s->key, local, false);
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
    co_return co_await upload_one(x, src, d->bucket, dk, false, nullptr);
  }

  // --recursive: several objects at once.
  std::vector<std::pair<std::string, std::string>> jobs;  // (from, to) as each direction needs
  std::string sbucket, dbucket;
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
    int rc = exit_ok;
    for (auto const& o : listed->objects) {
      std::string_view rel = std::string_view(o.key).substr(prefix.size());
      if (!rel.empty() && rel.back() == '/' && o.size == 0) continue;  // a "directory" marker
      if (s3_dst) {
        if (rel.empty()) continue;
        jobs.emplace_back(o.key, dprefix + std::string(rel));
        continue;
      }
      auto safe = safe_relative(rel);
      if (!safe) {
        error e(errc::invalid_argument, "refusing key '" + printable(o.key) +
                                            "': as a file name it would leave the destination directory");
        report_error(x.g, e, "GetObject", resource_of(sbucket, o.key));
        rc = exit_error;
        continue;
      }
      jobs.emplace_back(o.key, (fs::path(dst) / *safe).string());
    }
    auto fn = [&](std::size_t i) -> awaitable<int> {
      auto const& job = jobs[i];
      if (s3_dst) co_return co_await copy_one(x, sbucket, job.first, dbucket, job.second, true);
      std::error_code ec;
      fs::create_directories(fs::path(job.second).parent_path(), ec);
      if (ec) {
        co_return fail(x, system_error_of(ec.value(), "creating the directory of " + job.second), "GetObject",
                       resource_of(sbucket, job.first));
      }
      co_return co_await download_one(x, sbucket, job.first, job.second, true);
    };
    int prc = co_await run_parallel(jobs.size(), x.cl.concurrency, fn);
    rc = worse(rc, prc);
    if (x.g.json) write_stdout("{\"objects\":" + std::to_string(jobs.size()) + ",\"exit_code\":" + std::to_string(rc) + "}\n");
    co_return rc;
  }

  // Local directory to an S3 prefix.
  auto d = parse_s3_uri(dst);
  if (!d) co_return usage_error(x, d.error().diag.message);
  dbucket = d->bucket;
  std::string const dprefix = dir_prefix(d->key);
  std::error_code ec;
  if (!fs::is_directory(src, ec)) co_return usage_error(x, "'" + printable(src) + "' is not a directory");
  fs::recursive_directory_iterator it(src, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code sec;
    if (!it->is_regular_file(sec)) continue;
    auto rel = fs::relative(it->path(), src, sec).generic_string();
    jobs.emplace_back(it->path().string(), dprefix + rel);
  }
  if (ec) co_return fail(x, system_error_of(ec.value(), "reading " + src), "PutObject", dbucket);
  std::sort(jobs.begin(), jobs.end());
  auto fn = [&](std::size_t i) -> awaitable<int> {
    co_return co_await upload_one(x, jobs[i].first, dbucket, jobs[i].second, true, nullptr);
  };
  int rc = co_await run_parallel(jobs.size(), x.cl.concurrency, fn);
  if (x.g.json) write_stdout("{\"objects\":" + std::to_string(jobs.size()) + ",\"exit_code\":" + std::to_string(rc) + "}\n");
  co_return rc;
}

awaitable<int> cmd_cat(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  std::string const out = "-";
  co_return co_await download_one(x, u->bucket, u->key, out, true);
}

awaitable<int> cmd_put(context& x) {
  auto u = parse_s3_uri(x.cl.args[0]);
  if (!u) co_return usage_error(x, u.error().diag.message);
  if (u->key.empty()) co_return usage_error(x, "the URI names no object");
  std::string const local = x.cl.file.empty() ? std::string("-") : x.cl.file;
  co_return co_await upload_one(x, local, u->bucket, u->key, false, nullptr);
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
      std::string s = "{\"deleted\":[";
      append_json_string(s, u->key);
      s += "],\"errors\":[]}\n";
      write_stdout(s);
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
  if (x.g.json) {
    std::string s = "{\"deleted\":[";
    for (std::size_t i = 0; i < res.deleted.size(); ++i) {
      if (i) s += ',';
      append_json_string(s, res.deleted[i]);
    }
    s += "],\"errors\":[";
    for (std::size_t i = 0; i < res.errors.size(); ++i) {
      if (i) s += ',';
      s += "{\"key\":";
      append_json_string(s, res.errors[i].key);
      s += ",\"code\":";
      append_json_string(s, res.errors[i].code);
      s += ",\"message\":";
      append_json_string(s, res.errors[i].message);
      s += '}';
    }
    s += "]}\n";
    write_stdout(s);
  } else {
    std::string s;
    for (auto const& k : res.deleted) s += "delete: " + printable(uri_of(u->bucket, k)) + "\n";
    write_stdout(s);
  }
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
    std::string s = "{\"uri\":";
    append_json_string(s, uri);
    s += ",\"not_modified\":";
    s += r->not_modified ? "true" : "false";
    s += ",\"size\":" + std::to_string(i.size) + ",\"etag\":";
    append_json_string(s, r->not_modified ? std::string_view(s3::normalize_etag(x.cl.if_none_match)) : std::string_view(i.etag));
    s += ",\"last_modified\":";
    append_json_string(s, i.last_modified);
    s += ",\"content_type\":";
    append_json_string(s, i.content_type);
    s += ",\"version_id\":";
    append_json_string(s, i.version_id);
    s += ",\"metadata\":{";
    for (std::size_t n = 0; n < i.metadata.size(); ++n) {
      if (n) s += ',';
      append_json_string(s, i.metadata[n].first);
      s += ':';
      append_json_string(s, i.metadata[n].second);
    }
    s += "}}\n";
    write_stdout(s);
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
    std::string s = "{\"url\":";
    append_json_string(s, *r);
    s += ",\"method\":";
    append_json_string(s, x.cl.method);
    s += ",\"expires\":" + std::to_string(x.cl.expires.count()) + "}\n";
    write_stdout(s);
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
    std::string s = "{\"bucket\":";
    append_json_string(s, u->bucket);
    s += create ? ",\"created\":true}\n" : ",\"removed\":true}\n";
    write_stdout(s);
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
