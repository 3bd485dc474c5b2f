#pragma once
// A ledger entry (one registered object) and the compact set a ledger keeps
// of them in memory. Pure.
//
// Identity: (bucket, key, ETag), plus the version id when there is one. The
// size is carried along (it is what HeadObject said) but is not part of the
// identity. See docs/ledger.md for what an ETag does and does not tell.
//
// entry_set stores each entry once, packed into 1 MiB blocks (a 20-byte
// header and the key, ETag and version id bytes; bucket names are
// interned), with an open-addressing hash table of 32-bit ordinals over
// them: about 40 bytes plus the key's and ETag's length per entry, where a
// node-based set of strings takes well over 150. 100,000 entries with
// 60-byte keys take about 10 MiB.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace floe::ledger {

struct entry {
  std::string bucket;
  std::string key;
  std::string etag;        // without quotes
  std::string version_id;  // empty: none
  std::uint64_t size = 0;

  /// Same identity (size not compared).
  friend bool same_identity(entry const& a, entry const& b) noexcept {
    return a.bucket == b.bucket && a.key == b.key && a.etag == b.etag && a.version_id == b.version_id;
  }
  friend bool operator==(entry const&, entry const&) = default;
};

/// A view of an entry held by an entry_set (valid until the set changes).
struct entry_view {
  std::string_view bucket;
  std::string_view key;
  std::string_view etag;
  std::string_view version_id;
  std::uint64_t size = 0;

  entry to_entry() const { return {std::string(bucket), std::string(key), std::string(etag), std::string(version_id), size}; }
};

/// Bounds on an entry, in bytes.
inline constexpr std::size_t max_bucket_bytes = 255;
inline constexpr std::size_t max_key_bytes = 1024;
inline constexpr std::size_t max_etag_bytes = 1024;
inline constexpr std::size_t max_version_id_bytes = 1024;

/// An entry a ledger can hold: bucket 1..255 bytes of UTF-8 without '/';
/// key 1..1024 bytes of UTF-8; ETag 1..1024 printable ASCII bytes without
/// '"'; version id 0..1024 printable ASCII bytes. Errors
/// (errc::invalid_argument) name the field and the object.
FLOE_DECL result<void> validate_entry(entry const& e);

/// "bucket/key (ETag e[, version v])", for messages.
FLOE_DECL std::string describe(entry const& e);
FLOE_DECL std::string describe(entry_view const& e);

class entry_set {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// Adds `e` (which must be valid: validate_entry) and returns its ordinal,
  /// or returns npos when an entry of the same identity is already there.
  FLOE_DECL std::size_t insert(entry const& e);
  FLOE_DECL std::size_t insert(entry_view const& e);
  /// The ordinal of the entry with e's identity, or npos.
  FLOE_DECL std::size_t find(entry const& e) const noexcept;
  FLOE_DECL std::size_t find(entry_view const& e) const noexcept;
  bool contains(entry const& e) const noexcept { return find(e) != npos; }

  /// Entries are numbered 0, 1, ... in the order they were inserted.
  std::size_t size() const noexcept { return offsets_.size(); }
  bool empty() const noexcept { return offsets_.empty(); }
  FLOE_DECL entry_view at(std::size_t ordinal) const noexcept;

  /// Bytes held (buffer, index and bucket names), for the memory figures.
  FLOE_DECL std::size_t memory_bytes() const noexcept;
  FLOE_DECL void clear() noexcept;
  /// Room in the index for `n` entries without growing it.
  FLOE_DECL void reserve(std::size_t n);

 private:
  FLOE_DECL std::size_t insert_parts(std::string_view bucket, std::string_view key, std::string_view etag,
                                     std::string_view version_id, std::uint64_t size);
  FLOE_DECL std::size_t find_parts(std::string_view bucket, std::string_view key, std::string_view etag,
                                   std::string_view version_id, std::uint64_t hash) const noexcept;
  FLOE_DECL std::uint32_t bucket_id(std::string_view bucket) const noexcept;  // bucket count when unknown
  FLOE_DECL void grow();

  // Records are packed into blocks of block_bytes that are never moved or
  // resized (no doubling: at most one partly used block is spare); a record
  // never straddles two blocks.
  static constexpr std::size_t block_shift = 20;
  static constexpr std::size_t block_bytes = std::size_t{1} << block_shift;
  char const* record(std::size_t ordinal) const noexcept {
    std::uint64_t const o = offsets_[ordinal];
    return blocks_[o >> block_shift].get() + (o & (block_bytes - 1));
  }
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t used_ = block_bytes;      // bytes used in the last block (full: none yet)
  std::vector<std::uint64_t> offsets_;  // ordinal -> block << block_shift | position
  std::vector<std::uint32_t> slots_;    // open addressing: ordinal + 1, 0 = empty
  struct name_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> buckets_;  // interned bucket names, by id
  std::unordered_map<std::string, std::uint32_t, name_hash, std::equal_to<>> bucket_ids_;
};

/// The 64-bit hash of an identity (stable within a process only).
FLOE_DECL std::uint64_t identity_hash(std::string_view bucket, std::string_view key, std::string_view etag,
                                      std::string_view version_id) noexcept;

}  // namespace floe::ledger

#if defined(FLOE_HEADER_ONLY)
#include <floe/ledger/impl/entry.ipp>
#endif
