#pragma once
#include <floe/s3/client.hpp>

#include <floe/credentials/shared_files.hpp>
#include <floe/credentials/chain.hpp>
#include <floe/credentials/web_identity.hpp>
#include <floe/detail/sha256.hpp>
#include <floe/errors/classify.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/retry/clock_skew.hpp>
#include <floe/s3/store_support.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <openssl/evp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace floe::s3 {

namespace detail {

namespace asio = boost::asio;

// What execute() needs to know of one S3 request beyond the http::request.
struct op_spec {
  std::string_view operation;  // "GetObject"
  std::string_view method;     // "GET"
  // Views of the operation's own copies (the do_* arguments), which outlive
  // every request made for it. Empty bucket: a service-level request.
  std::string_view bucket;
  std::optional<std::string_view> key;
  query_builder query;
  /// Hex SHA-256 of the body or UNSIGNED-PAYLOAD; empty: computed from a
  /// memory body, UNSIGNED-PAYLOAD for file and stream bodies.
  std::string payload_hash;
  bool conditional_write = false;
  bool if_match = false;
  bool conditional_read = false;
  /// The operation can answer 200 with an <Error> body (Complete, Copy).
  bool may_200_error = false;
  /// Asked before every attempt but the first (a retry or a resend of the
  /// same request); an error ends the request with it. A streamed GET
  /// refuses a new attempt once it handed bytes to its sink: the whole body
  /// would follow them again. It resumes with Range + If-Match instead.
  std::function<error()> before_retry;

  std::string resource() const {
    std::string r(bucket);
    if (key) {
      r += '/';
      r += *key;
    }
    return r;
  }
};

// An ETag as S3 wants it in If-Match / If-None-Match on reads: quoted.
inline std::string quoted_etag(std::string_view etag) {
  if (etag == "*") return std::string(etag);
  std::string q = "\"";
  q += normalize_etag(etag);
  q += '"';
  return q;
}

inline std::string sha256_hex(std::string_view data) {
  auto d = floe::detail::sha256::of(data);
  std::string out(64, '0');
  floe::detail::hex_lower(d, out.data());
  return out;
}

inline std::string md5_base64(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_md5(), nullptr);
  std::array<unsigned char, 4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1> b64{};
  int n = EVP_EncodeBlock(b64.data(), md, static_cast<int>(len));
  return std::string(reinterpret_cast<char const*>(b64.data()), static_cast<std::size_t>(n));
}

// x-amz-copy-source: /bucket/key, the key percent-encoded with '/' kept.
inline std::string copy_source(copy_params const& p) {
  std::string source = "/";
  source += p.source_bucket;
  source += '/';
  sigv4::uri_encode_append(source, p.source_key, false);
  return source;
}

inline char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// Object facts from a HEAD/GET reply's headers.
inline void fill_info(http::response const& res, object_info& i) {
  // One pass over the reply's fields; the first of each name counts (as
  // fields::get would have it).
  using F = http::fields;
  constexpr std::string_view meta = "x-amz-meta-";
  auto const& h = res.headers;
  std::string_view length;
  unsigned seen = 0;
  auto first = [&seen](unsigned bit) {
    bool const was = (seen & bit) != 0;
    seen |= bit;
    return !was;
  };
  auto known = [&](std::string_view name, std::string_view value) {
    switch (name.size()) {
      case 4:
        if (!F::iequals(name, "ETag")) return false;
        if (first(1)) i.etag.assign(normalize_etag(value));
        return true;
      case 12:
        if (!F::iequals(name, "Content-Type")) return false;
        if (first(2)) i.content_type.assign(value);
        return true;
      case 13:
        if (F::iequals(name, "Last-Modified")) {
          if (first(4)) i.last_modified.assign(value);
          return true;
        }
        if (!F::iequals(name, "Content-Range")) return false;
        if (first(8)) i.content_range.assign(value);
        return true;
      case 14:
        if (!F::iequals(name, "Content-Length")) return false;
        if (first(16)) length = value;
        return true;
      case 16:
        if (!F::iequals(name, "x-amz-version-id")) return false;
        if (first(32)) i.version_id.assign(value);
        return true;
      default:
        return false;
    }
  };
  for (std::size_t n = 0; n < h.size(); ++n) {
    auto const f = h[n];
    if (known(f.name, f.value) || f.name.size() <= meta.size()) continue;
    bool match = true;
    for (std::size_t j = 0; j < meta.size() && match; ++j) match = ascii_lower(f.name[j]) == meta[j];
    if (!match) continue;
    std::string name(f.name.substr(meta.size()));
    for (auto& c : name) c = ascii_lower(c);
    i.metadata.emplace_back(std::move(name), std::string(f.value));
  }
  // The whole object's size: the total of a Content-Range, else the length.
  auto const cr = std::string_view(i.content_range);
  auto const slash = cr.rfind('/');
  if (slash == std::string_view::npos || !parse_u64(cr.substr(slash + 1), i.size)) (void)parse_u64(length, i.size);
}

inline put_result put_result_from(http::response const& res) {
  put_result r;
  r.etag = std::string(normalize_etag(res.headers.get("ETag")));
  r.version_id = std::string(res.headers.get("x-amz-version-id"));
  return r;
}

// A HEAD or in-memory GET's result, the body moved out of the reply.
inline get_result reply_result(http::response& res) {
  get_result r;
  r.not_modified = res.status == 304;
  fill_info(res, r.info);
  r.body = std::move(res.body);
  return r;
}

// The read's headers: Range from `start` (when ranged), the version pinned
// by If-Match (the caller's, or the ETag a resumed download first saw), and
// If-None-Match on a first request.
inline void set_read_headers(http::request& req, get_params const& p, bool ranged, std::uint64_t start,
                             std::string const& pinned_etag, bool first_request) {
  if (ranged) {
    std::string range = "bytes=" + std::to_string(start) + "-";
    if (p.range && p.range->second) range += std::to_string(*p.range->second);
    req.headers.set("Range", range);
  }
  std::string const& if_match = pinned_etag.empty() ? p.conditions.if_match : pinned_etag;
  if (!if_match.empty()) req.headers.set("If-Match", quoted_etag(if_match));
  if (!p.conditions.if_none_match.empty() && first_request)
    req.headers.set("If-None-Match", quoted_etag(p.conditions.if_none_match));
}

// A ranged request answered with anything but 206 and a Content-Range
// starting where it was asked (a server or cache that ignored Range sends
// the whole object with 200): its bytes are never delivered or spliced.
inline bool range_ignored(http::response const& rs, std::uint64_t start) {
  if (rs.status / 100 != 2) return false;  // not a body for the caller
  if (rs.status != 206) return true;
  auto cr = rs.headers.get("Content-Range");
  std::string const want = "bytes " + std::to_string(start) + "-";
  return cr.substr(0, want.size()) != want;
}

