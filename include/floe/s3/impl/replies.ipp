#pragma once
#include <floe/s3/replies.hpp>
#include <floe/xml/document.hpp>
#include <floe/xml/error_body.hpp>

#include <openssl/evp.h>

#include <charconv>
#include <string>

namespace floe::s3 {

namespace detail {

// List replies run to about 1000 keys of up to 1024 bytes each, escaped.
inline constexpr std::size_t list_reply_limit = 16u << 20;
inline constexpr std::size_t small_reply_limit = 1u << 20;

inline error malformed(std::string_view what) {
  return error(errc::malformed_reply, std::string(what));
}

inline result<xml::document> parse_result_doc(std::string_view body, std::string_view root_name,
                                              std::size_t limit) {
  auto doc = xml::parse(body, {.max_bytes = limit, .max_depth = 16});
  if (!doc) return doc.error();
  auto root = doc->root();
  if (root.name() != root_name) {
    std::string m = "expected <";
    m += root_name;
    m += ">, got <";
    m += root.name();
    m += ">";
    return malformed(m);
  }
  return std::move(*doc);
}

inline int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline bool parse_u64(std::string_view s, std::uint64_t& out) noexcept {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace detail

FLOE_DECL std::string_view normalize_etag(std::string_view etag) noexcept {
  if (etag.size() >= 2 && (etag[0] == 'W' || etag[0] == 'w') && etag[1] == '/') etag.remove_prefix(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

FLOE_DECL result<std::string> url_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= s.size()) return detail::malformed("truncated %-escape in a URL-encoded name");
      int hi = detail::hex_value(s[i + 1]);
      int lo = detail::hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return detail::malformed("bad %-escape in a URL-encoded name");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

FLOE_DECL result<list_page> parse_list_objects_v2(std::string_view body, bool url_encoded) {
  auto doc = detail::parse_result_doc(body, "ListBucketResult", detail::list_reply_limit);
  if (!doc) return doc.error();
  auto root = doc->root();
  bool const decode = url_encoded && root.child_text("EncodingType") == "url";
  auto name = [decode](std::string raw) -> result<std::string> {
    if (!decode) return raw;
    return url_decode(raw);
  };
  list_page page;
  auto truncated = root.child_text("IsTruncated");
  page.truncated = truncated == "true";
  page.next_continuation_token = root.child_text("NextContinuationToken");
  if (page.truncated && page.next_continuation_token.empty())
    return detail::malformed("ListObjectsV2 reply is truncated but has no NextContinuationToken");
  (void)detail::parse_u64(root.child_text("KeyCount"), page.key_count);
  for (auto c : root.children("Contents")) {
    object_summary o;
    auto k = name(c.child_text("Key"));
    if (!k) return k.error();
    o.key = std::move(*k);
    if (!detail::parse_u64(c.child_text("Size"), o.size)) return detail::malformed("ListObjectsV2 entry without a valid <Size>");
    o.etag = std::string(normalize_etag(c.child_text("ETag")));
    o.last_modified = c.child_text("LastModified");
    o.storage_class = c.child_text("StorageClass");
    page.objects.push_back(std::move(o));
  }
  for (auto p : root.children("CommonPrefixes")) {
    auto v = name(p.child_text("Prefix"));
    if (!v) return v.error();
    page.common_prefixes.push_back(std::move(*v));
  }
  return page;
}

FLOE_DECL result<bucket_list_page> parse_list_buckets(std::string_view body) {
  auto doc = detail::parse_result_doc(body, "ListAllMyBucketsResult", detail::list_reply_limit);
  if (!doc) return doc.error();
  auto root = doc->root();
  bucket_list_page page;
  if (auto owner = root.child("Owner")) {
    page.owner_id = owner.child_text("ID");
    page.owner_display_name = owner.child_text("DisplayName");
  }
  page.continuation_token = root.child_text("ContinuationToken");
  for (auto b : root.child("Buckets").children("Bucket")) {
    bucket_summary s;
    s.name = b.child_text("Name");
    if (s.name.empty()) return detail::malformed("ListBuckets entry without a <Name>");
    s.creation_date = b.child_text("CreationDate");
    s.region = b.child_text("BucketRegion");
    page.buckets.push_back(std::move(s));
  }
  return page;
}

FLOE_DECL void append_xml_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\r': out += "&#13;"; break;  // else XML end-of-line handling eats it
      case '\n': out += "&#10;"; break;
      case '\t': out += "&#9;"; break;
      default: out += c;
    }
  }
}

FLOE_DECL result<std::string> build_delete_objects_body(std::span<std::string const> keys, bool quiet) {
  if (keys.empty()) return error(errc::invalid_argument, "DeleteObjects needs at least one key");
  if (keys.size() > 1000) return error(errc::invalid_argument, "DeleteObjects takes at most 1000 keys per request");
  std::string out;
  out.reserve(64 + keys.size() * 48);
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  if (quiet) out += "<Quiet>true</Quiet>";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto const& k = keys[i];
    for (unsigned char c : k) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        return error(errc::invalid_argument,
                     "DeleteObjects: key #" + std::to_string(i + 1) +
                         " has a control character XML cannot carry; delete it with DeleteObject");
      }
    }
    out += "<Object><Key>";
    append_xml_escaped(out, k);
    out += "</Key></Object>";
  }
  out += "</Delete>";
  return out;
}

