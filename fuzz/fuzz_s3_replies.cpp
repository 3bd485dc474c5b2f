// Fuzz target: the S3 reply bodies floe reads after a 2xx (s3/replies.hpp):
// ListObjectsV2, ListBuckets, DeleteObjects, InitiateMultipartUpload,
// CompleteMultipartUpload, CopyObject/CopyPart, and the url decoding of
// listed keys. Every parser sees every input.
//
// Invariants besides "no crash, no throw, no sanitizer report":
// - a refusal has an error code and a reason;
// - a truncated ListObjectsV2 page has a continuation token; a page read
//   without url decoding has the same shape as the decoded one, and equal
//   keys when the reply does not say EncodingType url;
// - what the request builders make of parsed values reads back to the same
//   values: DeleteObjects bodies (keys), CompleteMultipartUpload bodies
//   (ETags);
// - url_decode inverts SigV4 percent-encoding; multipart_etag is empty or
//   32 hex digits, '-', the part count.

#include <floe/s3/replies.hpp>
#include <floe/sigv4/uri_encode.hpp>
#include <floe/xml/document.hpp>

#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

using floe_fuzz::check;
namespace s3 = floe::s3;

template <class T>
void check_refusal(floe::result<T> const& r) {
  if (r) return;
  check(static_cast<bool>(r.error().code), "a refusal without an error code");
  check(!r.error().diag.message.empty(), "a refusal without a reason");
}

// Whether XML 1.0 can carry `s` as character data: valid UTF-8 without
// U+FFFE/U+FFFF. (Control characters are the builder's own refusal.)
bool xml_text(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto const c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    std::uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (std::size_t k = 1; k < n; ++k) {
      auto const d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 2) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    std::uint32_t const min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff) return false;
    i += n;
  }
  return true;
}

bool has_control(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return true;
  return false;
}

// build_delete_objects_body, then read the keys back with the XML reader.
void round_trip_delete(std::vector<std::string> keys) {
  if (keys.empty()) return;
  if (keys.size() > 1000) keys.resize(1000);
  auto body = s3::build_delete_objects_body(keys, true);
  bool refusable = false;
  for (auto const& k : keys) refusable = refusable || has_control(k);
  if (!body) {
    check(refusable, "DeleteObjects body refused for keys XML can carry");
    return;
  }
  check(!refusable, "DeleteObjects body built for a key with a control character");
  bool carried = true;
  for (auto const& k : keys) carried = carried && xml_text(k);
  auto doc = floe::xml::parse(*body, {.max_bytes = 64u << 20, .max_depth = 8});
  if (!carried) return;  // S3 keys are UTF-8: such a body is S3's to refuse
  check(doc.has_value(), "a DeleteObjects body floe built does not parse");
  check(doc->root().name() == "Delete", "DeleteObjects body root");
  std::size_t i = 0;
  for (auto o : doc->root().children("Object")) {
    check(i < keys.size(), "more keys read back than written");
    check(o.child_text("Key") == keys[i], "a key does not read back from the DeleteObjects body");
    ++i;
  }
  check(i == keys.size(), "fewer keys read back than written");
}

// build_complete_multipart_body, then read the ETags back.
void round_trip_complete(std::vector<s3::completed_part> const& parts) {
  if (parts.empty()) return;
  auto const body = s3::build_complete_multipart_body(parts);
  bool carried = true;
  for (auto const& p : parts) carried = carried && xml_text(p.etag) && !has_control(p.etag);
  if (!carried) return;
  auto doc = floe::xml::parse(body, {.max_bytes = 64u << 20, .max_depth = 8});
  check(doc.has_value(), "a CompleteMultipartUpload body floe built does not parse");
  std::size_t i = 0;
  for (auto p : doc->root().children("Part")) {
    check(i < parts.size(), "more parts read back than written");
    check(p.child_text("ETag") == parts[i].etag, "an ETag does not read back from the CompleteMultipartUpload body");
    check(p.child_text("PartNumber") == std::to_string(parts[i].number), "a part number does not read back");
    ++i;
  }
  check(i == parts.size(), "fewer parts read back than written");

  auto const m = s3::multipart_etag(parts);
  if (!m.empty()) {
    check(m.size() > 33 && m[32] == '-', "multipart ETag shape");
    for (std::size_t k = 0; k < 32; ++k) check(floe_fuzz::is_hex(m[k]), "multipart ETag digest is not hex");
    check(m.substr(33) == std::to_string(parts.size()), "multipart ETag part count");
  }
}

