#pragma once
// A ledger entry (one registered object, or the removal of one) and the
// compact set a ledger keeps of them in memory. Pure.
//
// Identity: (bucket, key, ETag), plus the version id when there is one. The
// size, the sequencer and the checksum are carried along but are not part
// of the identity. See docs/ledger.md for what an ETag does and does not
// tell, and for removals and sequencers (state.hpp applies them).
//
// entry_set stores each record once, packed into 1 MiB blocks (a 26-byte
// header and the key, ETag, version id, checksum and sequencer bytes;
// bucket names are interned), with two open-addressing hash tables of
// 32-bit ordinals over them (by identity, and by bucket and key) and, in
// each record, the ordinal of the key's record before it: about 50 bytes
// plus the key's and ETag's length per entry, where a node-based set of
// strings takes well over 150. 100,000 entries with 60-byte keys take
// about 11 MiB.

#include <floe/checksum/algorithm.hpp>
#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace floe::ledger {

struct entry {
  std::string bucket;
  std::string key;
  std::string etag;        // without quotes; empty for a removal
  std::string version_id;  // empty: none
  std::uint64_t size = 0;
  /// The S3 event's sequencer (sequencer.hpp: upper-case hex); empty for
  /// an entry made without an event (ledger add, a reconcile listing).
  std::string sequencer{};
  /// The object's checksum, when its HEAD returned one (base64, as S3
  /// gives it).
  std::optional<checksum::algorithm> checksum_algorithm{};
  std::string checksum{};
  /// A removal: this key (this version, when version_id is set) is gone.
  /// No ETag, size 0, no checksum.
  bool removal = false;

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
  std::string_view sequencer{};
  std::optional<checksum::algorithm> checksum_algorithm{};
  std::string_view checksum{};
  bool removal = false;
  /// Held by an entry_set: a registration a later removal undid (not live).
  bool removed = false;

  entry to_entry() const {
    return {std::string(bucket), std::string(key), std::string(etag), std::string(version_id), size,
            std::string(sequencer), checksum_algorithm, std::string(checksum), removal};
  }
};

inline entry_view view_of(entry const& e) noexcept {
  return {e.bucket, e.key, e.etag, e.version_id, e.size, e.sequencer, e.checksum_algorithm, e.checksum, e.removal, false};
}

/// Bounds on an entry, in bytes.
inline constexpr std::size_t max_bucket_bytes = 255;
inline constexpr std::size_t max_key_bytes = 1024;
inline constexpr std::size_t max_etag_bytes = 1024;
inline constexpr std::size_t max_version_id_bytes = 1024;
inline constexpr std::size_t max_checksum_bytes = 255;

/// An entry a ledger can hold: bucket 1..255 bytes of UTF-8 without '/';
/// key 1..1024 bytes of UTF-8; ETag 1..1024 printable ASCII bytes without
/// '"' (a removal: none, size 0, no checksum); version id 0..1024 printable
/// ASCII bytes; sequencer empty or 1..64 upper-case hex digits; checksum
/// 1..255 printable ASCII bytes with its algorithm, or neither. Errors
/// (errc::invalid_argument) name the field and the object.
FLOE_DECL result<void> validate_entry(entry const& e);

/// "bucket/key (ETag e[, version v])", for messages.
FLOE_DECL std::string describe(entry const& e);
FLOE_DECL std::string describe(entry_view const& e);

/// The records of a ledger: registrations (live, or removed by a later
/// removal) and removals, numbered 0, 1, ... in the order they were added.
/// Rules (which removal undoes what, sequencers) are ledger_state's; this
/// is storage and lookup.
class entry_set {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// Adds registration `e` (which must be valid: validate_entry) and
  /// returns its ordinal, or returns npos when a live registration of the
  /// same identity is there already. A removal is always added.
  FLOE_DECL std::size_t insert(entry const& e);
  FLOE_DECL std::size_t insert(entry_view const& e);
  /// The ordinal of the live registration with e's identity, or npos.
  FLOE_DECL std::size_t find(entry const& e) const noexcept;
  FLOE_DECL std::size_t find(entry_view const& e) const noexcept;
  bool contains(entry const& e) const noexcept { return find(e) != npos; }
  bool contains(entry_view const& e) const noexcept { return find(e) != npos; }

  /// Marks registration `ordinal` removed (no longer live).
  FLOE_DECL void mark_removed(std::size_t ordinal) noexcept;
  /// The newest record of bucket/key (registration or removal), or npos;
  /// then each earlier one of that key, newest first, until npos.
  FLOE_DECL std::size_t newest_of_key(std::string_view bucket, std::string_view key) const noexcept;
  FLOE_DECL std::size_t previous_of_key(std::size_t ordinal) const noexcept;

  /// Records held (live, removed and removals), ordinals 0..size()-1.
  std::size_t size() const noexcept { return offsets_.size(); }
  bool empty() const noexcept { return offsets_.empty(); }
  /// Live registrations.
  std::size_t live() const noexcept { return live_; }
  FLOE_DECL entry_view at(std::size_t ordinal) const noexcept;

  /// Bytes held (buffer, indexes and bucket names), for the memory figures.
  FLOE_DECL std::size_t memory_bytes() const noexcept;
  FLOE_DECL void clear() noexcept;
  /// Room in the index for `n` entries without growing it.
  FLOE_DECL void reserve(std::size_t n);

 private:
  FLOE_DECL std::size_t add(entry_view const& e);
  // The identity slot holding e's newest registration (live or not), or
  // the empty slot where it would go; -1 before the first record.
  FLOE_DECL std::size_t identity_slot(entry_view const& e, std::uint64_t hash) const noexcept;
  FLOE_DECL std::size_t key_slot(std::uint32_t bucket, std::string_view key, std::uint64_t hash) const noexcept;
  FLOE_DECL std::uint32_t bucket_id(std::string_view bucket) const noexcept;  // bucket count when unknown
  FLOE_DECL void grow();
  FLOE_DECL void index(std::size_t ordinal);

  // Records are packed into blocks of block_bytes that are never moved or
  // resized (no doubling: at most one partly used block is spare); a record
  // never straddles two blocks.
  static constexpr std::size_t block_shift = 20;
  static constexpr std::size_t block_bytes = std::size_t{1} << block_shift;
  char* record(std::size_t ordinal) const noexcept {
    std::uint64_t const o = offsets_[ordinal];
    return blocks_[o >> block_shift].get() + (o & (block_bytes - 1));
  }
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t used_ = block_bytes;      // bytes used in the last block (full: none yet)
  std::vector<std::uint64_t> offsets_;  // ordinal -> block << block_shift | position
  std::vector<std::uint32_t> slots_;    // by identity: newest registration's ordinal + 1, 0 = empty
  std::vector<std::uint32_t> key_slots_;  // by bucket and key: newest record's ordinal + 1, 0 = empty
  std::size_t live_ = 0;
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
FLOE_DECL std::uint64_t key_hash(std::string_view bucket, std::string_view key) noexcept;

}  // namespace floe::ledger

#if defined(FLOE_HEADER_ONLY)
#include <floe/ledger/impl/entry.ipp>
#endif
