#pragma once
#include <floe/json/writer.hpp>
#include <floe/ledger/entry.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace floe::ledger {

namespace detail {

// A record in entry_set's buffer: this header, then the key, ETag and
// version id bytes.
struct record_header {
  std::uint64_t size;
  std::uint32_t bucket;
  std::uint16_t key_len;
  std::uint16_t etag_len;
  std::uint16_t version_len;
  std::uint16_t reserved;
};
inline constexpr std::size_t record_header_bytes = 20;  // the fields without the struct's tail padding
static_assert(offsetof(record_header, reserved) + sizeof(std::uint16_t) == record_header_bytes);

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v;
  h *= 0x9e3779b97f4a7c15ull;
  h ^= h >> 29;
  return h;
}

inline std::uint64_t hash_bytes(std::uint64_t h, std::string_view s) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = mix(h, w);
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h = mix(h, tail);
  return mix(h, s.size());
}

inline bool printable_ascii(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f && c != '"'; });
}

}  // namespace detail

FLOE_DECL std::uint64_t identity_hash(std::string_view bucket, std::string_view key, std::string_view etag,
                                      std::string_view version_id) noexcept {
  std::uint64_t h = 0x243f6a8885a308d3ull;
  h = detail::hash_bytes(h, bucket);
  h = detail::hash_bytes(h, key);
  h = detail::hash_bytes(h, etag);
  h = detail::hash_bytes(h, version_id);
  return h ^ (h >> 32);
}

FLOE_DECL result<void> validate_entry(entry const& e) {
  auto bad = [&](std::string const& why) {
    return error(errc::invalid_argument, "ledger entry " + describe(e) + ": " + why);
  };
  if (e.bucket.empty() || e.bucket.size() > max_bucket_bytes) return bad("the bucket is not 1 to 255 bytes");
  if (e.bucket.find('/') != std::string::npos) return bad("the bucket contains '/'");
  if (!json::valid_utf8(e.bucket)) return bad("the bucket is not UTF-8");
  if (e.key.empty() || e.key.size() > max_key_bytes) return bad("the key is not 1 to 1024 bytes");
  if (!json::valid_utf8(e.key)) return bad("the key is not UTF-8");
  if (e.etag.empty()) return bad("no ETag (an entry is identified by bucket, key and ETag)");
  if (e.etag.size() > max_etag_bytes || !detail::printable_ascii(e.etag))
    return bad("the ETag is not 1 to 1024 printable ASCII characters without quotes");
  if (e.version_id.size() > max_version_id_bytes || !detail::printable_ascii(e.version_id))
    return bad("the version id is not printable ASCII of at most 1024 characters");
  return {};
}

namespace detail {
template <class E>
std::string describe_entry(E const& e) {
  std::string out;
  auto printable = [&](std::string_view s) {
    for (char c : s.substr(0, 300)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
    if (s.size() > 300) out += "...";
  };
  printable(e.bucket);
  out += '/';
  printable(e.key);
  out += " (ETag ";
  printable(e.etag);
  if (!e.version_id.empty()) {
    out += ", version ";
    printable(e.version_id);
  }
  out += ')';
  return out;
}
}  // namespace detail

FLOE_DECL std::string describe(entry const& e) { return detail::describe_entry(e); }
FLOE_DECL std::string describe(entry_view const& e) { return detail::describe_entry(e); }

// --- entry_set -----------------------------------------------------------------

FLOE_DECL std::uint32_t entry_set::bucket_id(std::string_view bucket) const noexcept {
  auto const it = bucket_ids_.find(bucket);
  return it == bucket_ids_.end() ? static_cast<std::uint32_t>(buckets_.size()) : it->second;
}

FLOE_DECL entry_view entry_set::at(std::size_t ordinal) const noexcept {
  detail::record_header h;
  char const* p = record(ordinal);
  std::memcpy(&h, p, detail::record_header_bytes);
  p += detail::record_header_bytes;
  entry_view v;
  v.bucket = buckets_[h.bucket];
  v.key = std::string_view(p, h.key_len);
  p += h.key_len;
  v.etag = std::string_view(p, h.etag_len);
  p += h.etag_len;
  v.version_id = std::string_view(p, h.version_len);
  v.size = h.size;
  return v;
}

FLOE_DECL std::size_t entry_set::find_parts(std::string_view bucket, std::string_view key, std::string_view etag,
                                            std::string_view version_id, std::uint64_t hash) const noexcept {
  if (slots_.empty()) return npos;
  std::uint32_t const b = bucket_id(bucket);
  if (b == buckets_.size()) return npos;
  std::size_t const mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    std::uint32_t const s = slots_[i];
    if (s == 0) return npos;
    detail::record_header h;
    char const* p = record(s - 1);
    std::memcpy(&h, p, detail::record_header_bytes);
    if (h.bucket != b || h.key_len != key.size() || h.etag_len != etag.size() || h.version_len != version_id.size())
      continue;
    p += detail::record_header_bytes;
    if (std::memcmp(p, key.data(), key.size()) != 0) continue;
    p += key.size();
    if (std::memcmp(p, etag.data(), etag.size()) != 0) continue;
    p += etag.size();
    if (std::memcmp(p, version_id.data(), version_id.size()) != 0) continue;
    return s - 1;
  }
}

