#pragma once
#include <floe/watch/deletion.hpp>

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>
#include <utility>

namespace floe::watch {

FLOE_DECL deletion::deletion(std::vector<std::string> receipt_handles, unsigned max_attempts)
    : max_attempts_(max_attempts == 0 ? 1 : max_attempts) {
  std::set<std::string> seen;
  for (auto& h : receipt_handles)
    if (!h.empty() && seen.insert(h).second) handles_.push_back(std::move(h));
  states_.assign(handles_.size(), state::waiting);
  attempts_.assign(handles_.size(), 0);
}

FLOE_DECL std::optional<deletion::request> deletion::next() {
  request req;
  for (std::size_t i = 0; i < handles_.size() && req.size() < sqs::max_batch_entries; ++i)
    if (states_[i] == state::waiting) {
      states_[i] = state::in_flight;
      ++attempts_[i];
      req.push_back(i);
    }
  if (req.empty()) return std::nullopt;
  return req;
}

FLOE_DECL sqs::delete_message_batch_params deletion::params(std::string const& queue_url, request const& req) const {
  sqs::delete_message_batch_params p;
  p.queue_url = queue_url;
  for (auto i : req) p.entries.push_back({std::to_string(i), handles_.at(i)});
  return p;
}

FLOE_DECL void deletion::failed(std::size_t i, std::string why, bool final) {
  if (final || attempts_[i] >= max_attempts_) {
    states_[i] = state::given_up;
    failures_.push_back(std::move(why));
  } else {
    states_[i] = state::waiting;
  }
}

FLOE_DECL void deletion::on_reply(request const& req, sqs::batch_result const& r) {
  auto position = [&](std::string_view id) -> std::size_t {
    std::size_t v = 0;
    auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
    if (ec != std::errc{} || p != id.data() + id.size() || std::find(req.begin(), req.end(), v) == req.end())
      return handles_.size();
    return v;
  };
  for (auto const& id : r.successful)
    if (auto i = position(id); i < handles_.size() && states_[i] == state::in_flight) states_[i] = state::deleted;
  for (auto const& f : r.failed) {
    auto i = position(f.id);
    if (i >= handles_.size() || states_[i] != state::in_flight) continue;
    if (f.code == "ReceiptHandleIsInvalid") {
      states_[i] = state::gone;
      continue;
    }
    failed(i, f.code + ": " + f.message, f.sender_fault && !f.client_detected);
  }
  // The sqs parser puts every entry in one of the lists; anything still in
  // flight here was not mentioned at all: try again.
  for (auto i : req)
    if (states_[i] == state::in_flight) failed(i, "not mentioned in the reply", false);
}

FLOE_DECL void deletion::on_error(request const& req, error const& e) {
  // Only a request of one entry can be refused as a whole for its handle.
  bool const gone = req.size() == 1 && e.code == make_error_code(errc::invalid_receipt_handle);
  for (auto i : req) {
    if (states_[i] != state::in_flight) continue;
    if (gone) states_[i] = state::gone;
    else failed(i, e.what(), false);
  }
}

FLOE_DECL bool deletion::done() const noexcept {
  for (auto s : states_)
    if (s == state::waiting || s == state::in_flight) return false;
  return true;
}

FLOE_DECL std::size_t deletion::count(state s) const noexcept {
  return static_cast<std::size_t>(std::count(states_.begin(), states_.end(), s));
}

}  // namespace floe::watch
