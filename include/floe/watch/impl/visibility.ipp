#pragma once
#include <floe/watch/visibility.hpp>

#include <algorithm>
#include <charconv>
#include <string_view>

namespace floe::watch {

FLOE_DECL visibility_keeper::visibility_keeper(std::chrono::seconds timeout,
                                               std::optional<std::chrono::milliseconds> margin)
    : timeout_(std::max(timeout, std::chrono::seconds(2))) {
  std::chrono::milliseconds const half = timeout_ / 2;
  margin_ = margin && *margin > std::chrono::milliseconds(0) ? std::min(*margin, half) : half;
}

FLOE_DECL visibility_keeper::entry* visibility_keeper::find(std::string const& h) noexcept {
  for (auto& e : held_)
    if (e.handle == h) return &e;
  return nullptr;
}

FLOE_DECL void visibility_keeper::hold(std::string const& receipt_handle, time_point sent) {
  if (receipt_handle.empty()) return;
  if (auto* e = find(receipt_handle)) {
    e->expires = sent + timeout_;
    return;
  }
  held_.push_back({receipt_handle, sent + timeout_, false});
}

FLOE_DECL void visibility_keeper::release(std::string const& receipt_handle) {
  std::erase_if(held_, [&](entry const& e) { return e.handle == receipt_handle; });
}

FLOE_DECL void visibility_keeper::release_all() { held_.clear(); }

FLOE_DECL bool visibility_keeper::holds(std::string const& receipt_handle) const noexcept {
  return std::any_of(held_.begin(), held_.end(), [&](entry const& e) { return e.handle == receipt_handle; });
}

FLOE_DECL std::optional<visibility_keeper::time_point> visibility_keeper::next_due() const noexcept {
  std::optional<time_point> first;
  for (auto const& e : held_) {
    if (e.in_flight) continue;
    auto const at = e.expires - margin_;
    if (!first || at < *first) first = at;
  }
  return first;
}

FLOE_DECL std::vector<std::string> visibility_keeper::due(time_point now) {
  std::vector<std::string> out;
  for (auto& e : held_) {
    if (out.size() == sqs::max_batch_entries) break;
    if (!e.in_flight && e.expires - margin_ <= now) {
      e.in_flight = true;
      out.push_back(e.handle);
    }
  }
  return out;
}

FLOE_DECL sqs::change_message_visibility_batch_params visibility_keeper::params(
    std::string const& queue_url, std::vector<std::string> const& handles) const {
  sqs::change_message_visibility_batch_params p;
  p.queue_url = queue_url;
  for (std::size_t i = 0; i < handles.size(); ++i) p.entries.push_back({std::to_string(i), handles[i], timeout_});
  return p;
}

FLOE_DECL std::size_t visibility_keeper::on_reply(std::vector<std::string> const& handles, time_point sent,
                                                  sqs::batch_result const& r) {
  auto handle_of = [&](std::string_view id) -> std::string const* {
    std::size_t v = 0;
    auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
    if (ec != std::errc{} || p != id.data() + id.size() || v >= handles.size()) return nullptr;
    return &handles[v];
  };
  std::size_t extended = 0;
  for (auto const& id : r.successful)
    if (auto const* h = handle_of(id))
      if (auto* e = find(*h)) {
        e->expires = sent + timeout_;
        e->in_flight = false;
        ++extended;
      }
  for (auto const& f : r.failed)
    if (auto const* h = handle_of(f.id)) {
      if (f.code == "ReceiptHandleIsInvalid") release(*h);
      else if (auto* e = find(*h)) e->in_flight = false;
    }
  // Not mentioned: due again.
  for (auto const& h : handles)
    if (auto* e = find(h)) e->in_flight = false;
  return extended;
}

FLOE_DECL void visibility_keeper::on_error(std::vector<std::string> const& handles) {
  for (auto const& h : handles)
    if (auto* e = find(h)) e->in_flight = false;
}

FLOE_DECL std::optional<visibility_keeper::time_point> visibility_keeper::expires(
    std::string const& receipt_handle) const noexcept {
  for (auto const& e : held_)
    if (e.handle == receipt_handle) return e.expires;
  return std::nullopt;
}

}  // namespace floe::watch
