#pragma once
// How each protocol's error replies are read, and a reply classified:
// pure functions the request driver calls after an attempt.
//
//   rest_xml  S3: an <Error> body (also inside a 200 for the operations that
//             may carry one), x-amz-request-id and x-amz-id-2.
//   query     STS (and SQS's old protocol): <ErrorResponse><Error>,
//             x-amzn-RequestId.
//   json      SQS and the other JSON-protocol services: "__type" with its
//             "namespace#" prefix stripped, "message" or "Message", the
//             x-amzn-query-error header's legacy code; x-amzn-RequestId
//             (errors/json_error.hpp).
//   plain     a credential endpoint (IMDS, container credentials): no error
//             document; the status alone says what a reply means.

#include <floe/config.hpp>
#include <floe/errors/classify.hpp>
#include <floe/errors/reply_error.hpp>
#include <floe/http/fields.hpp>

#include <cstdint>
#include <string_view>

namespace floe::service {

enum class protocol : std::uint8_t { rest_xml, query, json, plain };

/// The request id a reply's headers carry under the protocol's name for it
/// (x-amz-request-id for rest_xml, x-amzn-RequestId otherwise).
FLOE_DECL std::string_view request_id_of(protocol p, http::fields const& headers) noexcept;

/// Reads the reply's error by the protocol's rules, classifies it (with
/// `facts`, whose code is taken from the body) and builds the error with
/// its diagnostics: operation, resource, status, code, message, request id,
/// host id (rest_xml), attempts. `ids.request_id` and `ids.host_id`, when
/// empty, are read from the headers. A 2xx is read only where the
/// protocol lets a 2xx carry an error (rest_xml, `may_200_error`). Never
/// throws (except std::bad_alloc).
FLOE_DECL errors::reply_report decode_reply(protocol p, errors::reply_facts const& facts,
                                            http::fields const& headers, std::string_view body,
                                            errors::reply_ids ids, bool may_200_error = false);

/// What a whole reply means, decoding its body only when needed: a 2xx (not
/// `may_200_error`) and a 304 to a conditional read are success without
/// reading anything.
FLOE_DECL errors::kind classify_reply(protocol p, errors::reply_facts const& facts, http::fields const& headers,
                                      std::string_view body, bool may_200_error = false);

}  // namespace floe::service

#if defined(FLOE_HEADER_ONLY)
#include <floe/service/impl/protocol.ipp>
#endif
