#pragma once
#include <floe/json/writer.hpp>
#include <floe/ledger/entry.hpp>
#include <floe/ledger/sequencer.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace floe::ledger {

namespace detail {

// A record in entry_set's buffer: this header, then the key, ETag, version
// id, checksum and sequencer bytes.
struct record_header {
  std::uint64_t size;
  std::uint32_t bucket;
  std::uint32_t previous;  // the key's record before this one: ordinal + 1, 0 = none
  std::uint16_t key_len;
  std::uint16_t etag_len;
  std::uint16_t version_len;
  std::uint8_t sequencer_len;
  std::uint8_t checksum_len;
  std::uint8_t checksum_alg;  // 0: none, else checksum::algorithm + 1
  std::uint8_t flags;
};
inline constexpr std::size_t record_header_bytes = 26;  // the fields without the struct's tail padding
static_assert(offsetof(record_header, flags) + sizeof(std::uint8_t) == record_header_bytes);
inline constexpr std::uint8_t flag_removal = 1;  // a removal record
inline constexpr std::uint8_t flag_removed = 2;  // a registration a removal undid

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
  if (e.removal) {
    if (!e.etag.empty() || e.size != 0 || e.checksum_algorithm || !e.checksum.empty())
      return bad("a removal with an ETag, a size or a checksum");
  } else {
    if (e.etag.empty()) return bad("no ETag (an entry is identified by bucket, key and ETag)");
    if (e.etag.size() > max_etag_bytes || !detail::printable_ascii(e.etag))
      return bad("the ETag is not 1 to 1024 printable ASCII characters without quotes");
  }
  if (e.version_id.size() > max_version_id_bytes || !detail::printable_ascii(e.version_id))
    return bad("the version id is not printable ASCII of at most 1024 characters");
  if (!e.sequencer.empty()) {
    auto n = normalize_sequencer(e.sequencer);
    if (!n || *n != e.sequencer) return bad("the sequencer is not 1 to 64 upper-case hex digits");
  }
  if (e.checksum_algorithm.has_value() != !e.checksum.empty())
    return bad("a checksum without its algorithm, or an algorithm without its value");
  if (e.checksum.size() > max_checksum_bytes || !detail::printable_ascii(e.checksum))
    return bad("the checksum is not printable ASCII of at most 255 characters");
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
  if (e.removal) {
    out += " (removal";
  } else {
    out += " (ETag ";
    printable(e.etag);
  }
  if (!e.version_id.empty()) {
    out += ", version ";
    printable(e.version_id);
  }
  if (!e.sequencer.empty()) {
    out += ", sequencer ";
    printable(e.sequencer);
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

FLOE_DECL std::uint64_t key_hash(std::string_view bucket, std::string_view key) noexcept {
  std::uint64_t h = 0x13198a2e03707344ull;
  h = detail::hash_bytes(h, bucket);
  h = detail::hash_bytes(h, key);
  return h ^ (h >> 32);
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
  p += h.version_len;
  v.checksum = std::string_view(p, h.checksum_len);
  p += h.checksum_len;
  v.sequencer = std::string_view(p, h.sequencer_len);
  if (h.checksum_alg != 0) v.checksum_algorithm = static_cast<checksum::algorithm>(h.checksum_alg - 1);
  v.size = h.size;
  v.removal = (h.flags & detail::flag_removal) != 0;
  v.removed = (h.flags & detail::flag_removed) != 0;
  return v;
}

FLOE_DECL std::size_t entry_set::identity_slot(entry_view const& e, std::uint64_t hash) const noexcept {
  if (slots_.empty()) return npos;
  std::uint32_t const b = bucket_id(e.bucket);
  std::size_t const mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    std::uint32_t const s = slots_[i];
    if (s == 0) return i;
    if (b == buckets_.size()) continue;
    detail::record_header h;
    char const* p = record(s - 1);
    std::memcpy(&h, p, detail::record_header_bytes);
    if (h.bucket != b || h.key_len != e.key.size() || h.etag_len != e.etag.size() || h.version_len != e.version_id.size())
      continue;
    p += detail::record_header_bytes;
    if (std::memcmp(p, e.key.data(), e.key.size()) != 0) continue;
    p += e.key.size();
    if (std::memcmp(p, e.etag.data(), e.etag.size()) != 0) continue;
    p += e.etag.size();
    if (std::memcmp(p, e.version_id.data(), e.version_id.size()) != 0) continue;
    return i;
  }
}

FLOE_DECL std::size_t entry_set::key_slot(std::uint32_t b, std::string_view key, std::uint64_t hash) const noexcept {
  std::size_t const mask = key_slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    std::uint32_t const s = key_slots_[i];
    if (s == 0) return i;
    detail::record_header h;
    char const* p = record(s - 1);
    std::memcpy(&h, p, detail::record_header_bytes);
    if (h.bucket == b && h.key_len == key.size() &&
        std::memcmp(p + detail::record_header_bytes, key.data(), key.size()) == 0)
      return i;
  }
}

FLOE_DECL std::size_t entry_set::find(entry_view const& e) const noexcept {
  if (e.removal) return npos;
  std::size_t const i = identity_slot(e, identity_hash(e.bucket, e.key, e.etag, e.version_id));
  if (i == npos || slots_[i] == 0) return npos;
  std::size_t const o = slots_[i] - 1;
  return (static_cast<std::uint8_t>(record(o)[detail::record_header_bytes - 1]) & detail::flag_removed) ? npos : o;
}

FLOE_DECL std::size_t entry_set::find(entry const& e) const noexcept { return find(view_of(e)); }

