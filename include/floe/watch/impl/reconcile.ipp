#pragma once
#include <floe/watch/reconcile.hpp>

#include <algorithm>

namespace floe::watch {

FLOE_DECL std::vector<reconcile_target> reconcile_targets(std::vector<pattern> const& patterns) {
  std::vector<reconcile_target> all;
  for (auto const& p : patterns) all.push_back({p.bucket(), p.literal_prefix()});
  std::vector<reconcile_target> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    bool covered = false;
    for (std::size_t j = 0; j < all.size() && !covered; ++j) {
      if (i == j || all[j].bucket != all[i].bucket || !all[i].prefix.starts_with(all[j].prefix)) continue;
      // j covers i; of two equal prefixes the first one stays.
      covered = all[j].prefix != all[i].prefix || j < i;
    }
    if (!covered) out.push_back(all[i]);
  }
  return out;
}

FLOE_DECL std::vector<object_work> reconcile_page(std::string const& bucket, std::vector<listed_object> const& page,
                                                  object_filter const& filter, known_fn const& known) {
  std::vector<object_work> out;
  for (auto const& o : page) {
    if (filter.is_own_ledger(bucket, o.key) || !matches_any(filter.patterns, bucket, o.key)) continue;
    std::string etag = o.etag;
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
    if (known && known(bucket, o.key, etag)) continue;
    object_work w;
    w.bucket = bucket;
    w.key = o.key;
    w.etag = std::move(etag);
    w.size = o.size;
    w.event_name = "reconcile";
    out.push_back(std::move(w));
  }
  return out;
}

namespace detail {
inline std::chrono::milliseconds scaled(std::chrono::milliseconds period, double factor) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(static_cast<double>(period.count()) * factor));
}
}  // namespace detail

FLOE_DECL reconcile_schedule::reconcile_schedule(std::chrono::milliseconds period, clock::time_point start,
                                                 double random01)
    : period_(std::max(period, std::chrono::milliseconds(1))),
      next_(start + detail::scaled(period_, std::clamp(random01, 0.0, 1.0))) {}

FLOE_DECL void reconcile_schedule::started(clock::time_point now, double random01) {
  next_ = now + detail::scaled(period_, 0.75 + 0.5 * std::clamp(random01, 0.0, 1.0));
}

}  // namespace floe::watch
