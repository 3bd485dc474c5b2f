#pragma once
#include <floe/watch/release.hpp>

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>

namespace floe::watch {

FLOE_DECL std::chrono::seconds backoff_visibility(failure_backoff const& b, std::uint64_t receive_count) noexcept {
  constexpr std::chrono::seconds sqs_max{43200};
  auto const first = std::clamp(b.first, std::chrono::seconds(1), sqs_max);
  auto const max = std::clamp(b.max, first, sqs_max);
  auto v = first;
  for (std::uint64_t n = 1; n < receive_count && v < max; ++n) v *= 2;
  return std::min(v, max);
}

namespace detail {

inline bool names_failed_object(batch const& b, std::size_t m) {
  auto const& objects = b.plans()[m].objects;
  return std::any_of(objects.begin(), objects.end(),
                     [&](std::size_t o) { return !settled_ok(b.objects()[o].outcome); });
}

}  // namespace detail

FLOE_DECL std::vector<release_entry> plan_release(batch const& b, std::vector<bool> const& deleted, bool stopping,
                                                  failure_backoff const& backoff) {
  std::vector<release_entry> out;
  std::set<std::string_view> seen;
  for (std::size_t m = 0; m < b.messages().size(); ++m) {
    if (m < deleted.size() && deleted[m]) continue;
    auto const& msg = b.messages()[m];
    if (msg.receipt_handle.empty() || seen.contains(msg.receipt_handle)) continue;
    release_entry e{msg.receipt_handle, std::chrono::seconds(0), release_kind::hand_back, msg.message_id,
                    msg.receive_count};
    if (!stopping) {
      if (b.plans()[m].verdict != message_verdict::work || !detail::names_failed_object(b, m)) continue;
      e.kind = release_kind::back_off;
      e.visibility = backoff_visibility(backoff, msg.receive_count);
    }
    seen.insert(msg.receipt_handle);
    out.push_back(std::move(e));
  }
  return out;
}

FLOE_DECL settled_release settle_backoffs(std::vector<release_entry> entries, visibility_keeper const& keeper,
                                          visibility_keeper::time_point received, visibility_keeper::time_point now) {
  using std::chrono::seconds;
  auto up = [](visibility_keeper::clock::duration d) {
    return std::max(seconds(1), std::chrono::ceil<seconds>(d));
  };
  settled_release out;
  for (auto& e : entries) {
    if (e.kind != release_kind::back_off) {
      out.send.push_back(std::move(e));
      continue;
    }
    auto const target = received + e.visibility;
    auto const until = keeper.expires(e.receipt_handle);
    // Held and not lapsed: invisible until the queue handed it out plus the
    // timeout at least (every receive and extension asks for that), and
    // until the keeper's count.
    if (until && *until > now && (e.visibility <= keeper.timeout() || *until >= target)) {
      e.visibility = up(std::max(*until, target) - now);
      out.in_place.push_back(std::move(e));
      continue;
    }
    e.visibility = up(target - now);
    out.send.push_back(std::move(e));
  }
  return out;
}

FLOE_DECL std::vector<release_entry> hand_back_all(std::vector<std::string> const& receipt_handles) {
  std::vector<release_entry> out;
  std::set<std::string_view> seen;
  for (auto const& h : receipt_handles) {
    if (h.empty() || !seen.insert(h).second) continue;
    out.push_back({h, std::chrono::seconds(0), release_kind::hand_back, {}, 0});
  }
  return out;
}

FLOE_DECL std::vector<release_request> release_requests(std::string const& queue_url,
                                                        std::vector<release_entry> const& entries) {
  std::vector<release_request> out;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (out.empty() || out.back().entries.size() == sqs::max_batch_entries) {
      out.emplace_back();
      out.back().params.queue_url = queue_url;
    }
    auto& r = out.back();
    r.params.entries.push_back({std::to_string(r.entries.size()), entries[i].receipt_handle, entries[i].visibility});
    r.entries.push_back(i);
  }
  return out;
}

FLOE_DECL release_outcome on_release_reply(release_request const& req, sqs::batch_result const& r) {
  auto position = [&](std::string_view id) -> std::optional<std::size_t> {
    std::size_t v = 0;
    auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
    if (ec != std::errc{} || p != id.data() + id.size() || v >= req.entries.size()) return std::nullopt;
    return v;
  };
  release_outcome out;
  std::vector<bool> answered(req.entries.size(), false);
  for (auto const& id : r.successful)
    if (auto v = position(id); v && !answered[*v]) {
      answered[*v] = true;
      out.released.push_back(req.entries[*v]);
    }
  for (auto const& f : r.failed) {
    auto v = position(f.id);
    if (v) {
      if (answered[*v]) continue;
      answered[*v] = true;
    }
    if (f.code == "ReceiptHandleIsInvalid") ++out.gone;
    else out.failures.push_back(f.code + ": " + f.message);
  }
  for (std::size_t i = 0; i < answered.size(); ++i)
    if (!answered[i]) out.failures.push_back("entry " + std::to_string(i) + ": not in the reply");
  return out;
}

}  // namespace floe::watch
