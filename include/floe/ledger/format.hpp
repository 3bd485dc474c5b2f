#pragma once
// The ledger's objects on S3 and their formats (docs/ledger.md). Pure.
//
// Under the ledger's prefix P (empty, or ending in '/'):
//   P_log/00000000000000000000.json        commit 0: the genesis, no entries
//   P_log/<20-digit n>.json                commit n, created with If-None-Match: *
//   P_checkpoints/<20-digit n>.ndjson      every entry of commits 0..n
//   P_last_checkpoint.json                 a hint: the number of a recent checkpoint
//
// A commit (one JSON object):
//   {"floe_ledger":1,"kind":"commit","commit":7,"write_id":"...","writer":"...",
//    "time":"2025-01-02T03:04:05Z","entries":[["bucket","key","etag",123],
//    ["bucket","key","etag",123,"version-id"],...]}
// Format 2 (written only when a record needs it) adds, per registration,
// an object as the fifth member, and removals:
//   ["bucket","key","etag",123,{"version_id":"v","sequencer":"0055AED6DCD90281E5",
//     "checksum":{"algorithm":"CRC32C","value":"yZRlqg=="}}]
//   {"removal":["bucket","key"],"version_id":"v","sequencer":"0055AED6DCD9028200"}
// A checkpoint (JSON lines): a header line
//   {"floe_ledger":1,"kind":"checkpoint","commit":100,"entries":2}
// then one line per entry, as in a commit, then nothing.
// The hint: {"floe_ledger":1,"kind":"hint","checkpoint":100}.
//
// Readers are strict about what they need (the version, the kind, the
// numbers, each entry) and ignore members they do not know.

#include <floe/config.hpp>
#include <floe/ledger/entry.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::ledger {

/// The newest format this reader knows. Writers write 1 unless a record
/// needs 2 (a sequencer, a checksum, a removal), so that a ledger that
/// uses none of them stays readable by floe releases that know only 1.
inline constexpr int format_version = 2;
/// Bounds on what is read and written.
inline constexpr std::size_t max_commit_bytes = 32ull << 20;
inline constexpr std::size_t max_checkpoint_line_bytes = 8 * 1024;
inline constexpr std::size_t max_write_id_bytes = 128;
inline constexpr std::size_t max_writer_bytes = 1024;

/// "P" normalised: "" or ending in '/'; no leading '/'. Errors
/// (invalid_argument): longer than 900 bytes with its final '/', not
/// UTF-8, "//" in it. A normalised prefix normalises to itself.
FLOE_DECL result<std::string> normalize_prefix(std::string_view prefix);

FLOE_DECL std::string commit_key(std::string_view prefix, std::uint64_t n);
FLOE_DECL std::string checkpoint_key(std::string_view prefix, std::uint64_t n);
FLOE_DECL std::string hint_key(std::string_view prefix);
/// The folders (for listings in verify).
FLOE_DECL std::string log_folder(std::string_view prefix);
FLOE_DECL std::string checkpoint_folder(std::string_view prefix);
/// The commit number in a key's last segment ("<20 digits>.json"), or
/// nullopt for any other name.
FLOE_DECL std::optional<std::uint64_t> number_of(std::string_view name, std::string_view suffix);

struct commit {
  std::uint64_t number = 0;
  std::string write_id;
  std::string writer;
  std::string time;  // ISO 8601 UTC, as written
  std::vector<entry> entries;
};

FLOE_DECL std::string encode_commit(commit const& c);
/// Strict where it matters (see above). Errors: errc::malformed_reply with
/// the reason; errc::reply_too_large above max_commit_bytes.
FLOE_DECL result<commit> decode_commit(std::string_view body);

/// "2025-01-02T03:04:05Z" from seconds since the epoch.
FLOE_DECL std::string iso8601_utc(std::int64_t unix_seconds);

/// Appends one record: a registration as a JSON array, a removal as an
/// object.
FLOE_DECL void append_entry(std::string& out, entry_view const& e);
/// The format a commit of these records is written in: 1, or 2 when one
/// of them needs it.
FLOE_DECL int format_of(std::vector<entry> const& entries) noexcept;
/// The whole checkpoint covering commits 0..n with these records (live
/// registrations and removals; removed registrations are folded away).
FLOE_DECL std::string encode_checkpoint(std::uint64_t n, entry_set const& entries);

/// Reads a checkpoint piece by piece (as a streaming GET hands it over),
/// holding one line at a time. Call feed() for each piece, then finish().
/// Each entry goes to the sink, which answers false for an entry it
/// already had (an error: "appears twice").
class checkpoint_reader {
 public:
  using sink = std::function<bool(entry_view const&)>;
  /// `number`: the commit the checkpoint's name says it covers.
  FLOE_DECL checkpoint_reader(std::uint64_t number, sink on_entry);
  FLOE_DECL ~checkpoint_reader();
  checkpoint_reader(checkpoint_reader const&) = delete;
  checkpoint_reader& operator=(checkpoint_reader const&) = delete;

  FLOE_DECL result<void> feed(std::string_view piece);
  FLOE_DECL result<void> finish();
  /// Entries the header announced (valid once the header line was read).
  std::uint64_t announced() const noexcept { return announced_; }
  std::uint64_t read() const noexcept { return read_; }

 private:
  result<void> line(std::string_view text);
  result<void> fail(std::string why);

  struct parser;
  std::unique_ptr<parser> parser_;
  std::uint64_t number_;
  sink sink_;
  std::string pending_;  // an incomplete line
  bool header_ = false;
  bool failed_ = false;
  std::uint64_t announced_ = 0;
  std::uint64_t read_ = 0;
  std::uint64_t version_ = 0;
  std::uint64_t line_no_ = 0;
};

FLOE_DECL std::string encode_hint(std::uint64_t checkpoint);
/// nullopt for anything that is not a hint (a hint is only advice).
FLOE_DECL std::optional<std::uint64_t> decode_hint(std::string_view body) noexcept;

}  // namespace floe::ledger

#if defined(FLOE_HEADER_ONLY)
#include <floe/ledger/impl/format.ipp>
#endif
