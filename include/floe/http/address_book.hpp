#pragma once
// Every address of a store. A client keeps, per (host, port) it connects
// to (the proxy's when one applies), every address the name resolved to,
// and spreads its new connections over them: the address with the fewest
// open connections first, the least recently picked among equals. An
// address that refuses, resets or stalls is benched, for a back-off that
// doubles with each failure in a row, and the name is resolved again when
// its addresses are older than the TTL or every one is benched.
//
// Pure: no clock, no socket, no resolver. Every decision takes the time
// from its caller (connect.ipp passes steady_clock::now(); unit tests a
// fake clock). Not thread-safe: a client uses it on its executor only.

#include <floe/config.hpp>

#include <boost/asio/ip/address.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace floe::http {

/// How a client caches and benches the addresses of the names it connects
/// to (client_config::addresses).
struct address_params {
  /// Resolved addresses are used this long, then the name is resolved again
  /// at the next new connection (AWS's S3 names have a TTL of 5 s).
  std::chrono::milliseconds ttl{5'000};
  /// An address that refused, reset or stalled is left out of new
  /// connections for `bench`, doubled at each failure in a row, at most
  /// `bench_max`. A reply received on a connection to it clears the count.
  std::chrono::milliseconds bench{1'000};
  std::chrono::milliseconds bench_max{60'000};
};

/// Why an address was benched.
enum class address_failure : std::uint8_t {
  refused,  // the TCP connection was refused (or the host unreachable)
  reset,    // the connection was reset or closed before any reply byte
  stalled,  // a connect, handshake or reply-head timeout with nothing received
};

/// One address of a name as a client sees it (client::addresses()).
struct address_report {
  boost::asio::ip::address address;
  std::size_t open = 0;     // connections open or opening to it
  unsigned failures = 0;    // in a row, since the last reply through it
  bool benched = false;     // at the time asked
  std::chrono::steady_clock::time_point benched_until{};
  std::uint64_t picked = 0; // connections opened (or tried) to it, ever
};

namespace detail {

class address_book {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using address = boost::asio::ip::address;

  explicit address_book(address_params p = {}) : p_(p) {}

  address_params const& params() const noexcept { return p_; }

  /// Whether the name must be resolved before a new connection at `now`:
  /// never resolved, resolved longer than the TTL ago, or every address
  /// benched.
  FLOE_DECL bool needs_resolve(std::string_view host, std::uint16_t port, time_point now) const;

  /// A resolution's answer, in its order. Addresses known before keep their
  /// counts and bench; those gone are forgotten once no connection uses them.
  /// An empty answer keeps the addresses known (stale beats none) and only
  /// restarts the TTL.
  FLOE_DECL void resolved(std::string_view host, std::uint16_t port, std::span<address const> addrs, time_point now);

  /// The address for a new connection, counted as open from now on (give
  /// it back with release()): the unbenched one with the fewest open
  /// connections, the least recently picked among equals; when every one is
  /// benched, the one whose bench ends first. Addresses in `skip` (tried
  /// already) are not picked. None: nothing known, or all skipped.
  FLOE_DECL std::optional<address> pick(std::string_view host, std::uint16_t port, time_point now,
                                        std::span<address const> skip = {});

  /// A connection to `a` (counted by pick) closed or was never made.
  FLOE_DECL void release(std::string_view host, std::uint16_t port, address const& a) noexcept;

  /// `a` refused, reset or stalled at `now`: benched for the back-off.
  FLOE_DECL void failed(std::string_view host, std::uint16_t port, address const& a, address_failure why,
                        time_point now);

  /// A reply came through `a`: its failure count and bench are cleared.
  FLOE_DECL void succeeded(std::string_view host, std::uint16_t port, address const& a) noexcept;

  /// The addresses of (host, port), in resolution order (empty if unknown).
  FLOE_DECL std::vector<address_report> report(std::string_view host, std::uint16_t port, time_point now) const;

 private:
  struct slot {
    address addr;
    std::size_t open = 0;
    unsigned failures = 0;
    time_point benched_until{};
    time_point last_picked{};
    std::uint64_t picked = 0;
    bool retired = false;  // no longer in the name's answer; kept while open
  };
  struct entry {
    std::string host;
    std::uint16_t port = 0;
    std::vector<slot> slots;
    time_point resolved_at{};
    bool ever_resolved = false;
  };

  FLOE_DECL entry const* find(std::string_view host, std::uint16_t port) const noexcept;
  entry* find(std::string_view host, std::uint16_t port) noexcept {
    return const_cast<entry*>(static_cast<address_book const*>(this)->find(host, port));
  }
  static slot* find(entry& e, address const& a) noexcept {
    for (auto& s : e.slots)
      if (s.addr == a) return &s;
    return nullptr;
  }

  address_params p_;
  std::vector<entry> entries_;
};

}  // namespace detail
}  // namespace floe::http

#if defined(FLOE_HEADER_ONLY)
#include <floe/http/impl/address_book.ipp>
#endif
