#pragma once
#include <floe/s3/update.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <random>

namespace floe::s3 {

FLOE_DECL bool valid_writer_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > writer_id_max_size) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

FLOE_DECL std::optional<std::uint64_t> high_water_map::find(std::string_view writer) const noexcept {
  for (auto const& [id, seq] : entries)
    if (id == writer) return seq;
  return std::nullopt;
}

FLOE_DECL void high_water_map::record(std::string_view writer, std::uint64_t seq, std::size_t max_entries) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](auto const& e) { return e.first == writer; });
  if (it != entries.end()) {
    seq = std::max(seq, it->second);
    entries.erase(it);
  }
  entries.insert(entries.begin(), {std::string(writer), seq});
  max_entries = std::max<std::size_t>(max_entries, 1);
  while (entries.size() > max_entries) {
    entries.pop_back();
    trimmed = true;
  }
  while (entries.size() > 1 && encode_high_water(*this).size() > high_water_max_bytes) {
    entries.pop_back();
    trimmed = true;
  }
}

FLOE_DECL std::string encode_high_water(high_water_map const& m) {
  std::string out = m.trimmed ? "1;t;" : "1;c;";
  bool first = true;
  for (auto const& [id, seq] : m.entries) {
    if (!first) out += ',';
    first = false;
    out += id;
    out += '=';
    out += std::to_string(seq);
  }
  return out;
}

FLOE_DECL result<high_water_map> decode_high_water(std::string_view text) {
  auto bad = [](std::string why) { return error(errc::malformed_reply, "high-water map: " + why); };
  if (text.size() > high_water_max_bytes) return bad("longer than " + std::to_string(high_water_max_bytes) + " bytes");
  if (text.size() < 4 || text.substr(0, 2) != "1;") return bad("not version 1");
  high_water_map m;
  if (text[2] == 't')
    m.trimmed = true;
  else if (text[2] != 'c')
    return bad("unknown flag");
  if (text[3] != ';') return bad("missing ';' after the flag");
  text.remove_prefix(4);
  while (!text.empty()) {
    auto const comma = text.find(',');
    auto entry = text.substr(0, comma);
    auto const eq = entry.find('=');
    if (eq == std::string_view::npos) return bad("entry without '='");
    auto const id = entry.substr(0, eq);
    auto const num = entry.substr(eq + 1);
    if (!valid_writer_id(id)) return bad("invalid writer id");
    if (num.empty() || num.size() > 20 || (num.size() > 1 && num[0] == '0')) return bad("invalid sequence number");
    std::uint64_t seq = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), seq);
    if (ec != std::errc() || p != num.data() + num.size()) return bad("invalid sequence number");
    if (m.find(id)) return bad("duplicate writer id");
    m.entries.emplace_back(std::string(id), seq);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (text.empty()) return bad("trailing ','");
  }
  return m;
}

// --- update_machine ---------------------------------------------------------

FLOE_DECL update_machine::update_machine(std::string writer_id, std::uint64_t& next_sequence, update_config const& cfg,
                                         update_fn const& fn, time_point start)
    : writer_(std::move(writer_id)), next_seq_(next_sequence), cfg_(cfg), fn_(fn), start_(start) {}

FLOE_DECL update_machine::step update_machine::start() { return step::read; }

FLOE_DECL bool update_machine::past_deadline(time_point now) const noexcept {
  return cfg_.deadline.count() > 0 && now - start_ >= cfg_.deadline;
}

FLOE_DECL update_machine::step update_machine::finish_error(errc code, std::string message, error const* cause) {
  error e(code, std::move(message));
  if (cause) {
    auto const msg = std::move(e.diag.message);
    e.diag = cause->diag;
    e.diag.message = msg + " (" + (cause->diag.to_string().empty() ? cause->code.message() : cause->diag.to_string()) + ")";
  }
  if (e.diag.operation.empty()) e.diag.operation = "Update";
  e.diag.attempt = stats_.attempts;
  outcome_ = std::move(e);
  done_ = true;
  return step::done;
}

FLOE_DECL update_machine::step update_machine::give_up(errc why) {
  std::string const n = std::to_string(stats_.attempts);
  if (!open_.empty()) {
    return finish_error(errc::unknown_outcome, "gave up (" + make_error_code(why).message() + ") after " + n +
                                                   " write attempts while an earlier write whose reply was lost "
                                                   "may still land");
  }
  return finish_error(why, why == errc::timeout ? "the update's deadline passed after " + n + " write attempts"
                                                : "no write succeeded in " + n + " attempts");
}