FLOE_DECL std::size_t entry_set::find(entry const& e) const noexcept {
  return find_parts(e.bucket, e.key, e.etag, e.version_id, identity_hash(e.bucket, e.key, e.etag, e.version_id));
}

FLOE_DECL std::size_t entry_set::find(entry_view const& e) const noexcept {
  return find_parts(e.bucket, e.key, e.etag, e.version_id, identity_hash(e.bucket, e.key, e.etag, e.version_id));
}

FLOE_DECL void entry_set::grow() {
  std::size_t const cap = slots_.empty() ? 16 : slots_.size() * 2;
  slots_.assign(cap, 0);
  std::size_t const mask = cap - 1;
  for (std::size_t o = 0; o < offsets_.size(); ++o) {
    auto const v = at(o);
    for (std::size_t i = identity_hash(v.bucket, v.key, v.etag, v.version_id) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0) {
        slots_[i] = static_cast<std::uint32_t>(o + 1);
        break;
      }
    }
  }
}

FLOE_DECL std::size_t entry_set::insert_parts(std::string_view bucket, std::string_view key, std::string_view etag,
                                              std::string_view version_id, std::uint64_t size) {
  std::uint64_t const hash = identity_hash(bucket, key, etag, version_id);
  if (find_parts(bucket, key, etag, version_id, hash) != npos) return npos;
  if ((offsets_.size() + 1) * 2 > slots_.size()) grow();
  std::uint32_t b = bucket_id(bucket);
  if (b == buckets_.size()) {
    buckets_.emplace_back(bucket);
    bucket_ids_.emplace(std::string(bucket), b);
  }
  detail::record_header h{};
  h.bucket = b;
  h.key_len = static_cast<std::uint16_t>(std::min<std::size_t>(key.size(), max_key_bytes));
  h.etag_len = static_cast<std::uint16_t>(std::min<std::size_t>(etag.size(), max_etag_bytes));
  h.version_len = static_cast<std::uint16_t>(std::min<std::size_t>(version_id.size(), max_version_id_bytes));
  h.size = size;
  std::size_t const bytes = detail::record_header_bytes + h.key_len + h.etag_len + h.version_len;
  if (block_bytes - used_ < bytes) {
    blocks_.push_back(std::unique_ptr<char[]>(new char[block_bytes]));  // untouched until written
    used_ = 0;
  }
  std::size_t const ordinal = offsets_.size();
  offsets_.push_back(((blocks_.size() - 1) << block_shift) | used_);
  char* p = blocks_.back().get() + used_;
  std::memcpy(p, &h, detail::record_header_bytes);
  p += detail::record_header_bytes;
  std::memcpy(p, key.data(), h.key_len);
  p += h.key_len;
  std::memcpy(p, etag.data(), h.etag_len);
  p += h.etag_len;
  std::memcpy(p, version_id.data(), h.version_len);
  used_ += bytes;
  std::size_t const mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    if (slots_[i] == 0) {
      slots_[i] = static_cast<std::uint32_t>(ordinal + 1);
      break;
    }
  }
  return ordinal;
}

FLOE_DECL std::size_t entry_set::insert(entry const& e) {
  return insert_parts(e.bucket, e.key, e.etag, e.version_id, e.size);
}

FLOE_DECL std::size_t entry_set::insert(entry_view const& e) {
  return insert_parts(e.bucket, e.key, e.etag, e.version_id, e.size);
}

FLOE_DECL std::size_t entry_set::memory_bytes() const noexcept {
  std::size_t n = blocks_.size() * block_bytes + offsets_.capacity() * sizeof(std::uint64_t) +
                  slots_.capacity() * sizeof(std::uint32_t) + buckets_.capacity() * sizeof(std::string);
  for (auto const& b : buckets_) n += 2 * b.capacity() + 64;  // the name, its copy in the index, a node
  return n;
}

FLOE_DECL void entry_set::clear() noexcept {
  blocks_.clear();
  used_ = block_bytes;
  offsets_.clear();
  slots_.clear();
  buckets_.clear();
  bucket_ids_.clear();
}

FLOE_DECL void entry_set::reserve(std::size_t n) { offsets_.reserve(n); }

}  // namespace floe::ledger
