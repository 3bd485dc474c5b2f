#pragma once
// Conditional writes as typed outcomes, the same on every store.
//
// A conditional PutObject (If-Match: <etag>, or If-None-Match: * for
// create-only) or DeleteObject (If-Match) ends in exactly one of:
//
//   written              the store took it (etag, version id of the result)
//   precondition_failed  412, or 404 NoSuchKey on an If-Match write: the
//                        object is not the version named; re-read it
//   conflict             409 of any code (AWS ConditionalRequestConflict,
//                        Ceph ConcurrentModification, an HTML 409 from a
//                        gateway): nothing was written; a retry after
//                        back-off may succeed
//   unknown_outcome      the reply was lost or cut off, or a 5xx came back
//                        (Ceph 16.2 answers a lost race with 500
//                        UnknownError): it may or may not have landed. Only
//                        a re-read can tell (see s3/update.hpp)
//
// or an error: errc::unsupported for 501 NotImplemented (the message names
// the feature the store lacks), and everything else as the client reports
// it (denied, not_found for a missing bucket, ...). The HTTP layer never
// retries a conditional write by itself, and neither does this layer except
// in the one case below where the store provably did not write.
//
// Ceph RGW 16.2 answers a PUT/DELETE whose If-Match carries the right ETag
// *quoted* (as RFC 7232 and AWS want it) with 412, and accepts it unquoted.
// So when an If-Match write fails with 412 and a HeadObject shows the object
// still has exactly that ETag, the write is sent once more with the other
// quoting; when the unquoted form then succeeds, "unquoted If-Match on
// writes" is remembered for that endpoint (write_quirks), and forgotten as
// soon as an unquoted write fails the same way. A 412 is a definite "not
// written", so sending again is exact. Reads (GET/HEAD conditions) are never
// changed by it.
//
// A conditional write too large for one PUT (client_config::max_single_put,
// 5 GiB) puts its condition on CompleteMultipartUpload on AWS's own
// endpoints, and is refused with errc::unsupported, before anything is sent,
// everywhere else (moto and Ceph RGW 16.2 ignore a condition there):
// plan_conditional_upload. A condition is never silently dropped.
//
// ETags are compared after normalisation (quotes, a W/ prefix): same_etag.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/result.hpp>
#include <floe/s3/client.hpp>
#include <floe/s3/replies.hpp>
#include <floe/s3/store_support.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace floe::s3 {

/// The store took the write.
struct written {
  std::string etag;        // normalised; empty for a delete
  std::string version_id;  // empty when the bucket is not versioned
};

/// 412 (or 404 NoSuchKey on an If-Match write): the object is not the
/// version the condition named. Nothing was written.
struct precondition_failed {
  unsigned status = 0;
  std::string code;     // "PreconditionFailed", "NoSuchKey", or empty (no body)
  std::string message;  // the store's message (may be empty)
};

/// 409: a concurrent write was in progress; nothing was written.
struct conflict {
  unsigned status = 0;
  std::string code;  // "ConditionalRequestConflict", "ConcurrentModification", ...
  std::string message;
};

/// The write may or may not have landed: reply lost or cut (status 0) or a 5xx.
struct unknown_outcome {
  unsigned status = 0;  // 0: no (complete) reply
  std::string code;
  std::string message;  // the store's message, or why the reply was lost
};

using write_outcome = std::variant<written, precondition_failed, conflict, unknown_outcome>;

enum class write_outcome_kind { written, precondition_failed, conflict, unknown_outcome, error };

FLOE_DECL std::string_view to_string(write_outcome_kind k) noexcept;

/// The kind of a write_outcome.
FLOE_DECL write_outcome_kind kind_of(write_outcome const& o) noexcept;

/// Pure: what a reply to a conditional write means, from its status and the
/// store's error code (status 0: no reply, or one cut off). `if_match`: the
/// write carried If-Match (a 404 NoSuchKey is then a failed precondition).
/// 501 and any status that is none of the four outcomes are `error`.
FLOE_DECL write_outcome_kind classify_conditional_write(unsigned status, std::string_view code, bool if_match) noexcept;

/// Pure: a raw reply (status and body as received) to a conditional write,
/// as an outcome or an error. `etag` / `version_id` are the reply's headers
/// (used for a 2xx). `feature` names the write for an unsupported error,
/// e.g. "conditional PutObject (If-Match)".
FLOE_DECL result<write_outcome> outcome_of_reply(unsigned status, std::string_view body, bool if_match,
                                                 std::string_view feature, std::string_view etag = {},
                                                 std::string_view version_id = {});

