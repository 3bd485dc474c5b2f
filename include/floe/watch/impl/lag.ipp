#pragma once
#include <floe/watch/lag.hpp>

#include <floe/credentials/credentials.hpp>

#include <algorithm>

namespace floe::watch {

FLOE_DECL result<std::chrono::sys_time<std::chrono::milliseconds>> parse_event_time(std::string_view text) {
  auto whole = credentials::parse_iso8601(text);
  // moto writes its eventTime without a zone: taken as UTC.
  if (!whole) {
    auto zoned = credentials::parse_iso8601(std::string(text) + "Z");
    if (!zoned) return whole.error();
    whole = zoned;
  }
  std::chrono::milliseconds fraction{0};
  // The fraction, if any: digits after the seconds' '.', before the zone.
  auto const t = text.find_first_of("Tt ");
  auto const dot = text.find('.', t == std::string_view::npos ? 0 : t);
  if (dot != std::string_view::npos) {
    long long scale = 100;
    for (std::size_t i = dot + 1; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      fraction += std::chrono::milliseconds((text[i] - '0') * scale);
      scale /= 10;
    }
  }
  return std::chrono::time_point_cast<std::chrono::milliseconds>(*whole) + fraction;
}

FLOE_DECL void lag_tracker::received(identity const& id, wall_time event_time) {
  auto [it, fresh] = objects_.try_emplace(id, state{event_time, std::nullopt});
  if (!fresh) {
    it->second.event_time = std::min(it->second.event_time, event_time);
    it->second.forget_at.reset();
  }
}

FLOE_DECL void lag_tracker::settled(identity const& id) { objects_.erase(id); }

FLOE_DECL void lag_tracker::failed(identity const& id, steady now, std::chrono::seconds backoff) {
  auto it = objects_.find(id);
  if (it != objects_.end()) it->second.forget_at = now + backoff + slack_;
}

FLOE_DECL std::optional<std::chrono::milliseconds> lag_tracker::oldest_age(wall_time wall_now, steady now) {
  std::erase_if(objects_, [&](auto const& kv) { return kv.second.forget_at && *kv.second.forget_at <= now; });
  std::optional<wall_time> oldest;
  for (auto const& [id, s] : objects_)
    if (!oldest || s.event_time < *oldest) oldest = s.event_time;
  if (!oldest) return std::nullopt;
  return std::max(std::chrono::milliseconds(0), wall_now - *oldest);
}

}  // namespace floe::watch
