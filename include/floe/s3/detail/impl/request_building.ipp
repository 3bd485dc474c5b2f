#pragma once
#include <floe/s3/detail/request_building.hpp>

#include <floe/detail/sha256.hpp>
#include <floe/s3/replies.hpp>
#include <floe/sigv4/canonical.hpp>
#include <floe/sigv4/uri_encode.hpp>

#include <openssl/evp.h>

#include <algorithm>

namespace floe::s3::detail {

FLOE_DECL std::string quoted_etag(std::string_view etag) {
  if (etag == "*") return std::string(etag);
  std::string q = "\"";
  q += normalize_etag(etag);
  q += '"';
  return q;
}

FLOE_DECL std::string write_if_match(std::string_view etag, bool unquoted) {
  return unquoted ? std::string(normalize_etag(etag)) : quoted_etag(etag);
}

FLOE_DECL std::string md5_base64(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_md5(), nullptr);
  std::array<unsigned char, 4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1> b64{};
  int n = EVP_EncodeBlock(b64.data(), md, static_cast<int>(len));
  return std::string(reinterpret_cast<char const*>(b64.data()), static_cast<std::size_t>(n));
}

FLOE_DECL std::string copy_source(copy_params const& p) {
  std::string source = "/";
  source += p.source_bucket;
  source += '/';
  sigv4::uri_encode_append(source, p.source_key, false);
  return source;
}

FLOE_DECL void address_request(op_spec const& op, request_target const& tgt, http::endpoint& ep, http::request& req) {
  ep.tls = tgt.scheme == "https";
  ep.host = tgt.host;
  ep.port = tgt.port;
  req.method = std::string(op.method);
  req.target = tgt.path;
  op.query.append_to(req.target);
  req.headers.set("Host", tgt.host_header);
}

FLOE_DECL std::string_view payload_hash_of(std::string_view given, http::body_source const& body,
                                           std::array<char, 64>& memory_hash) {
  if (!given.empty()) return given;
  if (body.type() == http::body_source::kind::memory) {
    floe::detail::hex_lower(floe::detail::sha256::of(body.bytes()), memory_hash.data());
    return std::string_view(memory_hash.data(), memory_hash.size());
  }
  if (body.type() == http::body_source::kind::none) return sigv4::empty_payload_sha256;
  return sigv4::unsigned_payload;
}

FLOE_DECL void read_op(op_spec& op, std::string_view operation, std::string_view method, std::string const& bucket,
                       std::string const& key, read_conditions const& c) {
  op.operation = operation;
  op.method = method;
  op.bucket = bucket;
  op.key = key;
  op.conditional_read = !c.if_match.empty() || !c.if_none_match.empty();
  op.hedgeable = true;  // GetObject, HeadObject: reads
  if (!c.version_id.empty()) op.query.add("versionId", c.version_id);
}

FLOE_DECL void set_read_conditions(http::request& req, read_conditions const& c) {
  if (!c.if_match.empty()) req.headers.set("If-Match", quoted_etag(c.if_match));
  if (!c.if_none_match.empty()) req.headers.set("If-None-Match", quoted_etag(c.if_none_match));
  if (c.checksum_mode) req.headers.set("x-amz-checksum-mode", "ENABLED");
}

FLOE_DECL bool backwards(get_params const& p) noexcept {
  return p.range && p.range->second && *p.range->second < p.range->first;
}

FLOE_DECL void set_read_headers(http::request& req, get_params const& p, bool ranged, std::uint64_t start,
                                std::string const& pinned_etag, bool first_request) {
  if (ranged) {
    std::string range = "bytes=" + std::to_string(start) + "-";
    if (p.range && p.range->second) range += std::to_string(*p.range->second);
    req.headers.set("Range", range);
  }
  std::string const& if_match = pinned_etag.empty() ? p.conditions.if_match : pinned_etag;
  if (!if_match.empty()) req.headers.set("If-Match", quoted_etag(if_match));
  if (!p.conditions.if_none_match.empty() && first_request)
    req.headers.set("If-None-Match", quoted_etag(p.conditions.if_none_match));
}

FLOE_DECL std::string write_options_problem(write_options const& w) {
  if (!w.sse.empty() && w.sse != "AES256" && w.sse != "aws:kms")
    return "server-side encryption takes AES256 or aws:kms, not \"" + w.sse + "\"";
  if (!w.sse_kms_key_id.empty() && w.sse != "aws:kms")
    return "a KMS key id (\"" + w.sse_kms_key_id + "\") goes only with server-side encryption aws:kms" +
           (w.sse.empty() ? std::string() : ", not " + w.sse);
  return {};
}

FLOE_DECL void set_write_options(http::request& req, write_options const& w) {
  if (!w.storage_class.empty()) req.headers.set("x-amz-storage-class", w.storage_class);
  if (!w.sse.empty()) req.headers.set("x-amz-server-side-encryption", w.sse);
  if (!w.sse_kms_key_id.empty()) req.headers.set("x-amz-server-side-encryption-aws-kms-key-id", w.sse_kms_key_id);
  if (!w.acl.empty()) req.headers.set("x-amz-acl", w.acl);
  if (!w.cache_control.empty()) req.headers.set("Cache-Control", w.cache_control);
}

FLOE_DECL void set_object_headers(http::request& req, put_params const& p) {
  if (!p.content_type.empty()) req.headers.set("Content-Type", p.content_type);
  for (auto const& [n, v] : p.metadata) req.headers.add("x-amz-meta-" + n, v);
  set_write_options(req, p.write);
}