FLOE_DECL result<delete_objects_result> parse_delete_objects(std::string_view body) {
  auto doc = detail::parse_result_doc(body, "DeleteResult", detail::list_reply_limit);
  if (!doc) return doc.error();
  delete_objects_result r;
  for (auto d : doc->root().children("Deleted")) r.deleted.push_back(d.child_text("Key"));
  for (auto e : doc->root().children("Error"))
    r.errors.push_back({e.child_text("Key"), e.child_text("Code"), e.child_text("Message")});
  return r;
}

FLOE_DECL result<std::string> parse_initiate_multipart(std::string_view body) {
  auto doc = detail::parse_result_doc(body, "InitiateMultipartUploadResult", detail::small_reply_limit);
  if (!doc) return doc.error();
  auto id = doc->root().child_text("UploadId");
  if (id.empty()) return detail::malformed("InitiateMultipartUpload reply without an UploadId");
  return id;
}

FLOE_DECL std::string build_complete_multipart_body(std::span<completed_part const> parts) {
  std::string out;
  out.reserve(96 + parts.size() * 96);
  out += "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  for (auto const& p : parts) {
    out += "<Part><PartNumber>";
    out += std::to_string(p.number);
    out += "</PartNumber><ETag>";
    append_xml_escaped(out, p.etag);
    out += "</ETag>";
    if (!p.checksum.empty()) {
      auto const name = checksum::s3_name(p.checksum_algorithm);
      out += "<Checksum";
      out += name;
      out += '>';
      append_xml_escaped(out, p.checksum);
      out += "</Checksum";
      out += name;
      out += '>';
    }
    out += "</Part>";
  }
  out += "</CompleteMultipartUpload>";
  return out;
}

FLOE_DECL result<complete_result> parse_complete_multipart(std::string_view body) {
  auto doc = xml::parse(body, {.max_bytes = detail::small_reply_limit, .max_depth = 16});
  if (!doc) return doc.error();
  // moto 5 names the root CompleteMultipartUploadResponse; AWS and Ceph
  // CompleteMultipartUploadResult. An <Error> is never a result.
  auto const root_name = doc->root().name();
  if (root_name != "CompleteMultipartUploadResult" && root_name != "CompleteMultipartUploadResponse") {
    std::string m = "expected <CompleteMultipartUploadResult>, got <";
    m += root_name;
    m += ">";
    return detail::malformed(m);
  }
  complete_result r;
  r.etag = std::string(normalize_etag(doc->root().child_text("ETag")));
  r.location = doc->root().child_text("Location");
  return r;
}

FLOE_DECL std::string multipart_etag(std::span<completed_part const> parts) {
  if (parts.empty()) return {};
  std::string digests;
  digests.reserve(parts.size() * 16);
  for (auto const& p : parts) {
    auto e = normalize_etag(p.etag);
    if (e.size() != 32) return {};
    for (std::size_t i = 0; i < 32; i += 2) {
      int const hi = detail::hex_value(e[i]);
      int const lo = detail::hex_value(e[i + 1]);
      if (hi < 0 || lo < 0) return {};
      digests += static_cast<char>((hi << 4) | lo);
    }
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(digests.data(), digests.size(), md, &len, EVP_md5(), nullptr) != 1) return {};
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len + 8);
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 0xf];
  }
  out += '-';
  out += std::to_string(parts.size());
  return out;
}

FLOE_DECL result<copy_result> parse_copy_result(std::string_view body) {
  auto doc = xml::parse(body, {.max_bytes = detail::small_reply_limit, .max_depth = 16});
  if (!doc) return doc.error();
  auto root = doc->root();
  if (root.name() != "CopyObjectResult" && root.name() != "CopyPartResult")
    return detail::malformed("expected <CopyObjectResult> or <CopyPartResult>");
  copy_result r;
  r.etag = std::string(normalize_etag(root.child_text("ETag")));
  r.last_modified = root.child_text("LastModified");
  if (r.etag.empty()) return detail::malformed("copy reply without an ETag");
  return r;
}

}  // namespace floe::s3
