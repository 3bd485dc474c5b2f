#pragma once
#include <floe/errors/classify.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/s3/conditional.hpp>
#include <floe/http/restartable_body.hpp>

#include <floe/retry/policy.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace floe::s3 {

FLOE_DECL std::string_view to_string(write_outcome_kind k) noexcept {
  switch (k) {
    case write_outcome_kind::written: return "written";
    case write_outcome_kind::precondition_failed: return "precondition_failed";
    case write_outcome_kind::conflict: return "conflict";
    case write_outcome_kind::unknown_outcome: return "unknown_outcome";
    case write_outcome_kind::error: return "error";
  }
  return "?";
}

FLOE_DECL write_outcome_kind kind_of(write_outcome const& o) noexcept {
  switch (o.index()) {
    case 0: return write_outcome_kind::written;
    case 1: return write_outcome_kind::precondition_failed;
    case 2: return write_outcome_kind::conflict;
    default: return write_outcome_kind::unknown_outcome;
  }
}

namespace detail {

inline write_outcome_kind kind_from(errors::kind k) noexcept {
  switch (k) {
    case errors::kind::success: return write_outcome_kind::written;
    case errors::kind::precondition_failed: return write_outcome_kind::precondition_failed;
    case errors::kind::conflict: return write_outcome_kind::conflict;
    case errors::kind::unknown_outcome: return write_outcome_kind::unknown_outcome;
    default: return write_outcome_kind::error;
  }
}

inline std::string unsupported_message(std::string_view feature, diagnostics const& d) {
  std::string m = "this store does not support ";
  m += feature.empty() ? std::string_view("this conditional write") : feature;
  m += " (";
  m += std::to_string(d.http_status);
  if (!d.code.empty()) {
    m += ' ';
    m += d.code;
  }
  m += ")";
  if (!d.message.empty()) {
    m += ": ";
    m += d.message;
  }
  return m;
}

}  // namespace detail

FLOE_DECL write_outcome_kind classify_conditional_write(unsigned status, std::string_view code, bool if_match) noexcept {
  errors::reply_facts f;
  f.status = status;
  f.code = code;
  f.method = "PUT";
  f.is_conditional_write = true;
  f.if_match = if_match;
  return detail::kind_from(errors::classify(f).outcome);
}

FLOE_DECL result<write_outcome> outcome_of_error(error const& e, std::string_view feature) {
  auto const& d = e.diag;
  if (e.code == errc::precondition_failed) return write_outcome{precondition_failed{d.http_status, d.code, d.message}};
  if (e.code == errc::conflict) return write_outcome{conflict{d.http_status, d.code, d.message}};
  if (e.code == errc::unknown_outcome) return write_outcome{unknown_outcome{d.http_status, d.code, d.message}};
  if (e.code == errc::unsupported) {
    error u = e;
    u.diag.message = detail::unsupported_message(feature, d);
    return u;
  }
  return e;
}

FLOE_DECL result<write_outcome> outcome_of_reply(unsigned status, std::string_view body, bool if_match,
                                                 std::string_view feature, std::string_view etag,
                                                 std::string_view version_id) {
  errors::reply_facts f;
  f.status = status;
  f.method = "PUT";
  f.is_conditional_write = true;
  f.if_match = if_match;
  auto report = errors::describe_reply(f, body, {});
  if (report.what.outcome == errors::kind::success)
    return write_outcome{written{std::string(normalize_etag(etag)), std::string(version_id)}};
  if (!report.err.code) report.err.code = errc::service_error;
  return outcome_of_error(report.err, feature);
}

FLOE_DECL ambiguous_put_verdict judge_ambiguous_put(std::optional<object_info> const& head, std::string_view write_id,
                                                    std::string_view if_match) {
  using what = ambiguous_put_verdict::what;
  ambiguous_put_verdict v;
  if (!head) return v;  // absent
  v.etag = head->etag;
  v.version_id = head->version_id;
  for (auto const& [n, val] : head->metadata)
    if (n == write_id_metadata_name) v.there_id = val;
  if (!write_id.empty() && v.there_id == write_id) v.verdict = what::landed;
  else if (!if_match.empty() && same_etag(head->etag, if_match)) v.verdict = what::base_unchanged;
  else v.verdict = what::other_version;
  return v;
}