inline error range_error(op_spec const& op, http::response const& rs, std::uint64_t start) {
  return error(errc::malformed_reply, "GetObject " + op.resource() + ": asked for bytes from " + std::to_string(start) +
                                          ", the reply was " + std::to_string(rs.status) + " " +
                                          std::string(rs.headers.get("Content-Range")) +
                                          " (Range ignored?); nothing of it was delivered");
}

// A range whose end comes before its start.
inline bool backwards(get_params const& p) noexcept {
  return p.range && p.range->second && *p.range->second < p.range->first;
}

inline void read_op(op_spec& op, std::string_view operation, std::string_view method, std::string const& bucket,
                    std::string const& key, read_conditions const& c) {
  op.operation = operation;
  op.method = method;
  op.bucket = bucket;
  op.key = key;
  op.conditional_read = !c.if_match.empty() || !c.if_none_match.empty();
}

inline error invalid(std::string_view operation, std::string const& resource, std::string message) {
  error e(errc::invalid_argument, std::move(message));
  e.diag.operation = std::string(operation);
  e.diag.resource = resource;
  return e;
}

inline void add_context(error& e, op_spec const& op) {
  if (e.diag.operation.empty()) e.diag.operation = std::string(op.operation);
  if (e.diag.resource.empty()) e.diag.resource = op.resource();
}

inline error with_context(error e, op_spec const& op) {
  add_context(e, op);
  return e;
}

// Where a download writes: a temporary file beside the target, renamed over
// it by commit() once the whole body is there, so that a failed, cancelled or
// not-modified download never truncates what the target held. The
// temporary file is removed unless committed. A target that exists and is
// not a regular file (a FIFO, /dev/null) cannot be replaced by rename: it is
// written in place.
struct out_file {
  int fd = -1;
  std::string target;  // the file to produce (a symbolic link resolved)
  std::string temp;    // empty: writing the target in place

  out_file() = default;
  out_file(out_file const&) = delete;
  out_file& operator=(out_file const&) = delete;
  ~out_file() { discard(); }

  // Opens the temporary file (or, see above, the target). errno on failure.
  bool open(std::string const& path) {
    target = path;
    struct stat st {};
    bool const exists = ::stat(path.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
      fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      return fd >= 0;
    }
    if (exists) {
      if (::access(path.c_str(), W_OK) != 0) return false;  // as opening it for writing would
      if (char* real = ::realpath(path.c_str(), nullptr)) {
        target = real;
        std::free(real);
      }
    }
    auto const slash = target.rfind('/');
    std::string const dir = slash == std::string::npos ? std::string() : target.substr(0, slash + 1);
    std::string const base = slash == std::string::npos ? target : target.substr(slash + 1);
    static std::atomic<unsigned> counter{0};
    for (int tries = 0; tries < 100; ++tries) {
      auto const stamp = std::chrono::steady_clock::now().time_since_epoch().count();
      temp = dir + "." + base + ".floe-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
             std::to_string(static_cast<unsigned long long>(stamp) % 1000000007ull);
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd >= 0) {
        // The replacement keeps the permissions the target had.
        if (exists) (void)::fchmod(fd, st.st_mode & 07777);
        return true;
      }
      if (errno != EEXIST) break;
    }
    temp.clear();
    return false;
  }

  // Makes the body the target's content; errno-style message on failure.
  std::string commit() {
    int const f = fd;
    fd = -1;
    if (::close(f) != 0) return std::string("closing ") + (temp.empty() ? target : temp) + ": " + std::strerror(errno);
    if (temp.empty()) return {};
    if (::rename(temp.c_str(), target.c_str()) != 0) return "renaming " + temp + " to " + target + ": " + std::strerror(errno);
    temp.clear();
    return {};
  }

  // Drops the temporary file (the target stays as it was).
  void discard() noexcept {
    if (fd >= 0) ::close(fd);
    fd = -1;
    if (!temp.empty()) ::unlink(temp.c_str());
    temp.clear();
  }
};

// What client::perform keeps for one request beyond op, req and res: kept
// here, with the pooled exchange, rather than in perform's coroutine frame
// (Asio recycles frames only up to ~1 KiB; a bigger one costs an allocation
// per request, and evicts a cached smaller one).
struct op_scratch {
  request_target tgt;
  http::endpoint ep;
  credentials::credentials owned;  // a set fetched for this request (not lent)
  error failure;                   // the request's outcome: empty on success
};

// A request and its reply, kept warm between operations: their header lists
// and strings keep their memory, so a request on a warm client does not
// grow them again.
struct exchange {
  http::request req;
  http::response res;
  op_scratch scratch;
};

struct exchange_pool {
  std::vector<std::unique_ptr<exchange>> spares;
};

// Lends an exchange from the client's spares (a new one when there is none)
// and gives it back, emptied, at scope exit. At most max_spare are kept:
// more than that many operations in flight allocate their own. The lease
// shares the pool: a coroutine frame destroyed after its client (an
// io_context torn down with operations pending) still returns it safely.
class exchange_lease {
 public:
  static constexpr std::size_t max_spare = 64;
  explicit exchange_lease(std::shared_ptr<exchange_pool> const& pool) : pool_(pool) {
    if (pool_->spares.empty()) {
      x_ = std::make_unique<exchange>();
    } else {
      x_ = std::move(pool_->spares.back());
      pool_->spares.pop_back();
    }
  }
  ~exchange_lease() {
    if (pool_->spares.size() >= max_spare) return;
    x_->req.clear();
    x_->res.clear();
    x_->scratch.owned = {};  // no copy of a secret waits in the pool
    x_->scratch.failure.clear();
    pool_->spares.push_back(std::move(x_));
  }
  exchange_lease(exchange_lease const&) = delete;
  exchange_lease& operator=(exchange_lease const&) = delete;
  http::request& req() noexcept { return x_->req; }
  http::response& res() noexcept { return x_->res; }
  op_scratch& scratch() noexcept { return x_->scratch; }

 private:
  std::shared_ptr<exchange_pool> pool_;
  std::unique_ptr<exchange> x_;
};

inline constexpr std::uint64_t max_single_put = 5ull << 30;
inline constexpr std::uint64_t min_part_size = 5ull << 20;
inline constexpr std::uint64_t max_parts = 10000;

}  // namespace detail

