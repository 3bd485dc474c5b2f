#pragma once
#include <floe/xml/document.hpp>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/globals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include <climits>
#include <cstring>
#include <mutex>

namespace floe::xml {

namespace detail {

inline std::string_view as_view(xmlChar const* s) noexcept {
  if (s == nullptr) return {};
  return {reinterpret_cast<char const*>(s), std::strlen(reinterpret_cast<char const*>(s))};
}

inline bool is_element(xmlNode const* n) noexcept { return n != nullptr && n->type == XML_ELEMENT_NODE; }

inline bool is_text(xmlNode const* n) noexcept {
  return n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE;
}

inline xmlNode* next_element(xmlNode* n, std::string_view name) noexcept {
  for (; n != nullptr; n = n->next) {
    if (is_element(n) && (name.empty() || as_view(n->name) == name)) return n;
  }
  return nullptr;
}

inline bool ascii_iequal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

// True when the bytes contain "<!DOCTYPE" (any case) outside comments,
// CDATA sections and processing instructions. This refuses the common case
// before libxml2 sees a byte; the internalSubset callback below catches what
// a byte scan cannot (documents in UTF-16 or EBCDIC).
FLOE_DECL bool has_doctype(std::string_view s) noexcept {
  auto skip_to = [&s](std::size_t from, std::string_view end) {
    auto p = s.find(end, from);
    return p == std::string_view::npos ? s.size() : p + end.size();
  };
  std::size_t i = 0;
  while (i < s.size()) {
    auto lt = s.find('<', i);
    if (lt == std::string_view::npos) return false;
    auto rest = s.substr(lt);
    if (rest.starts_with("<!--")) {
      i = skip_to(lt + 4, "-->");
    } else if (rest.starts_with("<![CDATA[")) {
      i = skip_to(lt + 9, "]]>");
    } else if (rest.starts_with("<?")) {
      i = skip_to(lt + 2, "?>");
    } else if (rest.size() >= 9 && rest[1] == '!' && ascii_iequal(rest.substr(2, 7), "DOCTYPE")) {
      return true;
    } else {
      i = lt + 1;
    }
  }
  return false;
}

struct parse_state {
  unsigned depth = 0;
  unsigned max_depth = 0;
  bool doctype = false;
  bool too_deep = false;
};

inline parse_state* state_of(void* ctx) noexcept {
  return static_cast<parse_state*>(static_cast<xmlParserCtxtPtr>(ctx)->_private);
}

// SAX hooks. libxml2 calls internalSubset for every DOCTYPE, before it reads
// any declaration of the internal subset: stopping there means no entity is
// ever declared, so none can be expanded or loaded.
FLOE_DECL void on_internal_subset(void* ctx, xmlChar const*, xmlChar const*, xmlChar const*) {
  state_of(ctx)->doctype = true;
  xmlStopParser(static_cast<xmlParserCtxtPtr>(ctx));
}

FLOE_DECL void on_start_element(void* ctx, xmlChar const* localname, xmlChar const* prefix, xmlChar const* uri,
                                int nb_namespaces, xmlChar const** namespaces, int nb_attributes,
                                int nb_defaulted, xmlChar const** attributes) {
  auto* st = state_of(ctx);
  if (++st->depth > st->max_depth) {
    st->too_deep = true;
    xmlStopParser(static_cast<xmlParserCtxtPtr>(ctx));
    return;
  }
  xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes, nb_defaulted,
                        attributes);
}

FLOE_DECL void on_end_element(void* ctx, xmlChar const* localname, xmlChar const* prefix, xmlChar const* uri) {
  auto* st = state_of(ctx);
  if (st->depth > 0) --st->depth;
  xmlSAX2EndElementNs(ctx, localname, prefix, uri);
}

// Swallows libxml2's messages (set on the context, not globally): nothing
// reaches stderr. The last error stays readable in ctxt->lastError.
FLOE_DECL void on_structured_error(void*, xmlErrorPtr) {}

FLOE_DECL void on_generic_error(void*, char const*, ...) {}

// Some libxml2 errors are raised without the parser context (a failed
// character conversion: "encoding error : input conversion failed",
// "I/O error : encoder error") and go to the generic/structured handlers,
// which print to stderr by default. In a threaded libxml2 those handlers
// are per thread: this swaps in no-ops for this thread for the duration of
// one parse and puts the caller's handlers back afterwards, so neither
// other threads nor the embedding program see a change.
class quiet_thread_errors {
 public:
  quiet_thread_errors() noexcept
      : structured_(xmlStructuredError),
        structured_ctx_(xmlStructuredErrorContext),
        generic_(xmlGenericError),
        generic_ctx_(xmlGenericErrorContext) {
    xmlSetStructuredErrorFunc(nullptr, &on_structured_error);
    xmlSetGenericErrorFunc(nullptr, &on_generic_error);
  }
  ~quiet_thread_errors() {
    xmlSetStructuredErrorFunc(structured_ctx_, structured_);
    xmlSetGenericErrorFunc(generic_ctx_, generic_);
  }
  quiet_thread_errors(quiet_thread_errors const&) = delete;
  quiet_thread_errors& operator=(quiet_thread_errors const&) = delete;