FLOE_DECL std::size_t entry_set::newest_of_key(std::string_view bucket, std::string_view key) const noexcept {
  if (key_slots_.empty()) return npos;
  std::uint32_t const b = bucket_id(bucket);
  if (b == buckets_.size()) return npos;
  std::uint32_t const s = key_slots_[key_slot(b, key, key_hash(bucket, key))];
  return s == 0 ? npos : s - 1;
}

FLOE_DECL std::size_t entry_set::previous_of_key(std::size_t ordinal) const noexcept {
  std::uint32_t prev;
  std::memcpy(&prev, record(ordinal) + offsetof(detail::record_header, previous), sizeof prev);
  return prev == 0 ? npos : prev - 1;
}

FLOE_DECL void entry_set::mark_removed(std::size_t ordinal) noexcept {
  char* flags = record(ordinal) + (detail::record_header_bytes - 1);
  auto const f = static_cast<std::uint8_t>(*flags);
  if ((f & (detail::flag_removal | detail::flag_removed)) != 0) return;
  *flags = static_cast<char>(f | detail::flag_removed);
  --live_;
}

// Puts record `ordinal` (the newest so far) into both indexes; `link`: also
// chains it to the key's record before it (false when re-indexing).
FLOE_DECL void entry_set::index(std::size_t ordinal) {
  auto const v = at(ordinal);
  std::uint32_t const value = static_cast<std::uint32_t>(ordinal + 1);
  if (!v.removal) slots_[identity_slot(v, identity_hash(v.bucket, v.key, v.etag, v.version_id))] = value;
  std::size_t const k = key_slot(bucket_id(v.bucket), v.key, key_hash(v.bucket, v.key));
  key_slots_[k] = value;
}

FLOE_DECL void entry_set::grow() {
  std::size_t const cap = slots_.empty() ? 16 : slots_.size() * 2;
  slots_.assign(cap, 0);
  key_slots_.assign(cap, 0);
  for (std::size_t o = 0; o < offsets_.size(); ++o) index(o);
}

FLOE_DECL std::size_t entry_set::add(entry_view const& e) {
  if ((offsets_.size() + 1) * 2 > slots_.size()) grow();
  std::uint32_t b = bucket_id(e.bucket);
  if (b == buckets_.size()) {
    buckets_.emplace_back(e.bucket);
    bucket_ids_.emplace(std::string(e.bucket), b);
  }
  detail::record_header h{};
  h.bucket = b;
  h.key_len = static_cast<std::uint16_t>(std::min<std::size_t>(e.key.size(), max_key_bytes));
  h.etag_len = static_cast<std::uint16_t>(std::min<std::size_t>(e.etag.size(), max_etag_bytes));
  h.version_len = static_cast<std::uint16_t>(std::min<std::size_t>(e.version_id.size(), max_version_id_bytes));
  h.checksum_len = static_cast<std::uint8_t>(std::min<std::size_t>(e.checksum.size(), max_checksum_bytes));
  h.sequencer_len = static_cast<std::uint8_t>(std::min<std::size_t>(e.sequencer.size(), max_sequencer_bytes));
  h.checksum_alg = e.checksum_algorithm ? static_cast<std::uint8_t>(static_cast<int>(*e.checksum_algorithm) + 1) : 0;
  h.flags = static_cast<std::uint8_t>((e.removal ? detail::flag_removal : 0) | (e.removed && !e.removal ? detail::flag_removed : 0));
  h.size = e.size;
  std::size_t const key_head = newest_of_key(e.bucket, e.key);
  h.previous = key_head == npos ? 0 : static_cast<std::uint32_t>(key_head + 1);
  std::size_t const bytes =
      detail::record_header_bytes + h.key_len + h.etag_len + h.version_len + h.checksum_len + h.sequencer_len;
  if (block_bytes - used_ < bytes) {
    blocks_.push_back(std::unique_ptr<char[]>(new char[block_bytes]));  // untouched until written
    used_ = 0;
  }
  std::size_t const ordinal = offsets_.size();
  offsets_.push_back(((blocks_.size() - 1) << block_shift) | used_);
  char* p = blocks_.back().get() + used_;
  std::memcpy(p, &h, detail::record_header_bytes);
  p += detail::record_header_bytes;
  for (std::string_view part : {e.key.substr(0, h.key_len), e.etag.substr(0, h.etag_len),
                                e.version_id.substr(0, h.version_len), e.checksum.substr(0, h.checksum_len),
                                e.sequencer.substr(0, h.sequencer_len)}) {
    std::memcpy(p, part.data(), part.size());
    p += part.size();
  }
  used_ += bytes;
  index(ordinal);
  if (!e.removal && !e.removed) ++live_;
  return ordinal;
}

FLOE_DECL std::size_t entry_set::insert(entry_view const& e) {
  if (!e.removal && find(e) != npos) return npos;
  return add(e);
}

FLOE_DECL std::size_t entry_set::insert(entry const& e) { return insert(view_of(e)); }

FLOE_DECL std::size_t entry_set::memory_bytes() const noexcept {
  std::size_t n = blocks_.size() * block_bytes + offsets_.capacity() * sizeof(std::uint64_t) +
                  (slots_.capacity() + key_slots_.capacity()) * sizeof(std::uint32_t) +
                  buckets_.capacity() * sizeof(std::string);
  for (auto const& b : buckets_) n += 2 * b.capacity() + 64;  // the name, its copy in the index, a node
  return n;
}

FLOE_DECL void entry_set::clear() noexcept {
  blocks_.clear();
  used_ = block_bytes;
  offsets_.clear();
  slots_.clear();
  key_slots_.clear();
  live_ = 0;
  buckets_.clear();
  bucket_ids_.clear();
}

FLOE_DECL void entry_set::reserve(std::size_t n) { offsets_.reserve(n); }

}  // namespace floe::ledger