FLOE_DECL result<std::unique_ptr<client>> client::create(executor_type ex, client_config cfg) {
  auto env = cfg.env ? cfg.env : credentials::process_environment();
  // The profile feeds region, endpoint and addressing style; a broken or
  // missing profile that was named explicitly is an error here.
  auto where = credentials::locate_shared_files(cfg.shared_files, env);
  std::optional<credentials::profile> prof;
  {
    auto files = credentials::load_shared_config(where);
    if (!files) return files.error();
    prof = files->find_profile(where.profile);
    if (!prof && where.explicit_profile() && cfg.credentials == nullptr) {
      return error(errc::invalid_argument, files->explain_missing(where.profile));
    }
  }
  auto addr = resolve_addressing(cfg.addressing, env, prof ? &*prof : nullptr);
  if (!addr) return addr.error();
  // The default chain, in the SDKs' order (credentials/chain.hpp): keys in
  // the environment; web identity from the environment; the profile
  // (static keys, roles, credential_process); container credentials; IMDS.
  auto provider = cfg.credentials;
  if (!provider) {
    credentials::chain_config cc;
    cc.env = env;
    cc.shared_files = cfg.shared_files;
    cc.sts.endpoint.region = addr->region;
    cc.sts.env = env;
    cc.sts.http.tls = cfg.http.tls;
    cc.sts.http.proxy = cfg.http.proxy;
    cc.sts.http.resolve_overrides = cfg.http.resolve_overrides;
    cc.sts.http.observer = cfg.http.observer;  // a request log sees the credential fetches too
    auto chain = credentials::make_default_chain(ex, std::move(cc));
    if (!chain) return chain.error();
    provider = std::move(*chain);
  }
  return std::unique_ptr<client>(new client(std::move(ex), std::move(cfg), std::move(*addr), std::move(provider)));
}

FLOE_DECL client::client(executor_type ex, client_config cfg, addressing_config addr,
                         std::shared_ptr<credentials::provider> provider)
    : cfg_(std::move(cfg)),
      addressing_(std::move(addr)),
      provider_(std::move(provider)),
      http_(std::move(ex), cfg_.http),
      spare_exchanges_(std::make_shared<detail::exchange_pool>()) {}

FLOE_DECL client::~client() = default;

FLOE_DECL bool client::target_for(detail::op_spec const& op, request_target& out, error& why) {
  if (op.bucket.empty()) {  // ListBuckets
    auto tgt = resolve_service_target(addressing_);
    if (!tgt) {
      why = std::move(tgt.error());
      return false;
    }
    out = std::move(*tgt);
    return true;
  }
  auto const region = regions_.lookup(op.bucket);  // learned from a redirect
  return resolve_target_into(addressing_, op.bucket, op.key, region ? std::string_view(*region) : std::string_view(),
                             out, why);
}

FLOE_DECL bool client::fixed_credentials(credentials::credentials& out, error& why) const {
  auto got = provider_->get();
  if (!got) {
    why = std::move(got.error());
    return false;
  }
  out = std::move(*got);
  return true;
}

FLOE_DECL boost::asio::awaitable<void> client::fetch_credentials(credentials::credentials& out, error& why) {
  auto got = co_await provider_->async_get(boost::asio::deferred);
  if (got) {
    out = std::move(*got);
  } else {
    why = std::move(got.error());
  }
}

FLOE_DECL void client::declined_refresh(error& out, error& stale) const {
  out = std::move(stale);
  out.diag.message += out.diag.message.empty() ? "" : "; ";
  out.diag.message += "credentials from " + provider_->describe() +
                      " were refreshed recently without curing this; not retried while that refresh backs off";
}

FLOE_DECL boost::asio::awaitable<error> client::execute(detail::op_spec& op, http::request& req,
                                                         http::response& res) {
  detail::op_scratch s;  // off the hot path: a bigger frame is fine here
  co_await perform(op, req, res, s);
  co_return std::move(s.failure);
}

