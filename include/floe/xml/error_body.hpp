#pragma once
// Error bodies of S3, STS and SQS replies.
//
// Accepted shapes (namespaces ignored, leading whitespace skipped):
//   S3:       <Error><Code/><Message/><RequestId/><HostId/><Resource/>
//               <BucketName/><Key/><Condition/>...</Error>
//   STS/SQS:  <ErrorResponse><Error><Type/><Code/><Message/>...</Error>
//               <RequestId/></ErrorResponse>
//   EC2-style:<Response><Errors><Error><Code/><Message/></Error></Errors>
//               <RequestID/></Response>
// A multipart or copy reply can be a 200 whose body is an <Error>: callers
// parse it the same way.

#include <floe/config.hpp>
#include <floe/result.hpp>
#include <floe/xml/document.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::xml {

/// The fields of a service error body. Missing fields are empty; known
/// fields have surrounding whitespace trimmed.
struct error_body {
  std::string code;         // e.g. "NoSuchKey"
  std::string message;
  std::string request_id;
  std::string host_id;
  std::string resource;
  std::string bucket_name;
  std::string key;
  std::string condition;    // the failed precondition header (moto, MinIO)
  std::string type;         // "Sender" / "Receiver" (ErrorResponse only)
  /// Every other child of <Error> (and of <ErrorResponse>), as (local name,
  /// text), in document order. Values that may carry secrets, session
  /// tokens or signatures (SignatureProvided, CanonicalRequest, anything
  /// named *Token* or *Secret*...) are replaced by "(redacted)".
  std::vector<std::pair<std::string, std::string>> other;

  /// The text of the first `other` entry with that name, or empty.
  FLOE_DECL std::string_view find(std::string_view name) const noexcept;
};

/// Parses an error body. Errors (never a throw, never a crash):
/// those of xml::parse (too large, DOCTYPE, too deep, malformed), and
/// errc::malformed_reply when the document is not an error document (its
/// root is not Error / ErrorResponse / Response) or has no Code.
FLOE_DECL result<error_body> parse_error_body(std::string_view bytes, limits const& lim = {});

/// The same, for a document already parsed (e.g. a 200 reply that turned
/// out to be an <Error>).
FLOE_DECL result<error_body> read_error_body(element root);

/// Whether a parsed document is an error document (by its root's name).
FLOE_DECL bool is_error_document(element root) noexcept;

}  // namespace floe::xml

#if defined(FLOE_HEADER_ONLY)
#include <floe/xml/impl/error_body.ipp>
#endif
