#pragma once
#include <floe/sqs/queue.hpp>

#include <floe/sqs/detail/text.hpp>

namespace floe::sqs {

FLOE_DECL bool is_queue_url(std::string_view queue) noexcept {
  return detail::starts_with_nocase(queue, "http://") || detail::starts_with_nocase(queue, "https://");
}

FLOE_DECL result<void> check_queue_name(std::string_view name) {
  if (name.empty()) return error(errc::invalid_argument, "the queue name is empty");
  if (name.size() > 80) {
    return error(errc::invalid_argument, "queue name '" + detail::shown(name) + "' is " + std::to_string(name.size()) +
                                             " characters long; SQS allows at most 80");
  }
  std::string_view base = name;
  if (base.ends_with(".fifo")) base.remove_suffix(5);
  if (base.empty()) return error(errc::invalid_argument, "queue name '.fifo' has nothing before the .fifo suffix");
  for (char c : base) {
    bool const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) {
      return error(errc::invalid_argument, "queue name '" + detail::shown(name) +
                                               "' may hold only letters, digits, '_' and '-' (and end in .fifo for a "
                                               "FIFO queue)");
    }
  }
  return {};
}

FLOE_DECL result<void> check_queue_url(std::string_view url) {
  auto bad = [&](char const* why) {
    return error(errc::invalid_argument, "queue URL '" + detail::shown(url) + "' " + why);
  };
  if (url.empty()) return error(errc::invalid_argument, "the queue URL is empty");
  for (char c : url) {
    auto const u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return bad("holds a space or a control character");
  }
  std::size_t scheme_end = 0;
  if (detail::starts_with_nocase(url, "https://")) {
    scheme_end = 8;
  } else if (detail::starts_with_nocase(url, "http://")) {
    scheme_end = 7;
  } else {
    return bad("does not start with http:// or https://");
  }
  auto const rest = url.substr(scheme_end);
  auto const slash = rest.find('/');
  auto const authority = rest.substr(0, slash);
  if (authority.empty() || authority.front() == ':') return bad("has no host");
  if (slash == std::string_view::npos) return bad("has no path naming the queue");
  if (queue_name_of(url).empty()) return bad("does not end in a queue name");
  return {};
}

FLOE_DECL std::string_view queue_name_of(std::string_view url) noexcept {
  auto const scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  auto path = url.substr(scheme + 3);
  auto const slash = path.find('/');
  if (slash == std::string_view::npos) return {};
  path.remove_prefix(slash);
  auto const end = path.find_first_of("?#");
  if (end != std::string_view::npos) path = path.substr(0, end);
  auto const last = path.rfind('/');
  return path.substr(last + 1);
}

FLOE_DECL result<queue_ref> parse_queue_ref(std::string_view queue) {
  queue_ref r;
  if (is_queue_url(queue)) {
    if (auto ok = check_queue_url(queue); !ok) return ok.error();
    r.url.assign(queue);
  } else {
    if (auto ok = check_queue_name(queue); !ok) return ok.error();
    r.name.assign(queue);
  }
  return r;
}

FLOE_DECL std::chrono::milliseconds long_poll_read_timeout(std::chrono::seconds wait,
                                                           std::chrono::milliseconds configured) noexcept {
  using std::chrono::milliseconds;
  if (configured.count() <= 0) return milliseconds{0};
  if (wait.count() < 0) wait = std::chrono::seconds{0};
  // A wait beyond anything SQS allows is still honoured, without overflow.
  constexpr auto cap = std::chrono::duration_cast<milliseconds>(std::chrono::hours(24 * 365));
  auto const w = wait > std::chrono::duration_cast<std::chrono::seconds>(cap) ? cap : milliseconds(wait);
  auto const c = configured > cap ? cap : configured;
  return w + c;
}

}  // namespace floe::sqs