FLOE_DECL boost::asio::awaitable<void> client::perform(detail::op_spec& op, http::request& req, http::response& res,
                                                       detail::op_scratch& s) {
  namespace asio = boost::asio;
  // What lives across a suspension is kept few and small: Asio recycles a
  // coroutine frame only up to ~1 KiB, so a bigger one costs an allocation
  // per request. The big per-request values live in `s`; work with big
  // temporaries (target resolution, fetching credentials) runs in plain
  // functions or a coroutine of its own; errors are written, not returned.
  bool auth_retried = false;
  std::uint64_t stale_generation = 0;
  std::unique_ptr<error> stale_error;  // the reply that made us invalidate, to report if nothing better comes
  bool redirected = false;
  bool const refreshable = provider_->refreshable();
  req.operation = std::string(op.operation);
  error& failure = s.failure;  // this iteration's error, then the outcome
  failure.clear();
  request_target& tgt = s.tgt;
  http::endpoint& ep = s.ep;
  for (;;) {
    if (!target_for(op, tgt, failure)) co_return detail::add_context(failure, op);

    ep.tls = tgt.scheme == "https";
    ep.host = tgt.host;
    ep.port = tgt.port;
    req.method = std::string(op.method);
    req.target = tgt.path;
    op.query.append_to(req.target);
    req.headers.set("Host", tgt.host_header);

    // A fixed set needs no asynchronous hand-over (and its allocations): it
    // is lent (shared, not copied), or its get() answers what async_get
    // would. A refreshing provider is always asked through async_get, which
    // may wait for or start a fetch.
    std::shared_ptr<credentials::credentials const> lent;
    if (!refreshable) lent = provider_->lend();
    if (!lent && (refreshable || !fixed_credentials(s.owned, failure))) {
      failure.clear();
      co_await fetch_credentials(s.owned, failure);
      if (failure.code) co_return detail::add_context(failure, op);
    }
    credentials::credentials const* const signing = lent ? lent.get() : &s.owned;
    credentials::credentials const& creds = *signing;
    if (auth_retried && creds.generation == stale_generation && stale_error) {
      // The provider declined the invalidation (its forced refreshes are
      // backing off after curing nothing): resending with the same keys
      // would only meet the same 403. Fail at once, naming the source.
      co_return declined_refresh(failure, *stale_error);
    }

    // Views, not copies: op, tgt and memory_hash outlive every use below.
    std::array<char, 64> memory_hash;
    std::string_view payload_hash = op.payload_hash;
    if (payload_hash.empty()) {
      if (req.body.type() == http::body_source::kind::memory) {
        floe::detail::hex_lower(floe::detail::sha256::of(req.body.bytes()), memory_hash.data());
        payload_hash = std::string_view(memory_hash.data(), memory_hash.size());
      } else if (req.body.type() == http::body_source::kind::none) {
        payload_hash = sigv4::empty_payload_sha256;
      } else {
        payload_hash = sigv4::unsigned_payload;
      }
    }
    auto query_params = op.query.params();
    std::string_view const path = tgt.path;
    std::string_view const sign_region = tgt.region;

    bool first_attempt = true;
    // The hooks capture one pointer each (to this lambda), so std::function
    // keeps them without a heap block.
    auto sign_attempt = [&](http::request& r, http::attempt_info const& ai) -> error {
      if (!first_attempt && op.before_retry) {
        if (auto e = op.before_retry(); e.code) return e;
      }
      first_attempt = false;
      sign_headers_.clear();
      for (std::size_t i = 0; i < r.headers.size(); ++i) {
        auto f = r.headers[i];
        using F = http::fields;
        if (F::iequals(f.name, sigv4::authorization_header) || F::iequals(f.name, sigv4::amz_date_header) ||
            F::iequals(f.name, sigv4::security_token_header) || F::iequals(f.name, sigv4::content_sha256_header) ||
            F::iequals(f.name, "Expect") || F::iequals(f.name, "Connection") || F::iequals(f.name, "User-Agent"))
          continue;
        sign_headers_.push_back({f.name, f.value});
      }
      sigv4::request_view v;
      v.method = r.method;
      v.path = path;
      v.query = query_params;
      v.headers = sign_headers_;
      v.payload_hash = payload_hash;
      sigv4::credentials_view cv{creds.access_key_id, creds.secret_access_key.reveal(), creds.session_token.reveal()};
      auto signed_ok = signer_.sign_headers(v, cv, sigv4::signing_params::s3(sign_region), now() + ai.clock_skew, sig_);
      if (!signed_ok) return signed_ok.error();
      sig_.for_each_header([&r](std::string_view n, std::string_view val) { r.headers.set(n, val); });
      return {};
    };
    req.sign = [hook = &sign_attempt](http::request& r, http::attempt_info const& ai) { return (*hook)(r, ai); };

    auto facts_of = [&](http::response const& rs) {
      errors::reply_facts f;
      f.status = rs.status;
      f.method = op.method;
      f.is_conditional_write = op.conditional_write;
      f.if_match = op.if_match;
      f.is_conditional_read = op.conditional_read;
      f.credentials_refreshable = refreshable;
      f.clock_skew = retry::skew_from_date(rs.headers.get("Date"), now());
      f.has_bucket_region = rs.headers.contains("x-amz-bucket-region");
      return f;
    };
    auto classify_reply = [&](http::response const& rs) -> errors::kind {
      if (rs.status / 100 == 2 && !op.may_200_error) return errors::kind::success;
      if (rs.status == 304 && op.conditional_read) return errors::kind::success;
      return errors::describe_reply(facts_of(rs), rs.body, {}).what.outcome;
    };
    req.classify = [hook = &classify_reply](http::request const&, http::response const& rs) { return (*hook)(rs); };

    auto reply_error = [&](error& out) {
      auto const resource = op.resource();
      errors::reply_ids ids;
      ids.request_id = res.headers.get("x-amz-request-id");
      ids.host_id = res.headers.get("x-amz-id-2");
      ids.operation = op.operation;
      ids.resource = resource;
      ids.attempt = res.attempts;
      auto report = errors::describe_reply(facts_of(res), res.body, ids);
      if (!report.err.code) report.err.code = errc::service_error;  // never a silent success
      // Ceph sends SignatureDoesNotMatch with an empty message; say what to check.
      if (report.err.diag.code == "SignatureDoesNotMatch" && report.err.diag.message.empty()) {
        report.err.diag.message = "the store computed another signature for this request: check the secret access key";
        if (!creds.source.empty()) report.err.diag.message += " (credentials from " + creds.source + ")";
      }
      if (res.retry_stop == errc::unknown_outcome) report.err.code = errc::unknown_outcome;
      out = std::move(report.err);
    };

    res.clear();
    // The HTTP exchange runs as a plain call on this coroutine's stack, not
    // as an operation of its own (co_spawn): no second coroutine thread, its
    // frames and completion hop per request. It shares this operation's
    // cancellation state (terminal cancellation, as async_send's own). It
    // turns thrown-if-cancelled off for itself; that is put back after.
    bool const throw_if_cancelled = co_await asio::this_coro::throw_if_cancelled();
    try {
      co_await http::detail::run_send_into(http_, ep, req, res, failure);
    } catch (...) {
      failure = http::detail::error_from_exception(std::current_exception());
    }
    co_await asio::this_coro::throw_if_cancelled(throw_if_cancelled);
    if (failure.code) co_return detail::add_context(failure, op);
    if (res.kind == errors::kind::success) {
      // A 403 that fresh credentials cured: the provider's forced-refresh
      // back-off can reset.
      if (auth_retried && creds.generation != stale_generation) provider_->confirm(creds.generation);
      co_return;
    }

    bool const can_resend = req.body.replayable();
    if (res.kind == errors::kind::stale_credentials && refreshable && !auth_retried && can_resend) {
      // The generation that signed this is bad; the next get waits for a
      // fetch started after this point. Once per operation, outside the
      // retry quota and with no back-off timer.
      stale_generation = creds.generation;
      stale_error = std::make_unique<error>();
      reply_error(*stale_error);
      provider_->invalidate(creds.generation);
      auth_retried = true;
      continue;
    }
    if (res.kind == errors::kind::redirect && !redirected && !op.bucket.empty() && can_resend) {
      auto where = res.headers.get("x-amz-bucket-region");
      if (!where.empty() && where != sign_region && regions_.remember(op.bucket, where)) {
        redirected = true;
        continue;
      }
    }
    co_return reply_error(failure);
  }
}

FLOE_DECL boost::asio::awaitable<result<get_result>> client::do_head(std::string const& bucket, std::string const& key,
                                                                      read_conditions const& c) {
  detail::exchange_lease x(spare_exchanges_);
  detail::op_spec op;
  detail::read_op(op, "HeadObject", "HEAD", bucket, key, c);
  if (!c.if_match.empty()) x.req().headers.set("If-Match", detail::quoted_etag(c.if_match));
  if (!c.if_none_match.empty()) x.req().headers.set("If-None-Match", detail::quoted_etag(c.if_none_match));
  co_await perform(op, x.req(), x.res(), x.scratch());
  if (x.scratch().failure.code) co_return std::move(x.scratch().failure);
  co_return detail::reply_result(x.res());
}

// GetObject into memory. Kept apart from the streamed do_get (its resumes
// and file handling) so that its coroutine frame stays small: this is the
// hot path of a service reading small objects.
FLOE_DECL boost::asio::awaitable<result<get_result>> client::do_get_memory(std::string const& bucket,
                                                                            std::string const& key, get_params const& p) {
  detail::exchange_lease x(spare_exchanges_);
  detail::op_spec op;
  detail::read_op(op, "GetObject", "GET", bucket, key, p.conditions);
  if (detail::backwards(p)) co_return detail::invalid(op.operation, op.resource(), "range end before its start");
  std::uint64_t const start = p.range ? p.range->first : 0;
  detail::set_read_headers(x.req(), p, p.range.has_value(), start, {}, true);
  co_await perform(op, x.req(), x.res(), x.scratch());
  if (x.scratch().failure.code) co_return std::move(x.scratch().failure);
  if (p.range && detail::range_ignored(x.res(), start)) co_return detail::range_error(op, x.res(), start);
  co_return detail::reply_result(x.res());
}

