// Conditional writes: outcomes, write ids, ambiguous replies resolved.

#include "conditional_write.hpp"

#include "op_trace.hpp"
#include "output.hpp"

#include <random>
#include <variant>

namespace floe::cli {

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

std::string new_write_id() {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 20; ++i) id += alphabet[rd() % 36];
  return id;
}

boost::asio::awaitable<result<s3::put_result>> resolve_ambiguous(context& x, std::string const& bucket,
                                                                 std::string const& key, std::string const& write_id,
                                                                 std::string const& if_match, error const& ambiguous) {
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

}  // namespace floe::cli
