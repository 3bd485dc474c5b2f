#pragma once
#include <floe/retry/hedge.hpp>

#include <algorithm>
#include <cmath>

namespace floe::retry {

FLOE_DECL std::string ttfb_learner::key_of(std::string_view host, std::string_view operation, unsigned band) {
  std::string k;
  k.reserve(host.size() + operation.size() + 4);
  k.append(host).push_back('\n');
  k.append(operation).push_back('\n');
  k += std::to_string(band);
  return k;
}

FLOE_DECL ttfb_learner::ring const* ttfb_learner::find(std::string_view host, std::string_view operation, unsigned band) const {
  auto it = rings_.find(key_of(host, operation, band));
  return it == rings_.end() ? nullptr : &it->second;
}

FLOE_DECL void ttfb_learner::add(std::string_view host, std::string_view operation, unsigned band, duration ttfb,
                                 time_point now) {
  auto const cap = std::max(1u, p_->window);
  auto& r = rings_[key_of(host, operation, band)];
  if (r.s.size() < cap) {
    r.s.push_back({ttfb, now});
    return;
  }
  r.s[r.next] = {ttfb, now};
  r.next = (r.next + 1) % r.s.size();
}

FLOE_DECL unsigned ttfb_learner::recent(std::string_view host, std::string_view operation, unsigned band,
                                        time_point now) const {
  auto const* r = find(host, operation, band);
  if (!r) return 0;
  return static_cast<unsigned>(
      std::count_if(r->s.begin(), r->s.end(), [&](sample const& s) { return now - s.at <= p_->max_age; }));
}

FLOE_DECL ttfb_learner::duration ttfb_learner::delay(std::string_view host, std::string_view operation, unsigned band,
                                                     time_point now) const {
  duration const floor = p_->floor, ceiling = std::max<duration>(p_->ceiling, p_->floor);
  auto const* r = find(host, operation, band);
  auto& v = scratch_;
  v.clear();
  if (r) {
    v.reserve(r->s.size());
    for (auto const& s : r->s)
      if (now - s.at <= p_->max_age) v.push_back(s.ttfb);
  }
  // Fewer than 8 known (hedge_params' cold start): the start value.
  constexpr std::size_t cold_samples = 8;
  if (v.size() < std::min<std::size_t>(cold_samples, p_->min_samples))
    return std::clamp<duration>(p_->cold_start, floor, ceiling);
  if (v.size() < p_->min_samples) {
    // The cold start: a multiple of the slowest reply seen so far.
    auto const slowest = *std::max_element(v.begin(), v.end());
    double const k = std::max(1.0, p_->cold_factor);
    double const d = std::min(static_cast<double>(slowest.count()) * k, static_cast<double>(ceiling.count()));
    duration const low = std::min<duration>(std::max<duration>(floor, p_->cold_floor), ceiling);
    return std::clamp(duration(static_cast<duration::rep>(d)), low, ceiling);
  }
  // The nearest-rank percentile.
  double const q = std::clamp(p_->percentile, 0.0, 1.0);
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
  rank = std::clamp<std::size_t>(rank, 1, v.size());
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank - 1), v.end());
  return std::clamp(v[rank - 1], floor, ceiling);
}

FLOE_DECL ttfb_learner::duration ttfb_learner::late_bound(std::string_view host, std::string_view operation,
                                                          unsigned band, time_point now) const {
  auto const d = delay(host, operation, band, now);
  double const k = std::max(1.0, p_->late_factor);
  return duration(static_cast<duration::rep>(static_cast<double>(d.count()) * k));
}

}  // namespace floe::retry