 private:
  xmlStructuredErrorFunc structured_;
  void* structured_ctx_;
  xmlGenericErrorFunc generic_;
  void* generic_ctx_;
};

FLOE_DECL void init_libxml2_once() {
  static std::once_flag once;
  std::call_once(once, [] { xmlInitParser(); });
}

// libxml2's message, made safe for a log line: printable ASCII only, short.
FLOE_DECL std::string describe(xmlError const& e) {
  std::string out = "XML parse error";
  if (e.line > 0) {
    out += " at line ";
    out += std::to_string(e.line);
  }
  auto msg = as_view(reinterpret_cast<xmlChar const*>(e.message));
  if (!msg.empty()) {
    out += ": ";
    std::size_t n = 0;
    for (char c : msg) {
      if (n++ == 160) {
        out += "...";
        break;
      }
      out += (c >= 0x20 && c < 0x7f) ? c : ' ';
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
  }
  return out;
}

}  // namespace detail

FLOE_DECL std::string_view element::name() const noexcept {
  return node_ == nullptr ? std::string_view{} : detail::as_view(node_->name);
}

FLOE_DECL element element::child(std::string_view name) const noexcept {
  if (node_ == nullptr) return {};
  return element{detail::next_element(node_->children, name)};
}

FLOE_DECL element element::first_child() const noexcept { return child({}); }

FLOE_DECL element element::next_sibling() const noexcept { return next_sibling({}); }

FLOE_DECL element element::next_sibling(std::string_view name) const noexcept {
  if (node_ == nullptr) return {};
  return element{detail::next_element(node_->next, name)};
}

FLOE_DECL std::string element::text() const {
  std::string out;
  if (node_ == nullptr) return out;
  for (xmlNode* c = node_->children; c != nullptr; c = c->next) {
    if (detail::is_text(c)) out += detail::as_view(c->content);
  }
  return out;
}

FLOE_DECL std::optional<std::string_view> element::text_view() const noexcept {
  if (node_ == nullptr) return std::string_view{};
  xmlNode* found = nullptr;
  for (xmlNode* c = node_->children; c != nullptr; c = c->next) {
    if (!detail::is_text(c)) continue;
    if (found != nullptr) return std::nullopt;
    found = c;
  }
  return found == nullptr ? std::string_view{} : detail::as_view(found->content);
}

FLOE_DECL document::~document() {
  if (doc_ != nullptr) xmlFreeDoc(doc_);
}

FLOE_DECL document& document::operator=(document&& o) noexcept {
  if (this != &o) {
    if (doc_ != nullptr) xmlFreeDoc(doc_);
    doc_ = o.doc_;
    o.doc_ = nullptr;
  }
  return *this;
}

FLOE_DECL element document::root() const noexcept {
  if (doc_ == nullptr) return {};
  return element{xmlDocGetRootElement(doc_)};
}

FLOE_DECL result<document> parse(std::string_view bytes, limits const& lim) {
  if (bytes.size() > lim.max_bytes) {
    return error(errc::reply_too_large, "XML body of " + std::to_string(bytes.size()) +
                                            " bytes exceeds the limit of " + std::to_string(lim.max_bytes));
  }
  auto first = bytes.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return error(errc::malformed_reply, "empty XML body");
  bytes.remove_prefix(first);
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) return error(errc::reply_too_large, "XML body too large");
  if (detail::has_doctype(bytes)) return error(errc::xml_doctype_refused, "XML body with a DOCTYPE refused");

  detail::init_libxml2_once();
  detail::quiet_thread_errors const quiet;  // outlives the context below
  xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(bytes.data(), static_cast<int>(bytes.size()));
  if (ctxt == nullptr) return error(errc::malformed_reply, "XML parser could not start");
  struct ctxt_guard {
    xmlParserCtxtPtr c;
    ~ctxt_guard() {
      if (c->myDoc != nullptr) xmlFreeDoc(c->myDoc);
      c->myDoc = nullptr;
      xmlFreeParserCtxt(c);
    }
  } guard{ctxt};

  xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  detail::parse_state st;
  st.max_depth = lim.max_depth;
  ctxt->_private = &st;
  xmlSAXHandler* sax = ctxt->sax;  // the context's own copy: changes stay local
  sax->serror = &detail::on_structured_error;
  sax->error = nullptr;
  sax->warning = nullptr;
  sax->fatalError = nullptr;
  sax->internalSubset = &detail::on_internal_subset;
  sax->externalSubset = nullptr;
  sax->resolveEntity = nullptr;
  sax->entityDecl = nullptr;
  sax->unparsedEntityDecl = nullptr;
  sax->startElementNs = &detail::on_start_element;
  sax->endElementNs = &detail::on_end_element;
  ctxt->vctxt.error = nullptr;
  ctxt->vctxt.warning = nullptr;

  int const rc = xmlParseDocument(ctxt);
  if (st.doctype) return error(errc::xml_doctype_refused, "XML body with a DOCTYPE refused");
  if (st.too_deep) {
    return error(errc::xml_too_deep, "XML elements nested deeper than " + std::to_string(lim.max_depth));
  }
  // Namespace errors (an undeclared prefix) leave the document well formed and
  // are accepted: names are compared without namespaces anyway.
  if (rc != 0 || !ctxt->wellFormed || ctxt->errNo == XML_ERR_USER_STOP || ctxt->myDoc == nullptr) {
    return error(errc::malformed_reply, detail::describe(ctxt->lastError));
  }
  document doc{ctxt->myDoc};
  ctxt->myDoc = nullptr;
  if (!doc.root()) return error(errc::malformed_reply, "XML body has no root element");
  return doc;
}

}  // namespace floe::xml
