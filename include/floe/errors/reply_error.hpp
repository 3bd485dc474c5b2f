#pragma once
// From a received (or lost) reply to a classified floe::error with its
// diagnostics filled in: the glue the service layers call after a request.
//
//   errors::reply_facts facts{.status = 412, .method = "PUT", .if_match = true, ...};
//   auto r = errors::describe_reply(facts, body, {.request_id = hdr_request_id,
//                                                 .host_id = hdr_id2,
//                                                 .operation = "PutObject",
//                                                 .resource = "bucket/key"});
//   switch (r.what.outcome) { case errors::kind::precondition_failed: ... }
//   return r.err;   // code errc::precondition_failed, diag "PutObject bucket/key: 412 ..."
//
// Only XML bodies are read here (S3, STS, SQS query protocol). Replies of
// the JSON protocols (SQS) go through describe_json_reply
// (errors/json_error.hpp), which gives the same reply_report.

#include <floe/config.hpp>
#include <floe/error.hpp>
#include <floe/errors/classify.hpp>
#include <floe/xml/error_body.hpp>

#include <optional>
#include <string_view>

namespace floe::errors {

/// What identifies a reply beyond its body, for the diagnostics.
struct reply_ids {
  std::string_view request_id{};  // x-amz-request-id / x-amzn-RequestId header
  std::string_view host_id{};     // x-amz-id-2 header
  std::string_view operation{};   // e.g. "PutObject"
  std::string_view resource{};    // e.g. "bucket/key"; the body's <Resource> otherwise
  unsigned attempt = 0;
};

/// The outcome of describe_reply.
struct reply_report {
  classification what;
  /// errc from to_errc(what.outcome) (errc::ok for success) and diagnostics:
  /// status, code, message, request id, host id, resource, operation,
  /// attempt. For a body that could not be read, the message says why.
  floe::error err;
  /// The parsed body, when there was one and it was an error document.
  std::optional<xml::error_body> body;
};

/// Builds the floe::error for a classified reply. Text from the server is
/// made safe for a log line (control characters replaced, length capped).
FLOE_DECL floe::error make_error(classification const& c, unsigned status, xml::error_body const* body,
                                 reply_ids const& ids);

/// Parses `body` when it is not empty (facts.code is then taken from it,
/// overriding any code the caller set), classifies, and builds the error.
/// A 2xx body counts only when it is an error document (a 200 carrying
/// <Error>); any other 2xx payload is ignored and the reply is a success.
/// Never throws (except std::bad_alloc).
FLOE_DECL reply_report describe_reply(reply_facts facts, std::string_view body, reply_ids const& ids,
                                      xml::limits const& lim = {});

}  // namespace floe::errors

#if defined(FLOE_HEADER_ONLY)
#include <floe/errors/impl/reply_error.ipp>
#endif