/// Pure: a client failure as an outcome (precondition_failed, conflict,
/// unknown_outcome) or an error. errc::unsupported gets a message naming
/// `feature`; every other error is passed through unchanged.
FLOE_DECL result<write_outcome> outcome_of_error(error const& e, std::string_view feature);

/// Pure: the two ETags name the same version (after normalisation: quotes,
/// W/ prefix). Two empty ETags are not the same version.
FLOE_DECL bool same_etag(std::string_view a, std::string_view b) noexcept;

/// The user-metadata name (x-amz-meta-floe-write-id) under which a
/// conditional put may carry a write id of its own, so that an ambiguous
/// reply can be resolved by looking at what the key holds.
inline constexpr std::string_view write_id_metadata_name = "floe-write-id";

/// What a HeadObject after an ambiguous reply to a conditional put that
/// carried `write_id` says about that put.
struct ambiguous_put_verdict {
  enum class what : std::uint8_t {
    landed,          // the key holds this write (its write id is there)
    absent,          // no object: this write did not land
    base_unchanged,  // the object still has the If-Match ETag: this write did not land
    other_version,   // another version is there: this write is not the current one
  };
  what verdict = what::absent;
  std::string etag;        // of what the key holds (empty when absent)
  std::string version_id;
  std::string there_id;    // the write id found there (empty: none)
};

/// Pure: the verdict from the key's HeadObject (`head`: nullopt when the
/// key does not exist), the write id the put carried and its If-Match
/// (empty for If-None-Match: *).
FLOE_DECL ambiguous_put_verdict judge_ambiguous_put(std::optional<object_info> const& head, std::string_view write_id,
                                                    std::string_view if_match);

/// Pure: the verdict cannot tell yet: another version is there and it
/// carries no write id, which is also what a store that shows a new version
/// before its metadata (moto does, for a moment) shows of this very write.
/// Worth reading again before answering.
FLOE_DECL bool undecided(ambiguous_put_verdict const& v) noexcept;

/// How many times an undecided look is repeated (after base x 2^n
/// back-off) before its answer stands; shared by the ambiguous-put
/// resolution below and update_config::undecided_rereads.
inline constexpr unsigned default_undecided_rereads = 3;

struct resolve_params {
  unsigned undecided_rereads = default_undecided_rereads;
  std::chrono::milliseconds backoff_base{10};
  std::chrono::milliseconds backoff_max{1000};
};

/// What async_resolve_ambiguous_put found.
struct resolved_put {
  ambiguous_put_verdict verdict;
  unsigned heads = 0;  // HeadObject requests made
};

/// What floe has learned about stores, per endpoint (session/quirks.hpp):
/// held by the client's session, shared by every client made from it.
using write_quirks = floe::store_quirks;

/// The key a client's endpoint is remembered under: "scheme://authority/base"
/// for a custom endpoint, "aws:<region>" otherwise.
FLOE_DECL std::string endpoint_key(client const& c);

/// The key the conditional-delete probe names (never written).
inline constexpr std::string_view delete_probe_key = ".floe/conditional-delete-probe";

namespace detail {
FLOE_DECL boost::asio::awaitable<result<write_outcome>> put_conditional(client& c, std::string const& bucket,
                                                                       std::string const& key,
                                                                       http::body_source const& body,
                                                                       put_params const& p, write_quirks& quirks);
FLOE_DECL boost::asio::awaitable<result<write_outcome>> delete_if_match(client& c, std::string const& bucket,
                                                                       std::string const& key, std::string const& etag,
                                                                       write_quirks& quirks);
FLOE_DECL boost::asio::awaitable<result<resolved_put>> resolve_ambiguous_put(client& c, std::string const& bucket,
                                                                            std::string const& key,
                                                                            std::string const& write_id,
                                                                            std::string const& if_match,
                                                                            resolve_params const& p);
}  // namespace detail

