#pragma once
#include <floe/xml/error_body.hpp>
#include <floe/xml/impl/document.ipp>  // detail helpers

namespace floe::xml {

namespace detail {

inline bool icontains(std::string_view hay, std::string_view needle) noexcept {
  if (needle.size() > hay.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (ascii_iequal(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

// Children whose value could hand a secret to a log: S3's
// SignatureDoesNotMatch body echoes the signature and the canonical request
// (which holds x-amz-security-token).
FLOE_DECL bool is_sensitive_field(std::string_view name) noexcept {
  for (std::string_view w : {"signature", "token", "secret", "canonicalrequest", "credential", "password"}) {
    if (icontains(name, w)) return true;
  }
  return false;
}

// Stores a child of <Error> in its field; false when the name is not one
// of the known fields.
FLOE_DECL bool store_known(error_body& b, std::string_view name, element e) {
  std::string* f = nullptr;
  if (name == "Code") f = &b.code;
  else if (name == "Message") f = &b.message;
  else if (name == "RequestId" || name == "RequestID") f = &b.request_id;
  else if (name == "HostId") f = &b.host_id;
  else if (name == "Resource") f = &b.resource;
  else if (name == "BucketName") f = &b.bucket_name;
  else if (name == "Key") f = &b.key;
  else if (name == "Condition") f = &b.condition;
  else if (name == "Type") f = &b.type;
  if (f == nullptr) return false;
  if (f->empty()) {  // the first occurrence wins
    *f = e.text();
    // Pretty-printed bodies may pad a value; a code must compare exactly.
    auto const first = f->find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
      f->clear();
    } else {
      f->erase(f->find_last_not_of(" \t\r\n") + 1);
      f->erase(0, first);
    }
  }
  return true;
}

FLOE_DECL void store_other(error_body& b, std::string_view name, element e) {
  b.other.emplace_back(std::string(name), is_sensitive_field(name) ? std::string("(redacted)") : e.text());
}

FLOE_DECL void read_error_children(error_body& b, element err) {
  for (auto c : err.children()) {
    auto n = c.name();
    if (!store_known(b, n, c)) store_other(b, n, c);
  }
}

}  // namespace detail

FLOE_DECL std::string_view error_body::find(std::string_view name) const noexcept {
  for (auto const& [n, v] : other) {
    if (n == name) return v;
  }
  return {};
}

FLOE_DECL bool is_error_document(element root) noexcept {
  auto n = root.name();
  return n == "Error" || n == "ErrorResponse" || (n == "Response" && root.child("Errors").child("Error"));
}

FLOE_DECL result<error_body> read_error_body(element root) {
  error_body b;
  auto const n = root.name();
  if (n == "Error") {
    detail::read_error_children(b, root);
  } else if (n == "ErrorResponse" || n == "Response") {
    element err = n == "ErrorResponse" ? root.child("Error") : root.child("Errors").child("Error");
    if (!err) return error(errc::malformed_reply, "error document without an <Error> element");
    detail::read_error_children(b, err);
    // The request id sits beside <Error>; other siblings are kept too.
    for (auto c : root.children()) {
      auto cn = c.name();
      if (c == err || (n == "Response" && cn == "Errors")) continue;
      if (cn == "RequestId" || cn == "RequestID") {
        if (b.request_id.empty()) b.request_id = c.text();
      } else {
        detail::store_other(b, cn, c);
      }
    }
  } else {
    std::string msg = "not an error document";
    if (!n.empty()) {
      msg += ": root element <";
      msg += n.substr(0, 64);
      msg += ">";
    }
    return error(errc::malformed_reply, std::move(msg));
  }
  if (b.code.empty()) return error(errc::malformed_reply, "error document without a <Code>");
  return b;
}

FLOE_DECL result<error_body> parse_error_body(std::string_view bytes, limits const& lim) {
  auto doc = parse(bytes, lim);
  if (!doc) return doc.error();
  return read_error_body(doc->root());
}

}  // namespace floe::xml