// A streamed GetObject (a download to a file, or to a write function):
// resumes a transfer that broke after delivering bytes, pinned to the
// version first seen.
FLOE_DECL boost::asio::awaitable<result<get_result>> client::do_get(std::string const& bucket, std::string const& key,
                                                                     get_params const& p, std::string const* path,
                                                                     http::body_sink::write_fn const* write) {
  detail::op_spec op;
  detail::read_op(op, "GetObject", "GET", bucket, key, p.conditions);
  detail::out_file file;
  if (path != nullptr && !file.open(*path)) {
    co_return detail::invalid(op.operation, op.resource(),
                              "cannot open " + *path + " for writing: " + std::strerror(errno));
  }

  if (detail::backwards(p)) co_return detail::invalid(op.operation, op.resource(), "range end before its start");
  std::uint64_t const first = p.range ? p.range->first : 0;
  std::uint64_t received = 0;  // bytes delivered to the sink over all attempts
  std::string etag;            // the version being read, pinned after the first reply
  bool wrong_range = false;
  get_result out;
  detail::exchange_lease x(spare_exchanges_);
  http::response& res = x.res();
  for (;;) {
    http::request& req = x.req();
    req.clear();
    bool const ranged = p.range || received > 0;
    std::uint64_t const start = first + received;
    // After a break, pin the version first seen: never splice two versions.
    detail::set_read_headers(req, p, ranged, start, etag, received == 0);
    bool first_piece = true;
    std::uint64_t const received_before = received;
    op.before_retry = [&received, received_before]() -> error {
      if (received == received_before) return {};
      return error(errc::body_not_replayable, "the reply broke after part of the body was delivered");
    };
    req.sink = http::body_sink::stream([&](std::string_view piece, boost::system::error_code& ec) {
      if (first_piece) {
        first_piece = false;
        if (ranged && detail::range_ignored(res, start)) {
          wrong_range = true;
          ec = make_error_code(errc::malformed_reply);
          return;
        }
      }
      if (etag.empty()) etag = std::string(normalize_etag(res.headers.get("ETag")));
      if (file.fd >= 0) {
        while (!piece.empty()) {
          auto n = ::write(file.fd, piece.data(), piece.size());
          if (n < 0) {
            if (errno == EINTR) continue;
            ec = {errno, boost::system::system_category()};
            return;
          }
          piece.remove_prefix(static_cast<std::size_t>(n));
          received += static_cast<std::uint64_t>(n);
        }
      } else {
        (*write)(piece, ec);
        if (!ec) received += piece.size();
      }
    });
    auto e = co_await execute(op, req, res);
    if (wrong_range) co_return detail::range_error(op, res, start);
    if (!e.code) break;
    // Resume a stream that broke after delivering bytes; anything else is final.
    bool const broken_mid_body = received > 0 && !etag.empty() && (res.status == 0 || res.status / 100 == 2) &&
                                 e.code != boost::asio::error::operation_aborted && out.resumes < cfg_.max_resumes;
    if (!broken_mid_body) {
      if (received > 0 && e.code == errc::precondition_failed) {
        e.diag.message = "the object changed during the download (ETag no longer " + etag +
                         "); the partial data was not completed with another version";
      }
      co_return e;
    }
    ++out.resumes;
  }
  out.not_modified = res.status == 304;
  detail::fill_info(res, out.info);
  if (!out.info.etag.empty() && !etag.empty() && out.info.etag != etag) out.info.etag = etag;
  if (file.fd >= 0) {
    if (out.not_modified) {
      file.discard();  // the caller's copy is current: keep it
    } else if (auto failed = file.commit(); !failed.empty()) {
      co_return detail::invalid(op.operation, op.resource(), "cannot write the download: " + failed);
    }
  }
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<put_result>> client::do_put(std::string const& bucket, std::string const& key,
                                                                     http::body_source const& body, put_params const& p) {
  detail::op_spec op;
  op.operation = "PutObject";
  op.method = "PUT";
  op.bucket = bucket;
  op.key = key;
  if (body.size() > cfg_.max_single_put)
    co_return detail::invalid(op.operation, op.resource(),
                              "a single PUT takes at most " + std::to_string(cfg_.max_single_put) +
                                  " bytes (client_config::max_single_put); use async_upload_file");
  if (!p.if_none_match.empty() && p.if_none_match != "*")
    co_return detail::invalid(op.operation, op.resource(),
                              "if_none_match on a write accepts only \"*\" (create only), got \"" + p.if_none_match + "\"");
  detail::exchange_lease x(spare_exchanges_);
  http::request& req = x.req();
  http::response& res = x.res();
  if (!p.content_type.empty()) req.headers.set("Content-Type", p.content_type);
  for (auto const& [n, v] : p.metadata) req.headers.add("x-amz-meta-" + n, v);
  if (!p.if_match.empty()) {
    req.headers.set("If-Match", p.if_match_unquoted ? std::string(normalize_etag(p.if_match)) : detail::quoted_etag(p.if_match));
    op.conditional_write = op.if_match = true;
  }
  if (!p.if_none_match.empty()) {
    req.headers.set("If-None-Match", "*");
    op.conditional_write = true;
  }
  if (!req.headers.valid())
    co_return detail::invalid(op.operation, op.resource(), "a header value (content type or metadata) has CR, LF or NUL");
  req.traits.conditional_write = op.conditional_write;
  req.body = body;
  if (p.on_progress) req.on_body_sent = p.on_progress;
  co_await perform(op, req, res, x.scratch());
  if (x.scratch().failure.code) co_return std::move(x.scratch().failure);
  co_return detail::put_result_from(res);
}

FLOE_DECL boost::asio::awaitable<result<put_result>> client::do_upload_file(std::string const& bucket, std::string const& key,
                                                                             std::string const& path, put_params const& p) {
  struct stat st {};
  errno = 0;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    co_return detail::invalid("PutObject", bucket + "/" + key,
                              "cannot read " + path + ": " + (errno ? std::strerror(errno) : "not a regular file"));
  }
  auto const size = static_cast<std::uint64_t>(st.st_size);
  bool const conditional = !p.if_match.empty() || !p.if_none_match.empty();
  if (conditional) {
    // One PUT while one PUT can take it: moto and Ceph RGW 16.2 ignore a
    // condition on CompleteMultipartUpload and would replace the object
    // whatever its ETag. Above that, only where the store is known to honour
    // it there; elsewhere refused before anything is sent.
    switch (plan_conditional_upload(size, cfg_.max_single_put, addressing_)) {
      case conditional_upload_plan::single_put: {
        auto body = http::body_source::file(path, 0, size);
        co_return co_await do_put(bucket, key, body, p);
      }
      case conditional_upload_plan::condition_on_complete:
        co_return co_await do_multipart(bucket, key, path, size, p);
      case conditional_upload_plan::refuse: {
        error e(errc::unsupported,
                std::string("this store does not support a conditional write too large for one PUT (") +
                    std::to_string(size) + " bytes, more than " + std::to_string(cfg_.max_single_put) +
                    "): its condition (" + (p.if_match.empty() ? "If-None-Match: *" : "If-Match") +
                    ") would have to go on CompleteMultipartUpload, which only AWS is known to honour (moto and "
                    "Ceph RGW 16.2 ignore it and replace the object); nothing was uploaded");
        e.diag.operation = "PutObject";
        e.diag.resource = bucket + "/" + key;
        co_return e;
      }
    }
  }
  if (size <= cfg_.max_single_put && (size < cfg_.multipart_threshold || size < detail::min_part_size)) {
    auto body = http::body_source::file(path, 0, size);
    co_return co_await do_put(bucket, key, body, p);
  }
  co_return co_await do_multipart(bucket, key, path, size, p);
}