FLOE_DECL bool undecided(ambiguous_put_verdict const& v) noexcept {
  return v.verdict == ambiguous_put_verdict::what::other_version && v.there_id.empty();
}

FLOE_DECL bool same_etag(std::string_view a, std::string_view b) noexcept {
  auto const na = normalize_etag(a);
  auto const nb = normalize_etag(b);
  return !na.empty() && na == nb;
}

FLOE_DECL std::string endpoint_key(client const& c) {
  auto const& a = c.addressing();
  if (a.custom_endpoint) {
    auto const& e = *a.custom_endpoint;
    return e.scheme + "://" + e.authority() + e.base_path;
  }
  return "aws:" + a.region;
}

namespace detail {

// What a 412 on an If-Match write may be: the store refusing the quoting of
// an ETag the object does have (Ceph RGW 16.2). A HeadObject tells.
inline bool quoting_refused(result<write_outcome> const& o) {
  if (!o) return false;
  auto const* pf = std::get_if<precondition_failed>(&*o);
  return pf != nullptr && pf->status == 412;
}

FLOE_DECL boost::asio::awaitable<result<write_outcome>> put_conditional(client& c, std::string const& bucket,
                                                                       std::string const& key,
                                                                       http::body_source const& body,
                                                                       put_params const& p, write_quirks& quirks) {
  namespace asio = boost::asio;
  bool const has_match = !p.if_match.empty();
  bool const has_none = !p.if_none_match.empty();
  if (has_match == has_none) {
    error e(errc::invalid_argument, has_match ? "a conditional PutObject takes If-Match or If-None-Match, not both"
                                              : "a conditional PutObject needs if_match or if_none_match = \"*\"");
    e.diag.operation = "PutObject";
    e.diag.resource = bucket + "/" + key;
    co_return e;
  }
  std::string_view const feature = has_match ? "conditional PutObject (If-Match)" : "conditional PutObject (If-None-Match: *)";
  if (body.size() > c.config().max_single_put) {
    // Too large for one PUT: a whole file goes as async_upload_file sends
    // it, which puts the condition on CompleteMultipartUpload where the
    // store honours it there and refuses the upload everywhere else.
    if (body.type() == http::body_source::kind::file && body.offset() == 0) {
      auto r = co_await c.async_upload_file(bucket, key, body.path(), p, asio::use_awaitable);
      if (r) co_return write_outcome{written{r->etag, r->version_id}};
      co_return outcome_of_error(r.error(), feature);
    }
    error e(errc::invalid_argument, "a conditional PutObject of " + std::to_string(body.size()) +
                                        " bytes is larger than one PUT takes (" +
                                        std::to_string(c.config().max_single_put) +
                                        "); only a whole file can go in parts");
    e.diag.operation = "PutObject";
    e.diag.resource = bucket + "/" + key;
    co_return e;
  }
  put_params pp = p;
  std::string ep;
  bool unquoted = false;
  if (has_match) {
    ep = endpoint_key(c);
    unquoted = quirks.unquoted_if_match(ep);
    pp.if_match_unquoted = unquoted;
  }
  http::body_source b1 = body;
  auto r = co_await c.async_put_object(bucket, key, b1, pp, asio::use_awaitable);
  result<write_outcome> out = r ? result<write_outcome>(write_outcome{written{r->etag, r->version_id}})
                                : outcome_of_error(r.error(), feature);
  if (!has_match || !quoting_refused(out) || !http::can_replay(body)) co_return out;

  auto head = co_await c.async_head_object(bucket, key, asio::use_awaitable);
  if (!head || !same_etag(head->info.etag, p.if_match)) co_return out;  // a real lost race
  // The object has that very ETag: the store refused its quoting.
  if (unquoted) quirks.set_unquoted_if_match(ep, false);
  pp.if_match_unquoted = !unquoted;
  http::body_source b2 = body;
  auto r2 = co_await c.async_put_object(bucket, key, b2, pp, asio::use_awaitable);
  if (r2) {
    if (!unquoted) quirks.set_unquoted_if_match(ep, true);
    co_return write_outcome{written{r2->etag, r2->version_id}};
  }
  co_return outcome_of_error(r2.error(), feature);
}

FLOE_DECL boost::asio::awaitable<result<write_outcome>> delete_if_match(client& c, std::string const& bucket,
                                                                       std::string const& key, std::string const& etag,
                                                                       write_quirks& quirks) {
  namespace asio = boost::asio;
  std::string_view const feature = "conditional DeleteObject (If-Match)";
  if (normalize_etag(etag).empty()) {
    error e(errc::invalid_argument, "a conditional DeleteObject needs an ETag");
    e.diag.operation = "DeleteObject";
    e.diag.resource = bucket + "/" + key;
    co_return e;
  }
  std::string const ep = endpoint_key(c);
  auto honoured = quirks.honours_delete_if_match(ep);
  if (!honoured) {
    delete_params probe;
    probe.if_match = "0f1e2d3c4b5a69788796a5b4c3d2e1f0";
    std::string const probe_key(delete_probe_key);
    auto pr = co_await c.async_delete_object(bucket, probe_key, probe, asio::use_awaitable);
    if (pr) {
      honoured = false;
    } else if (pr.error().code == errc::precondition_failed || pr.error().code == errc::not_found) {
      honoured = true;
    } else {
      error e = pr.error();
      e.diag.message = "probing whether the store honours If-Match on DeleteObject: " + e.diag.message;
      co_return e;
    }
    quirks.set_honours_delete_if_match(ep, *honoured);
  }
  if (!*honoured) {
    error e(errc::unsupported, std::string("this store does not support ") + std::string(feature) +
                                   ": it ignores the condition and deletes regardless (a probe DeleteObject with a "
                                   "made-up If-Match on a missing key succeeded); not deleting unconditionally");
    e.diag.operation = "DeleteObject";
    e.diag.resource = bucket + "/" + key;
    co_return e;
  }
  bool const unquoted = quirks.unquoted_if_match(ep);
  delete_params dp;
  dp.if_match = etag;
  dp.if_match_unquoted = unquoted;
  auto r = co_await c.async_delete_object(bucket, key, dp, asio::use_awaitable);
  result<write_outcome> out = r ? result<write_outcome>(write_outcome{written{}}) : outcome_of_error(r.error(), feature);
  if (!quoting_refused(out)) co_return out;

  auto head = co_await c.async_head_object(bucket, key, asio::use_awaitable);
  if (!head || !same_etag(head->info.etag, etag)) co_return out;
  if (unquoted) quirks.set_unquoted_if_match(ep, false);
  dp.if_match_unquoted = !unquoted;
  auto r2 = co_await c.async_delete_object(bucket, key, dp, asio::use_awaitable);
  if (r2) {
    if (!unquoted) quirks.set_unquoted_if_match(ep, true);
    co_return write_outcome{written{}};
  }
  co_return outcome_of_error(r2.error(), feature);
}

FLOE_DECL boost::asio::awaitable<result<resolved_put>> resolve_ambiguous_put(client& c, std::string const& bucket,
                                                                            std::string const& key,
                                                                            std::string const& write_id,
                                                                            std::string const& if_match,
                                                                            resolve_params const& p) {
  namespace asio = boost::asio;
  resolved_put out;
  for (unsigned look = 0;; ++look) {
    auto h = co_await c.async_head_object(bucket, key, asio::use_awaitable);
    ++out.heads;
    if (!h && h.error().code != errc::not_found) co_return h.error();
    std::optional<object_info> head;
    if (h) head = std::move(h->info);
    out.verdict = judge_ambiguous_put(head, write_id, if_match);
    if (!undecided(out.verdict) || look >= p.undecided_rereads) co_return out;
    retry::standard_params bp;
    bp.base_delay = p.backoff_base;
    bp.max_backoff = p.backoff_max;
    asio::steady_timer t(c.get_executor(), retry::backoff(bp, look, 1.0));
    auto [ec] = co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) {
      error e(ec);
      e.diag.operation = "HeadObject";
      e.diag.resource = bucket + "/" + key;
      e.diag.message = "cancelled while resolving an ambiguous reply";
      co_return e;
    }
  }
}

}  // namespace detail

}  // namespace floe::s3