FLOE_DECL update_machine::step update_machine::on_read(result<object_state> r, time_point now) {
  ++stats_.reads;
  if (!r) {
    error e = r.error();
    if (!open_.empty())
      return finish_error(errc::unknown_outcome,
                          "a write's reply was lost and the re-read failed, so whether it landed is unknown", &e);
    e.diag.attempt = stats_.attempts;
    outcome_ = std::move(e);
    done_ = true;
    return step::done;
  }
  object_state& obj = *r;

  std::optional<high_water_map> map;
  std::string map_problem;
  if (obj.exists) {
    auto it = std::find_if(obj.metadata.begin(), obj.metadata.end(),
                           [](auto const& kv) { return kv.first == high_water_metadata_name; });
    if (it == obj.metadata.end()) {
      map_problem = "the object has no high-water map (written outside floe)";
    } else if (auto d = decode_high_water(it->second)) {
      map = std::move(*d);
    } else {
      map_problem = "the object's high-water map is malformed";
    }
  }
  auto const mine = map ? map->find(writer_) : std::nullopt;

  if (first_seq_ == 0) {
    // Never reuse a number the map already holds for this writer (a restart
    // with the same writer id).
    std::uint64_t floor = mine ? *mine : 0;
    if (floor == std::numeric_limits<std::uint64_t>::max())
      return finish_error(errc::malformed_reply, "the high-water map's sequence number for this writer is at its maximum");
    first_seq_ = std::max(next_seq_, floor + 1);
    next_seq_ = first_seq_;
  } else if (mine && *mine >= first_seq_) {
    // One of this update's writes landed (only they carry these numbers).
    stats_.changed = true;
    stats_.confirmed_by_reread = true;
    stats_.sequence = *mine;
    stats_.body = write_.body;
    for (auto const& w : open_)
      if (w.sequence == *mine) stats_.body = w.body;
    outcome_ = std::move(stats_);
    done_ = true;
    return step::done;
  }

  // Rule out ambiguous writes that cannot have landed.
  for (auto it = open_.begin(); it != open_.end();) {
    bool const unchanged = it->create_only ? !obj.exists : (obj.exists && same_etag(obj.etag, it->base_etag));
    if (unchanged) {  // not landed (yet): the next write has the same base, so at most one of them can
      ++it;
      continue;
    }
    bool const map_says_no = map && (mine.has_value() || !map->trimmed);
    if (!map_says_no && undecided_ < cfg_.undecided_rereads) {
      retry::standard_params bp;
      bp.base_delay = cfg_.backoff_base;
      bp.max_backoff = cfg_.backoff_max;
      sleep_ = retry::backoff(bp, undecided_, 1.0);
      ++undecided_;
      return step::sleep;  // then read again
    }
    if (!map_says_no) {
      std::string why = !obj.exists          ? "the object was deleted since"
                        : !map_problem.empty() ? map_problem
                                               : "this writer's entry was evicted from the high-water map";
      return finish_error(errc::unknown_outcome, "a write's reply was lost (sequence " + std::to_string(it->sequence) +
                                                     ") and the object changed since; whether it landed is unknown: " +
                                                     why);
    }
    it = open_.erase(it);
  }

  if (stats_.attempts >= cfg_.max_attempts) return give_up(errc::attempts_exhausted);
  if (past_deadline(now)) return give_up(errc::timeout);

  std::optional<std::string_view> current;
  if (obj.exists) current = std::string_view(obj.body);
  auto next_body = fn_(current);
  if (!next_body || (obj.exists && *next_body == obj.body)) {
    if (!open_.empty())
      return finish_error(errc::unknown_outcome, "no change asked for while an earlier write whose reply was lost may still land");
    stats_.changed = false;
    stats_.etag = obj.etag;
    stats_.version_id = obj.version_id;
    stats_.body = std::move(obj.body);
    outcome_ = std::move(stats_);
    done_ = true;
    return step::done;
  }

  high_water_map next = map ? std::move(*map) : high_water_map{};
  if (obj.exists && !map) next.trimmed = true;  // history before this version is unknown
  std::uint64_t const seq = next_seq_++;
  next.record(writer_, seq, std::clamp<std::size_t>(cfg_.max_writers, 1, 64));
  write_.body = std::move(*next_body);
  write_.create_only = !obj.exists;
  write_.if_match = obj.exists ? obj.etag : std::string();
  write_.metadata.clear();
  write_.metadata.emplace_back(std::string(high_water_metadata_name), encode_high_water(next));
  write_.sequence = seq;
  ++stats_.attempts;
  return step::write;
}