FLOE_DECL boost::asio::awaitable<void> client::abort_multipart(std::string const& bucket, std::string const& key,
                                                                std::string const& upload_id) {
  detail::op_spec op;
  op.operation = "AbortMultipartUpload";
  op.method = "DELETE";
  op.bucket = bucket;
  op.key = key;
  op.query.add("uploadId", upload_id);
  http::request req;
  http::response res;
  (void)co_await execute(op, req, res);  // best effort: a lifecycle rule cleans up what this misses
}

FLOE_DECL boost::asio::awaitable<result<put_result>> client::do_multipart(std::string const& bucket, std::string const& key,
                                                                           std::string const& path, std::uint64_t size,
                                                                           put_params const& p, copy_params const* copy,
                                                                           std::string const* copy_etag) {
  namespace asio = boost::asio;
  if (!p.if_none_match.empty() && p.if_none_match != "*")
    co_return detail::invalid("CreateMultipartUpload", bucket + "/" + key,
                              "if_none_match on a write accepts only \"*\" (create only)");
  std::string upload_id;
  {
    detail::op_spec op;
    op.operation = "CreateMultipartUpload";
    op.method = "POST";
    op.bucket = bucket;
    op.key = key;
    op.query.add_flag("uploads");
    http::request req;
    if (!p.content_type.empty()) req.headers.set("Content-Type", p.content_type);
    for (auto const& [n, v] : p.metadata) req.headers.add("x-amz-meta-" + n, v);
    if (!req.headers.valid())
      co_return detail::invalid(op.operation, op.resource(), "a header value (content type or metadata) has CR, LF or NUL");
    http::response res;
    auto e = co_await execute(op, req, res);
    if (e.code) co_return e;
    auto id = parse_initiate_multipart(res.body);
    if (!id) co_return detail::with_context(id.error(), op);
    upload_id = std::move(*id);
  }

  std::uint64_t part_size = std::max(copy ? cfg_.copy_part_size : cfg_.part_size, detail::min_part_size);
  part_size = std::min(part_size, detail::max_single_put);
  part_size = std::max(part_size, (size + detail::max_parts - 1) / detail::max_parts);
  auto const count = static_cast<std::size_t>((size + part_size - 1) / part_size);
  std::vector<completed_part> parts(count);
  // Bytes sent of each part in its current attempt, and their sum.
  std::vector<std::uint64_t> part_sent(p.on_progress && !copy ? count : 0);
  std::uint64_t total_sent = 0;
  std::size_t next = 0;
  std::optional<error> failure;

  auto worker = [&]() -> asio::awaitable<void> {
    while (!failure && next < count) {
      auto const i = next++;
      auto const off = static_cast<std::uint64_t>(i) * part_size;
      auto const len = std::min(part_size, size - off);
      detail::op_spec op;
      op.operation = copy ? "UploadPartCopy" : "UploadPart";
      op.method = "PUT";
      op.bucket = bucket;
      op.key = key;
      op.query.add("partNumber", std::to_string(i + 1));
      op.query.add("uploadId", upload_id);
      http::request req;
      if (copy) {
        op.may_200_error = true;
        req.headers.set("x-amz-copy-source", detail::copy_source(*copy));
        req.headers.set("x-amz-copy-source-range",
                        "bytes=" + std::to_string(off) + "-" + std::to_string(off + len - 1));
        if (copy_etag && !copy_etag->empty())
          req.headers.set("x-amz-copy-source-if-match", detail::quoted_etag(*copy_etag));
        op.conditional_read = true;
      } else {
        req.body = http::body_source::file(path, off, len);
        if (p.on_progress) {
          req.on_body_sent = [&part_sent, &total_sent, &p, i](std::uint64_t n) {
            total_sent = total_sent - part_sent[i] + n;  // a retried part starts again from 0
            part_sent[i] = n;
            p.on_progress(total_sent);
          };
        }
      }
      http::response res;
      auto e = co_await execute(op, req, res);
      if (e.code) {
        if (!failure) failure = std::move(e);
        co_return;
      }
      parts[i].number = static_cast<unsigned>(i + 1);
      if (copy) {
        auto cr = parse_copy_result(res.body);
        if (!cr) {
          if (!failure) failure = detail::with_context(cr.error(), op);
          co_return;
        }
        parts[i].etag = "\"" + cr->etag + "\"";
      } else {
        parts[i].etag = std::string(res.headers.get("ETag"));
        if (normalize_etag(parts[i].etag).empty()) {
          // Completing with an empty ETag would fail on the store, or worse,
          // be accepted: the part is refused here and the upload aborted.
          if (!failure) {
            error bad(errc::malformed_reply, "the reply to part " + std::to_string(i + 1) + " has no ETag");
            bad.diag.http_status = res.status;
            bad.diag.request_id = std::string(res.headers.get("x-amz-request-id"));
            failure = detail::with_context(std::move(bad), op);
          }
          co_return;
        }
      }
    }
  };

  auto ex = co_await asio::this_coro::executor;
  auto const n = std::max<std::size_t>(1, std::min<std::size_t>(cfg_.multipart_concurrency, count));
  using op_type = decltype(asio::co_spawn(ex, worker(), asio::deferred));
  std::vector<op_type> ops;
  ops.reserve(n);
  for (std::size_t i = 0; i < n; ++i) ops.push_back(asio::co_spawn(ex, worker(), asio::deferred));
  std::exception_ptr thrown;
  try {
    auto [order, excs] = co_await asio::experimental::make_parallel_group(std::move(ops))
                             .async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
    (void)order;
    for (auto& x : excs)
      if (x && !thrown) thrown = x;
  } catch (...) {
    thrown = std::current_exception();
  }
  if (thrown || failure) {
    // Runs detached so that it also happens when this operation was cancelled.
    asio::co_spawn(ex, [this, b = bucket, k = key, u = upload_id]() { return abort_multipart(b, k, u); }, asio::detached);
    if (thrown) std::rethrow_exception(thrown);
    co_return std::move(*failure);
  }

  detail::op_spec op;
  op.operation = "CompleteMultipartUpload";
  op.method = "POST";
  op.bucket = bucket;
  op.key = key;
  op.query.add("uploadId", upload_id);
  op.may_200_error = true;
  http::request req;
  std::string body = build_complete_multipart_body(parts);
  req.headers.set("Content-Type", "application/xml");
  // A condition is never dropped: it goes on the completion.
  if (!p.if_match.empty()) {
    req.headers.set("If-Match", p.if_match_unquoted ? std::string(normalize_etag(p.if_match)) : detail::quoted_etag(p.if_match));
    op.conditional_write = op.if_match = true;
  }
  if (!p.if_none_match.empty()) {
    req.headers.set("If-None-Match", "*");
    op.conditional_write = true;
  }
  req.traits.conditional_write = op.conditional_write;
  req.body = http::body_source::memory(body);
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) {
    if (e.code != errc::unknown_outcome) asio::co_spawn(ex, [this, b = bucket, k = key, u = upload_id]() { return abort_multipart(b, k, u); }, asio::detached);
    co_return e;
  }
  auto done = parse_complete_multipart(res.body);
  if (!done) co_return detail::with_context(done.error(), op);
  put_result r;
  r.etag = std::move(done->etag);
  // Ceph 16.2 answers <ETag></ETag>: take the header, else the value S3 and
  // Ceph compute from the parts' MD5s.
  if (r.etag.empty()) r.etag = std::string(normalize_etag(res.headers.get("ETag")));
  if (r.etag.empty()) r.etag = multipart_etag(parts);
  r.version_id = std::string(res.headers.get("x-amz-version-id"));
  r.parts = static_cast<unsigned>(count);
  co_return r;
}