/// After an ambiguous reply (unknown_outcome) to a conditional put that
/// carried `write_id` (metadata write_id_metadata_name) and `if_match`
/// (empty for If-None-Match: *): HeadObject the key and judge
/// (judge_ambiguous_put); while undecided(), look again up to
/// p.undecided_rereads times, with back-off. Completes with
/// result<resolved_put>: the last verdict, or the HeadObject's error (other
/// than not_found, which is the verdict `absent`): the outcome then stays
/// unknown. Cancellation: terminal, through the token's slot. Lifetimes: `c`
/// must outlive the operation; the rest is copied.
template <class Token = boost::asio::deferred_t>
auto async_resolve_ambiguous_put(client& c, std::string_view bucket, std::string_view key, std::string_view write_id,
                                 std::string_view if_match, resolve_params p, Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(result<resolved_put>)>(
      [&c](auto handler, std::string b, std::string k, std::string w, std::string m, resolve_params pp) {
        http::detail::spawn<void(result<resolved_put>)>(
            c.get_executor(),
            [&c, b = std::move(b), k = std::move(k), w = std::move(w), m = std::move(m), pp]() {
              return detail::resolve_ambiguous_put(c, b, k, w, m, pp);
            },
            std::move(handler));
      },
      token, std::string(bucket), std::string(key), std::string(write_id), std::string(if_match), p);
}

/// As above, with the default resolve_params.
template <class Token = boost::asio::deferred_t>
  requires(!std::is_convertible_v<Token, resolve_params>)
auto async_resolve_ambiguous_put(client& c, std::string_view bucket, std::string_view key, std::string_view write_id,
                                 std::string_view if_match, Token&& token = {}) {
  resolve_params const p;
  return async_resolve_ambiguous_put(c, bucket, key, write_id, if_match, p, std::forward<Token>(token));
}

/// A conditional PutObject. `p` must carry exactly one condition: if_match
/// (an ETag, quoted or not) or if_none_match = "*" (create only); without one
/// the call fails with errc::invalid_argument (a condition is never silently
/// missing). Completes with result<write_outcome>: the outcome, or an error
/// (unsupported for a 501, naming the feature; denied, ...). A body larger
/// than client_config::max_single_put that is a whole file goes as
/// async_upload_file sends it (plan_conditional_upload: the condition on
/// CompleteMultipartUpload on AWS, errc::unsupported elsewhere, before
/// anything is sent); any other body that large is errc::invalid_argument.
/// `body` must be replayable (memory or file) and its bytes must outlive the
/// operation. Cancellation: terminal, through the token's slot. Lifetimes:
/// `c` must outlive the operation; other arguments are copied.
template <class Token = boost::asio::deferred_t>
auto async_put_conditional(client& c, std::string_view bucket, std::string_view key, http::body_source body,
                           put_params p, Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(result<write_outcome>)>(
      [&c](auto handler, std::string b, std::string k, http::body_source bd, put_params pp) {
        http::detail::spawn<void(result<write_outcome>)>(
            c.get_executor(),
            [&c, b = std::move(b), k = std::move(k), bd = std::move(bd), pp = std::move(pp)]() {
              return detail::put_conditional(c, b, k, bd, pp, c.quirks());
            },
            std::move(handler));
      },
      token, std::string(bucket), std::string(key), std::move(body), std::move(p));
}

/// DeleteObject with If-Match: `etag` (quoted or not). Completes with
/// result<write_outcome> (written with an empty etag when deleted).
/// Some stores ignore If-Match on DeleteObject and delete regardless (Ceph
/// RGW 16.2). So the first conditional delete on an endpoint probes it: a
/// DeleteObject with a made-up If-Match on the key `delete_probe_key` of the
/// same bucket, which does not exist. A store that honours the condition
/// answers 412 or 404; one that answers 2xx ignores it, and every
/// conditional delete there fails with errc::unsupported instead of
/// deleting unconditionally. (On a versioned bucket of such a store the
/// probe leaves a delete marker on that key.) The answer is remembered per
/// endpoint (write_quirks).
/// Cancellation and lifetimes as async_put_conditional.
template <class Token = boost::asio::deferred_t>
auto async_delete_if_match(client& c, std::string_view bucket, std::string_view key, std::string_view etag,
                           Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(result<write_outcome>)>(
      [&c](auto handler, std::string b, std::string k, std::string e) {
        http::detail::spawn<void(result<write_outcome>)>(
            c.get_executor(),
            [&c, b = std::move(b), k = std::move(k), e = std::move(e)]() {
              return detail::delete_if_match(c, b, k, e, c.quirks());
            },
            std::move(handler));
      },
      token, std::string(bucket), std::string(key), std::string(etag));
}

}  // namespace floe::s3

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/impl/conditional.ipp>
#endif