FLOE_DECL update_machine::step update_machine::on_write(result<write_outcome> r, time_point now, double random01) {
  if (!r) {
    error e = r.error();
    if (!open_.empty())
      return finish_error(errc::unknown_outcome, "a write failed while an earlier write whose reply was lost may have landed",
                          &e);
    e.diag.attempt = stats_.attempts;
    outcome_ = std::move(e);
    done_ = true;
    return step::done;
  }
  switch (kind_of(*r)) {
    case write_outcome_kind::written: {
      auto& w = std::get<written>(*r);
      stats_.changed = true;
      stats_.etag = std::move(w.etag);
      stats_.version_id = std::move(w.version_id);
      stats_.body = write_.body;
      stats_.sequence = write_.sequence;
      outcome_ = std::move(stats_);
      done_ = true;
      return step::done;
    }
    case write_outcome_kind::precondition_failed:
      return step::read;
    case write_outcome_kind::unknown_outcome:
      ++stats_.unknown;
      open_.push_back({write_.create_only, write_.if_match, write_.sequence, write_.body});
      return step::read;
    case write_outcome_kind::conflict: {
      ++stats_.conflicts;
      retry::standard_params bp;
      bp.base_delay = cfg_.backoff_base;
      bp.max_backoff = cfg_.backoff_max;
      sleep_ = retry::backoff(bp, stats_.conflicts - 1, random01);
      if (cfg_.deadline.count() > 0 && now + sleep_ - start_ >= cfg_.deadline) return give_up(errc::timeout);
      return step::sleep;
    }
    case write_outcome_kind::error:
      break;
  }
  return finish_error(errc::service_error, "unexpected write outcome");
}

FLOE_DECL update_machine::step update_machine::on_slept(time_point) { return step::read; }

// --- updater ----------------------------------------------------------------

FLOE_DECL updater::updater(client& c, update_config cfg) : c_(c), cfg_(std::move(cfg)) {
  std::random_device rd;
  rng_state_ = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  if (cfg_.writer_id.empty()) {
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int i = 0; i < 16; ++i) {
      auto const v = static_cast<std::size_t>((static_cast<std::uint64_t>(rd()) * 36u) >> 32);
      cfg_.writer_id += alphabet[v % 36];
    }
  } else if (!valid_writer_id(cfg_.writer_id)) {
    bad_id_ = true;
  }
}

FLOE_DECL double updater::random01() {
  if (cfg_.random) return cfg_.random();
  // splitmix64
  std::uint64_t z = (rng_state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

namespace detail {
inline result<object_state> object_state_from(result<get_result>& r) {
  object_state s;
  if (!r) {
    if (r.error().code == errc::not_found && r.error().diag.code == "NoSuchKey") return s;  // absent
    return r.error();
  }
  s.exists = true;
  s.body = std::move(r->body);
  s.etag = std::move(r->info.etag);
  s.version_id = std::move(r->info.version_id);
  s.metadata = std::move(r->info.metadata);
  return s;
}
}  // namespace detail

FLOE_DECL boost::asio::awaitable<result<update_result>> updater::run(std::string const& bucket, std::string const& key,
                                                                     update_fn const& fn) {
  namespace asio = boost::asio;
  if (bad_id_) {
    error e(errc::invalid_argument, "writer id \"" + cfg_.writer_id + "\": 1 to 40 of A-Z a-z 0-9 - _");
    e.diag.operation = "Update";
    co_return e;
  }
  if (busy_) {
    error e(errc::invalid_argument, "an update is already running on this updater (writer " + cfg_.writer_id +
                                        "): use one updater per concurrent writer");
    e.diag.operation = "Update";
    co_return e;
  }
  busy_ = true;
  struct busy_guard {
    bool& b;
    ~busy_guard() { b = false; }
  } guard{busy_};

  auto now = [this] { return cfg_.clock ? cfg_.clock() : std::chrono::steady_clock::now(); };
  update_machine m(cfg_.writer_id, next_seq_, cfg_, fn, now());
  auto st = m.start();
  while (st != update_machine::step::done) {
    if (st == update_machine::step::read) {
      auto got = co_await c_.async_get_object(bucket, key, asio::use_awaitable);
      auto state = detail::object_state_from(got);
      st = m.on_read(std::move(state), now());
    } else if (st == update_machine::step::write) {
      auto const& w = m.write();
      put_params p;
      p.content_type = cfg_.content_type;
      p.metadata = w.metadata;
      if (w.create_only)
        p.if_none_match = "*";
      else
        p.if_match = w.if_match;
      http::body_source body = http::body_source::memory(w.body);
      auto o = co_await detail::put_conditional(c_, bucket, key, body, p, c_.quirks());
      double const r01 = random01();
      st = m.on_write(std::move(o), now(), r01);
    } else {
      asio::steady_timer t(c_.get_executor(), m.sleep());
      auto [ec] = co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
      if (ec) {
        error e(ec);
        e.diag.operation = "Update";
        e.diag.message = "cancelled during back-off";
        co_return e;
      }
      st = m.on_slept(now());
    }
  }
  co_return std::move(m.outcome());
}

}  // namespace floe::s3