FLOE_DECL boost::asio::awaitable<result<void>> client::do_delete(std::string const& bucket, std::string const& key,
                                                                   delete_params const& p) {
  detail::op_spec op;
  op.operation = "DeleteObject";
  op.method = "DELETE";
  op.bucket = bucket;
  op.key = key;
  http::request req;
  if (!p.if_match.empty()) {
    req.headers.set("If-Match", p.if_match_unquoted ? std::string(normalize_etag(p.if_match)) : detail::quoted_etag(p.if_match));
    op.conditional_write = op.if_match = true;
    req.traits.conditional_write = true;
  }
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) co_return e;
  co_return result<void>{};
}

FLOE_DECL boost::asio::awaitable<result<delete_objects_result>> client::do_delete_objects(std::string const& bucket,
                                                                                          std::vector<std::string>& keys) {
  delete_objects_result all;
  std::vector<std::string> batch;
  std::vector<std::string> singles;  // keys XML cannot carry
  auto xml_safe = [](std::string const& k) {
    return std::none_of(k.begin(), k.end(), [](char c) {
      auto u = static_cast<unsigned char>(c);
      return u < 0x20 && u != '\t' && u != '\n' && u != '\r';
    });
  };
  std::size_t i = 0;
  while (i < keys.size()) {
    batch.clear();
    while (i < keys.size() && batch.size() < 1000) {
      if (xml_safe(keys[i])) batch.push_back(std::move(keys[i]));
      else singles.push_back(std::move(keys[i]));
      ++i;
    }
    if (batch.empty()) continue;
    auto body = build_delete_objects_body(batch, true);
    if (!body) co_return body.error();
    detail::op_spec op;
    op.operation = "DeleteObjects";
    op.method = "POST";
    op.bucket = bucket;
    op.query.add_flag("delete");
    op.may_200_error = true;
    http::request req;
    req.headers.set("Content-Type", "application/xml");
    req.headers.set("Content-MD5", detail::md5_base64(*body));
    req.body = http::body_source::memory(*body);
    http::response res;
    auto e = co_await execute(op, req, res);
    auto parsed = e.code ? result<delete_objects_result>(std::move(e)) : parse_delete_objects(res.body);
    if (!parsed) {
      auto err = detail::with_context(parsed.error(), op);
      // The first request: nothing was done, a plain error. Later: what the
      // earlier batches did is kept, with the error and the keys left over.
      if (all.deleted.empty() && all.errors.empty()) co_return err;
      all.failure = std::move(err);
      for (auto& k : batch) all.not_done.push_back(std::move(k));
      for (; i < keys.size(); ++i) all.not_done.push_back(std::move(keys[i]));
      for (auto& k : singles) all.not_done.push_back(std::move(k));
      co_return all;
    }
    // Quiet mode lists only failures: the rest of the batch was deleted.
    std::vector<std::string_view> failed;
    for (auto const& f : parsed->errors) failed.push_back(f.key);
    for (auto& k : batch)
      if (std::find(failed.begin(), failed.end(), std::string_view(k)) == failed.end()) all.deleted.push_back(std::move(k));
    for (auto& f : parsed->errors) all.errors.push_back(std::move(f));
  }
  for (auto& k : singles) {
    delete_params none;
    auto r = co_await do_delete(bucket, k, none);
    if (r) all.deleted.push_back(std::move(k));
    else all.errors.push_back({std::move(k), r.error().diag.code, r.error().what()});
  }
  co_return all;
}

