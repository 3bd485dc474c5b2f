#pragma once
#include <floe/service/protocol.hpp>

#include <floe/errors/json_error.hpp>

namespace floe::service {

FLOE_DECL std::string_view request_id_of(protocol p, http::fields const& headers) noexcept {
  if (p == protocol::rest_xml) return headers.get("x-amz-request-id");
  auto id = headers.get("x-amzn-RequestId");
  return id.empty() ? headers.get("x-amz-request-id") : id;
}

FLOE_DECL errors::reply_report decode_reply(protocol p, errors::reply_facts const& facts, http::fields const& headers,
                                            std::string_view body, errors::reply_ids ids, bool may_200_error) {
  if (ids.request_id.empty()) ids.request_id = request_id_of(p, headers);
  if (p == protocol::rest_xml && ids.host_id.empty()) ids.host_id = headers.get("x-amz-id-2");
  bool const ok_status = facts.status / 100 == 2;
  switch (p) {
    case protocol::rest_xml:
    case protocol::query:
      // A 2xx body is the operation's payload unless the operation may
      // answer 200 with an <Error> (S3's CompleteMultipartUpload, CopyObject).
      return errors::describe_reply(facts, ok_status && !may_200_error ? std::string_view() : body, ids);
    case protocol::json: {
      errors::json_error_headers h;
      h.request_id = headers.get("x-amzn-RequestId");
      h.query_error = headers.get("x-amzn-query-error");
      h.error_type = headers.get("X-Amzn-Errortype");
      return errors::describe_json_reply(facts, body, h, ids);
    }
    case protocol::plain:
      break;
  }
  return errors::describe_reply(facts, std::string_view(), ids);
}

FLOE_DECL errors::kind classify_reply(protocol p, errors::reply_facts const& facts, http::fields const& headers,
                                      std::string_view body, bool may_200_error) {
  if (facts.status / 100 == 2 && !may_200_error) return errors::kind::success;
  if (facts.status == 304 && facts.is_conditional_read) return errors::kind::success;
  errors::reply_ids none;
  return decode_reply(p, facts, headers, body, none, may_200_error).what.outcome;
}

}  // namespace floe::service
