#pragma once
// A small, hardened XML reader for service replies (S3/STS/SQS error bodies,
// ListObjectsV2, STS results, multipart replies), built on libxml2.
//
// Hostile bodies are expected. floe::xml::parse
//   - refuses any DOCTYPE outright (errc::xml_doctype_refused), so there are
//     no entity declarations to expand (no XXE, no billion laughs) and no DTD
//     is ever loaded; the refusal happens both in a pre-scan of the bytes and
//     inside the parser (for documents in other encodings);
//   - parses with XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING,
//     never NOENT, DTDLOAD or HUGE;
//   - caps the input size (limits::max_bytes, errc::reply_too_large) and the
//     element nesting depth (limits::max_depth, errc::xml_too_deep);
//   - prints nothing: libxml2's messages go to a no-op handler on the parser
//     context, and the first one becomes the error's diagnostics message;
//   - never throws (except std::bad_alloc) and never crashes on any input:
//     malformed, truncated, empty or HTML bodies give errc::malformed_reply.
// Leading ASCII whitespace is skipped (a 200 reply carrying an XML body can
// start with keep-alive whitespace). Concurrent parses of different
// documents from several threads are safe.
//
// The element API ignores namespaces: names are local names, so
// `<Error xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` is "Error".
//
//   auto doc = floe::xml::parse(body, {.max_bytes = 8 << 20});
//   if (!doc) return doc.error();
//   for (auto c : doc->root().children("Contents"))
//     use(c.child_text("Key"), c.child_text("Size"));

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

// libxml2's node types, so that this header need not include libxml2.
struct _xmlDoc;   // NOLINT(bugprone-reserved-identifier)
struct _xmlNode;  // NOLINT(bugprone-reserved-identifier)

namespace floe::xml {

/// Bounds applied to one parse. The defaults suit error bodies; callers
/// parsing list replies raise max_bytes.
struct limits {
  std::size_t max_bytes = 64 * 1024;  // larger inputs: errc::reply_too_large
  unsigned max_depth = 32;            // deeper nesting: errc::xml_too_deep (libxml2 itself stops at 256)
};

class element_range;

/// A non-owning handle to an element of a document; valid while the
/// document lives. A null handle (from child() of a missing name) is
/// falsy and answers every query with an empty value, so chains such as
/// `root.child("Error").child("Code").text()` are safe.
class element {
 public:
  element() noexcept = default;
  explicit element(_xmlNode* n) noexcept : node_(n) {}

  explicit operator bool() const noexcept { return node_ != nullptr; }

  /// Local name (namespace prefix dropped); empty for a null handle.
  FLOE_DECL std::string_view name() const noexcept;

  /// First child element with this local name, or a null handle.
  FLOE_DECL element child(std::string_view name) const noexcept;

  /// First child element (any name), or a null handle.
  FLOE_DECL element first_child() const noexcept;

  /// Next sibling element (any name, or with this local name), or a null handle.
  FLOE_DECL element next_sibling() const noexcept;
  FLOE_DECL element next_sibling(std::string_view name) const noexcept;

  /// The child elements, all of them or those with this local name, in
  /// document order.
  element_range children(std::string_view name = {}) const noexcept;

  /// The element's own character data: its text and CDATA children
  /// concatenated (not the text of nested elements). Entities and character
  /// references are already decoded; the result is UTF-8.
  FLOE_DECL std::string text() const;

  /// The same without copying, when the character data is one piece (the
  /// usual case); std::nullopt when it is split over several nodes (text
  /// and CDATA mixed), in which case use text(). Empty for no text.
  FLOE_DECL std::optional<std::string_view> text_view() const noexcept;

  /// child(name).text()
  std::string child_text(std::string_view name) const { return child(name).text(); }

  _xmlNode* native() const noexcept { return node_; }

  friend bool operator==(element a, element b) noexcept { return a.node_ == b.node_; }

 private:
  _xmlNode* node_ = nullptr;
};

/// Child elements of one element, optionally only those with a given local
/// name. A forward range of `element`.
class element_range {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = element;
    using difference_type = std::ptrdiff_t;
    using pointer = element const*;
    using reference = element;

    iterator() noexcept = default;
    iterator(element e, std::string_view name) noexcept : cur_(e), name_(name) {}
    element operator*() const noexcept { return cur_; }
    pointer operator->() const noexcept { return &cur_; }
    iterator& operator++() noexcept {
      cur_ = name_.empty() ? cur_.next_sibling() : cur_.next_sibling(name_);
      return *this;
    }
    iterator operator++(int) noexcept {
      auto t = *this;
      ++*this;
      return t;
    }
    friend bool operator==(iterator const& a, iterator const& b) noexcept { return a.cur_ == b.cur_; }

   private:
    element cur_;
    std::string_view name_;
  };

  element_range(element first, std::string_view name) noexcept : first_(first), name_(name) {}
  iterator begin() const noexcept { return {first_, name_}; }
  iterator end() const noexcept { return {}; }
  bool empty() const noexcept { return !first_; }

 private:
  element first_;
  std::string_view name_;
};

inline element_range element::children(std::string_view name) const noexcept {
  return {name.empty() ? first_child() : child(name), name};
}

/// A parsed document; owns the libxml2 tree. Move-only.
class document {
 public:
  document() noexcept = default;
  FLOE_DECL ~document();
  document(document&& o) noexcept : doc_(o.doc_) { o.doc_ = nullptr; }
  FLOE_DECL document& operator=(document&& o) noexcept;
  document(document const&) = delete;
  document& operator=(document const&) = delete;

  /// The root element; a null handle for an empty (moved-from) document.
  FLOE_DECL element root() const noexcept;

  explicit document(_xmlDoc* d) noexcept : doc_(d) {}
  _xmlDoc* native() const noexcept { return doc_; }

 private:
  _xmlDoc* doc_ = nullptr;
};

/// Parses `bytes` under `lim`. Errors (with a reason in diag.message):
///   errc::reply_too_large     bytes.size() > lim.max_bytes
///   errc::xml_doctype_refused the document has a DOCTYPE
///   errc::xml_too_deep        elements nested deeper than lim.max_depth
///   errc::malformed_reply     empty, not well-formed, truncated, ...
FLOE_DECL result<document> parse(std::string_view bytes, limits const& lim = {});

}  // namespace floe::xml

#if defined(FLOE_HEADER_ONLY)
#include <floe/xml/impl/document.ipp>
#endif
