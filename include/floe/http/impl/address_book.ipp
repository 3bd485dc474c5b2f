#pragma once
#include <floe/http/address_book.hpp>

#include <algorithm>

namespace floe::http::detail {

FLOE_DECL address_book::entry const* address_book::find(std::string_view host, std::uint16_t port) const noexcept {
  for (auto const& e : entries_)
    if (e.port == port && e.host == host) return &e;
  return nullptr;
}

FLOE_DECL bool address_book::needs_resolve(std::string_view host, std::uint16_t port, time_point now) const {
  auto const* e = find(host, port);
  if (e == nullptr || !e->ever_resolved) return true;
  if (now - e->resolved_at >= p_.ttl) return true;
  for (auto const& s : e->slots)
    if (!s.retired && s.benched_until <= now) return false;
  return true;  // nothing usable, or every address benched
}

FLOE_DECL void address_book::resolved(std::string_view host, std::uint16_t port, std::span<address const> addrs,
                                      time_point now) {
  auto* e = find(host, port);
  if (e == nullptr) {
    entries_.push_back(entry{std::string(host), port, {}, {}, false});
    e = &entries_.back();
  }
  e->resolved_at = now;
  e->ever_resolved = true;
  if (addrs.empty()) return;  // keep what is known
  std::vector<slot> next;
  next.reserve(addrs.size() + e->slots.size());
  for (auto const& a : addrs) {
    if (std::any_of(next.begin(), next.end(), [&](slot const& s) { return s.addr == a; })) continue;
    if (auto* old = find(*e, a)) {
      next.push_back(*old);
      next.back().retired = false;
    } else {
      next.push_back(slot{a});
    }
  }
  for (auto const& s : e->slots) {  // gone from the answer but still open: counted until closed
    if (s.open == 0) continue;
    if (std::any_of(next.begin(), next.end(), [&](slot const& n) { return n.addr == s.addr; })) continue;
    next.push_back(s);
    next.back().retired = true;
  }
  e->slots = std::move(next);
}

FLOE_DECL std::optional<address_book::address> address_book::pick(std::string_view host, std::uint16_t port,
                                                                  time_point now, std::span<address const> skip) {
  auto* e = find(host, port);
  if (e == nullptr) return std::nullopt;
  slot* best = nullptr;
  bool best_free = false;
  for (auto& s : e->slots) {
    if (s.retired || std::find(skip.begin(), skip.end(), s.addr) != skip.end()) continue;
    bool const free = s.benched_until <= now;
    if (best == nullptr || (free && !best_free)) {
      best = &s;
      best_free = free;
      continue;
    }
    if (free != best_free) continue;
    if (free) {
      if (s.open < best->open || (s.open == best->open && s.last_picked < best->last_picked)) best = &s;
    } else if (s.benched_until < best->benched_until) {
      best = &s;
    }
  }
  if (best == nullptr) return std::nullopt;
  ++best->open;
  ++best->picked;
  best->last_picked = now;
  return best->addr;
}

FLOE_DECL void address_book::release(std::string_view host, std::uint16_t port, address const& a) noexcept {
  auto* e = find(host, port);
  if (e == nullptr) return;
  auto* s = find(*e, a);
  if (s == nullptr || s->open == 0) return;
  --s->open;
  if (s->open == 0 && s->retired) std::erase_if(e->slots, [&](slot const& x) { return &x == s; });
}

FLOE_DECL void address_book::failed(std::string_view host, std::uint16_t port, address const& a,
                                    address_failure why, time_point now) {
  (void)why;  // every kind benches alike; the kind is for the caller's words
  auto* e = find(host, port);
  if (e == nullptr) return;
  auto* s = find(*e, a);
  if (s == nullptr) return;
  ++s->failures;
  auto wait = p_.bench;
  for (unsigned i = 1; i < s->failures && wait < p_.bench_max; ++i) wait *= 2;
  if (wait > p_.bench_max) wait = p_.bench_max;
  s->benched_until = now + wait;
}

FLOE_DECL void address_book::succeeded(std::string_view host, std::uint16_t port, address const& a) noexcept {
  auto* e = find(host, port);
  if (e == nullptr) return;
  auto* s = find(*e, a);
  if (s == nullptr) return;
  s->failures = 0;
  s->benched_until = {};
}

FLOE_DECL std::vector<address_report> address_book::report(std::string_view host, std::uint16_t port,
                                                           time_point now) const {
  std::vector<address_report> out;
  auto const* e = find(host, port);
  if (e == nullptr) return out;
  for (auto const& s : e->slots)
    out.push_back(address_report{s.addr, s.open, s.failures, s.benched_until > now, s.benched_until, s.picked});
  return out;
}

}  // namespace floe::http::detail