FLOE_DECL bool replaces_metadata(copy_params const& p) noexcept {
  return p.content_type.has_value() || p.metadata.has_value() || !p.write.cache_control.empty();
}

FLOE_DECL put_params copied_object_params(copy_params const& p, object_info const& src) {
  put_params out;
  out.content_type = p.content_type ? *p.content_type : src.content_type;
  out.metadata = p.metadata ? *p.metadata : src.metadata;
  out.write = p.write;
  return out;
}

FLOE_DECL void set_copy_headers(http::request& req, copy_params const& p, object_info const& src) {
  req.headers.set("x-amz-copy-source", copy_source(p));
  if (!p.source_if_match.empty()) req.headers.set("x-amz-copy-source-if-match", quoted_etag(p.source_if_match));
  if (!p.source_if_none_match.empty())
    req.headers.set("x-amz-copy-source-if-none-match", quoted_etag(p.source_if_none_match));
  if (replaces_metadata(p)) {
    req.headers.set("x-amz-metadata-directive", "REPLACE");
    set_object_headers(req, copied_object_params(p, src));
  } else {
    set_write_options(req, p.write);
  }
}

FLOE_DECL void set_write_conditions(http::request& req, op_spec& op, std::string_view if_match,
                                    bool if_match_unquoted, std::string_view if_none_match) {
  if (!if_match.empty()) {
    req.headers.set("If-Match", write_if_match(if_match, if_match_unquoted));
    op.conditional_write = op.if_match = true;
  }
  if (!if_none_match.empty()) {
    req.headers.set("If-None-Match", "*");
    op.conditional_write = true;
  }
  req.traits.conditional_write = op.conditional_write;
}

FLOE_DECL bool goes_as_one_put(std::uint64_t size, client_config const& cfg) noexcept {
  return size <= cfg.max_single_put && (size < cfg.multipart_threshold || size < min_part_size);
}

FLOE_DECL error conditional_upload_refused(std::string const& bucket, std::string const& key, std::uint64_t size,
                                           std::uint64_t limit, put_params const& p) {
  error e(errc::unsupported,
          std::string("this store does not support a conditional write too large for one PUT (") +
              std::to_string(size) + " bytes, more than " + std::to_string(limit) + "): its condition (" +
              (p.if_match.empty() ? "If-None-Match: *" : "If-Match") +
              ") would have to go on CompleteMultipartUpload, which only AWS is known to honour (moto and "
              "Ceph RGW 16.2 ignore it and replace the object); nothing was uploaded");
  e.diag.operation = "PutObject";
  e.diag.resource = bucket + "/" + key;
  return e;
}

FLOE_DECL part_plan plan_parts(std::uint64_t size, std::uint64_t wanted) noexcept {
  std::uint64_t part_size = std::max(wanted, min_part_size);
  part_size = std::min(part_size, max_single_put);
  part_size = std::max(part_size, (size + max_parts - 1) / max_parts);
  return {part_size, static_cast<std::size_t>((size + part_size - 1) / part_size)};
}

FLOE_DECL void set_part_copy(op_spec& op, http::request& req, copy_params const& source, std::string const* etag,
                             std::uint64_t off, std::uint64_t len) {
  op.may_200_error = true;
  req.headers.set("x-amz-copy-source", copy_source(source));
  req.headers.set("x-amz-copy-source-range", "bytes=" + std::to_string(off) + "-" + std::to_string(off + len - 1));
  if (etag && !etag->empty()) req.headers.set("x-amz-copy-source-if-match", quoted_etag(*etag));
  op.conditional_read = true;
}

FLOE_DECL bool xml_safe(std::string_view key) noexcept {
  return std::none_of(key.begin(), key.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u < 0x20 && u != '\t' && u != '\n' && u != '\r';
  });
}

FLOE_DECL void next_delete_batch(std::vector<std::string>& keys, std::size_t& i, std::vector<std::string>& batch,
                                 std::vector<std::string>& singles) {
  batch.clear();
  while (i < keys.size() && batch.size() < 1000) {
    if (xml_safe(keys[i])) batch.push_back(std::move(keys[i]));
    else singles.push_back(std::move(keys[i]));
    ++i;
  }
}

FLOE_DECL void list_objects_query(query_builder& q, list_params const& p, std::uint64_t listed,
                                  std::string const& token) {
  unsigned const max_page = (p.page_size == 0 || p.page_size > 1000) ? 1000u : p.page_size;
  q.add("list-type", "2");
  q.add("encoding-type", "url");
  auto page_size = max_page;
  if (p.max_keys != 0) {
    auto left = p.max_keys - listed;
    if (left < page_size) page_size = static_cast<unsigned>(left);
  }
  q.add("max-keys", std::to_string(page_size));
  if (!p.prefix.empty()) q.add("prefix", p.prefix);
  if (!p.delimiter.empty()) q.add("delimiter", p.delimiter);
  if (!token.empty()) q.add("continuation-token", token);
  else if (!p.start_after.empty()) q.add("start-after", p.start_after);
}

FLOE_DECL std::string create_bucket_body(std::string_view region) {
  std::string body;
  if (region.empty() || region == "us-east-1") return body;
  body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>";
  append_xml_escaped(body, region);
  body += "</LocationConstraint></CreateBucketConfiguration>";
  return body;
}

}  // namespace floe::s3::detail