FLOE_DECL boost::asio::awaitable<result<listing>> client::do_list(std::string const& bucket, list_params const& p) {
  listing out;
  std::string token;
  unsigned const max_page = (p.page_size == 0 || p.page_size > 1000) ? 1000u : p.page_size;
  for (;;) {
    detail::op_spec op;
    op.operation = "ListObjectsV2";
    op.method = "GET";
    op.bucket = bucket;
    op.query.add("list-type", "2");
    op.query.add("encoding-type", "url");
    auto page_size = max_page;
    if (p.max_keys != 0) {
      auto left = p.max_keys - out.objects.size();
      if (left < page_size) page_size = static_cast<unsigned>(left);
    }
    op.query.add("max-keys", std::to_string(page_size));
    if (!p.prefix.empty()) op.query.add("prefix", p.prefix);
    if (!p.delimiter.empty()) op.query.add("delimiter", p.delimiter);
    if (!token.empty()) op.query.add("continuation-token", token);
    else if (!p.start_after.empty()) op.query.add("start-after", p.start_after);
    http::request req;
    http::response res;
    auto e = co_await execute(op, req, res);
    if (e.code) co_return e;
    auto page = parse_list_objects_v2(res.body);
    if (!page) co_return detail::with_context(page.error(), op);
    ++out.pages;
    for (auto& o : page->objects) out.objects.push_back(std::move(o));
    for (auto& c : page->common_prefixes) out.common_prefixes.push_back(std::move(c));
    if (!page->truncated) break;
    if (p.max_keys != 0 && out.objects.size() >= p.max_keys) break;
    if (page->next_continuation_token == token) {
      co_return detail::with_context(error(errc::malformed_reply, "ListObjectsV2 returned the same continuation token twice"), op);
    }
    token = std::move(page->next_continuation_token);
  }
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<bucket_listing>> client::do_list_buckets() {
  bucket_listing out;
  std::string token;
  for (;;) {
    detail::op_spec op;
    op.operation = "ListBuckets";
    op.method = "GET";
    if (!token.empty()) op.query.add("continuation-token", token);
    http::request req;
    http::response res;
    auto e = co_await execute(op, req, res);
    if (e.code) co_return e;
    auto page = parse_list_buckets(res.body);
    if (!page) co_return detail::with_context(page.error(), op);
    ++out.pages;
    if (out.pages == 1) {
      out.owner_id = std::move(page->owner_id);
      out.owner_display_name = std::move(page->owner_display_name);
    }
    for (auto& b : page->buckets) out.buckets.push_back(std::move(b));
    if (page->continuation_token.empty()) break;
    if (page->continuation_token == token)
      co_return detail::with_context(error(errc::malformed_reply, "ListBuckets returned the same continuation token twice"), op);
    token = std::move(page->continuation_token);
  }
  co_return out;
}

FLOE_DECL boost::asio::awaitable<result<copy_result>> client::do_copy(copy_params const& p) {
  std::optional<std::uint64_t> size = p.source_size;
  object_info src;
  // Copy-source conditions: AWS enforces them on the CopyObject itself;
  // moto ignores x-amz-copy-source-if-match and Ceph RGW 16.2 ignores both.
  // Elsewhere floe checks them with the HEAD below and the copy's ETag after.
  bool const self_check =
      (!p.source_if_match.empty() || !p.source_if_none_match.empty()) && !is_aws_endpoint(addressing_);
  if (!size || self_check) {
    // The source's size decides how it is copied. A failed HEAD says little
    // (no body: a missing key and a missing bucket look alike), so anything
    // but a failed condition goes on to CopyObject, whose error says more.
    read_conditions rc{p.source_if_match, p.source_if_none_match};
    auto h = co_await do_head(p.source_bucket, p.source_key, rc);
    if (h && h->not_modified) {
      error e(errc::precondition_failed, "the copy source matches source_if_none_match");
      e.diag.operation = "CopyObject";
      e.diag.resource = p.source_bucket + "/" + p.source_key;
      e.diag.http_status = 304;
      co_return e;
    }
    if (!h && h.error().code == errc::precondition_failed) {
      auto e = h.error();
      e.diag.operation = "CopyObject";
      co_return e;
    }
    if (h) {
      src = std::move(h->info);
      if (!size) size = src.size;
    }
  }
  if (size && *size > std::min(cfg_.multipart_copy_threshold, detail::max_single_put)) {
    // Content type and metadata carried over as CopyObject does (when the
    // HEAD found them); every part pinned to the version the HEAD saw, or
    // to the caller's source_if_match.
    put_params pp;
    pp.content_type = src.content_type;
    pp.metadata = src.metadata;
    std::string const etag = src.etag.empty() ? p.source_if_match : src.etag;
    std::string const no_path;  // a named local: no class temporary in a co_await (GCC 12)
    auto r = co_await do_multipart(p.bucket, p.key, no_path, *size, pp, &p, &etag);
    if (!r) co_return r.error();
    copy_result out;
    out.etag = std::move(r->etag);
    co_return out;
  }
  detail::op_spec op;
  op.operation = "CopyObject";
  op.method = "PUT";
  op.bucket = p.bucket;
  op.key = p.key;
  op.may_200_error = true;
  http::request req;
  req.headers.set("x-amz-copy-source", detail::copy_source(p));
  if (!p.source_if_match.empty()) req.headers.set("x-amz-copy-source-if-match", detail::quoted_etag(p.source_if_match));
  if (!p.source_if_none_match.empty())
    req.headers.set("x-amz-copy-source-if-none-match", detail::quoted_etag(p.source_if_none_match));
  op.conditional_read = !p.source_if_match.empty() || !p.source_if_none_match.empty();
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) co_return e;
  if (res.status == 304) {
    // S3 answers a matching copy-source-if-none-match with 412; a 304 from
    // another store means the same: nothing was copied.
    error nm(errc::precondition_failed, "the copy source matches source_if_none_match (304 Not Modified)");
    nm.diag.http_status = 304;
    co_return detail::with_context(std::move(nm), op);
  }
  auto r = parse_copy_result(res.body);
  if (!r) co_return detail::with_context(r.error(), op);
  if (self_check) {
    // A store that ignores the conditions copied whatever the source was by
    // then: say so if that is a version they exclude. (A multipart ETag may
    // be recomputed by the copy: it is not compared.)
    std::string why;
    auto const got = normalize_etag(r->etag);
    auto const want = normalize_etag(p.source_if_match);
    auto const unwanted = normalize_etag(p.source_if_none_match);
    if (!want.empty() && want.find('-') == std::string_view::npos && got != want)
      why = "source_if_match " + std::string(want);
    else if (!unwanted.empty() && got == unwanted)
      why = "source_if_none_match " + std::string(normalize_etag(p.source_if_none_match));
    if (!why.empty()) {
      error pf(errc::precondition_failed,
               "the copy source was replaced between floe's check and the copy, and this store ignores copy-source "
               "conditions: the destination WAS written, with ETag " + r->etag + ", which " + why + " excludes");
      co_return detail::with_context(std::move(pf), op);
    }
  }
  co_return std::move(*r);
}

FLOE_DECL boost::asio::awaitable<result<void>> client::do_bucket(std::string const& bucket, bool create) {
  detail::op_spec op;
  op.operation = create ? "CreateBucket" : "DeleteBucket";
  op.method = create ? "PUT" : "DELETE";
  op.bucket = bucket;
  if (create) {
    if (auto v = validate_bucket_name(op.bucket, bucket_name_rules::addressable); !v)
      co_return detail::with_context(v.error(), op);
  }
  http::request req;
  std::string body;
  if (create && !addressing_.region.empty() && addressing_.region != "us-east-1") {
    body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>";
    append_xml_escaped(body, addressing_.region);
    body += "</LocationConstraint></CreateBucketConfiguration>";
    req.body = http::body_source::memory(body);
  }
  http::response res;
  auto e = co_await execute(op, req, res);
  if (e.code) co_return e;
  co_return result<void>{};
}

FLOE_DECL result<std::string> client::presign(std::string_view method, std::string_view bucket, std::string_view key,
                                              std::chrono::seconds expires, std::string* warning) {
  if (method != "GET" && method != "PUT" && method != "HEAD" && method != "DELETE")
    return detail::invalid("Presign", std::string(bucket) + "/" + std::string(key),
                           "presign supports GET, PUT, HEAD and DELETE, not " + std::string(method));
  auto region = regions_.lookup(bucket);
  auto tgt = resolve_target(addressing_, bucket, key, region.value_or(std::string{}));
  if (!tgt) return tgt.error();
  auto got = provider_->get();
  if (!got) return got.error();
  auto const t = now();
  if (warning && got->expiry) {
    auto const until = std::chrono::time_point_cast<std::chrono::seconds>(t) + expires;
    if (until > *got->expiry) {
      *warning = "the URL outlives the temporary credentials that sign it (they expire at " +
                 credentials::format_iso8601(*got->expiry) + "); it stops working then";
    }
  }
  std::array<sigv4::header_view, 1> headers{{{"host", tgt->host_header}}};
  sigv4::request_view v;
  v.method = method;
  v.path = tgt->path;
  v.headers = headers;
  v.payload_hash = sigv4::unsigned_payload;
  sigv4::credentials_view cv{got->access_key_id, got->secret_access_key.reveal(), got->session_token.reveal()};
  sigv4::presigned_query q;
  auto params = sigv4::signing_params::s3(tgt->region);
  auto r = signer_.presign(v, cv, params, t, expires, q);
  if (!r) return r.error();
  return tgt->url(q.query);
}

}  // namespace floe::s3