void check_list(std::string_view bytes) {
  auto decoded = s3::parse_list_objects_v2(bytes, true);
  auto raw = s3::parse_list_objects_v2(bytes, false);
  check_refusal(decoded);
  check_refusal(raw);
  if (decoded) {
    check(!decoded->truncated || !decoded->next_continuation_token.empty(), "truncated page without a token");
    check(raw.has_value(), "a page that decodes does not parse raw");
  }
  if (!raw) return;
  auto doc = floe::xml::parse(bytes, {.max_bytes = 16u << 20, .max_depth = 16});
  bool const says_url = doc && doc->root().child_text("EncodingType") == "url";
  if (!decoded) {
    check(says_url && decoded.error().code == floe::errc::malformed_reply, "raw page parses, decoded one does not");
    return;
  }
  check(decoded->objects.size() == raw->objects.size(), "decoding changed the number of objects");
  check(decoded->common_prefixes.size() == raw->common_prefixes.size(), "decoding changed the number of prefixes");
  std::vector<std::string> keys;
  std::vector<s3::completed_part> parts;
  for (std::size_t i = 0; i < raw->objects.size(); ++i) {
    auto const& d = decoded->objects[i];
    auto const& r = raw->objects[i];
    if (!says_url) check(d.key == r.key, "a key was decoded though the reply is not url-encoded");
    check(d.size == r.size && d.etag == r.etag, "decoding changed more than the key");
    keys.push_back(d.key);
    if (parts.size() < 10000) parts.push_back({static_cast<unsigned>(parts.size() + 1), r.etag});
  }
  round_trip_delete(std::move(keys));
  round_trip_complete(parts);
}

void check_url_decode(std::string_view bytes) {
  auto d = s3::url_decode(bytes);
  check_refusal(d);
  // url_decode(uri_encode(x)) == x for any bytes x.
  auto back = s3::url_decode(floe::sigv4::uri_encode(bytes, true));
  check(back.has_value() && *back == bytes, "url_decode does not invert uri_encode");
  if (d) check(d->size() <= bytes.size(), "decoding grew the text");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const bytes(reinterpret_cast<char const*>(data), size);

  check_list(bytes);

  auto buckets = s3::parse_list_buckets(bytes);
  check_refusal(buckets);
  if (buckets)
    for (auto const& b : buckets->buckets) check(!b.name.empty(), "a bucket without a name was accepted");

  auto del = s3::parse_delete_objects(bytes);
  check_refusal(del);
  if (del) {
    check(del->complete(), "a parsed DeleteObjects reply carries a request failure");
    round_trip_delete(del->deleted);
  }

  auto init = s3::parse_initiate_multipart(bytes);
  check_refusal(init);
  if (init) check(!init->empty(), "an empty UploadId was accepted");

  auto done = s3::parse_complete_multipart(bytes);
  check_refusal(done);
  if (done) {
    auto const n = s3::normalize_etag(done->etag);
    check(n.size() <= done->etag.size(), "normalize_etag grew");
    round_trip_complete({{1, done->etag}, {2, std::string(n)}});
  }

  auto copy = s3::parse_copy_result(bytes);
  check_refusal(copy);
  if (copy) check(!copy->etag.empty(), "a copy reply without an ETag was accepted");

  check_url_decode(bytes);

  auto const e = s3::normalize_etag(bytes);
  check(e.data() >= bytes.data() && e.data() + e.size() <= bytes.data() + bytes.size(), "normalize_etag left its input");
  return 0;
}
