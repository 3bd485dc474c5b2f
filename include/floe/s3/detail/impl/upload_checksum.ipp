#pragma once
#include <floe/s3/detail/upload_checksum.hpp>

#include <floe/checksum/combine.hpp>
#include <floe/credentials/credentials.hpp>
#include <floe/s3/detail/verification.hpp>

#include <floe/detail/blocking_worker.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace floe::s3::detail {

FLOE_DECL std::optional<checksum::algorithm> upload_algorithm(put_params const& p, client_config const& c) noexcept {
  if (p.checksum_algorithm) return *p.checksum_algorithm;
  auto const calc =
      p.checksum_calculation.value_or(c.request_checksum_calculation.value_or(checksum_calculation::when_supported));
  if (calc == checksum_calculation::when_required) return std::nullopt;
  return c.checksum_algorithm;
}

FLOE_DECL void set_checksum_headers(http::fields& h, checksum::digest const& d) {
  h.set(checksum::header_name(d.alg), d.base64());
  h.set("x-amz-sdk-checksum-algorithm", checksum::s3_name(d.alg));
}

FLOE_DECL void set_multipart_checksum(http::fields& h, checksum::algorithm a) {
  h.set("x-amz-checksum-algorithm", checksum::s3_name(a));
  h.set("x-amz-checksum-type", checksum::s3_name(multipart_type(a)));
}

FLOE_DECL result<whole_checksum> whole_object_checksum(checksum::algorithm a, std::span<completed_part const> parts,
                                                       std::span<std::uint64_t const> sizes) {
  whole_checksum w;
  w.type = multipart_type(a);
  if (parts.size() != sizes.size()) return error(errc::invalid_argument, "a part's size is missing");
  if (w.type == checksum::checksum_type::full_object) {
    checksum::full_object_crc acc(a);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].checksum.empty() || parts[i].checksum_algorithm != a)
        return error(errc::invalid_argument, "part " + std::to_string(parts[i].number) + " has no " +
                                                 std::string(checksum::s3_name(a)) + " checksum");
      if (auto r = acc.add_part(parts[i].checksum, sizes[i]); !r) return r.error();
    }
    w.value = acc.value().base64();
    return w;
  }
  checksum::composite acc(a);
  for (auto const& part : parts) {
    if (part.checksum.empty() || part.checksum_algorithm != a)
      return error(errc::invalid_argument, "part " + std::to_string(part.number) + " has no " +
                                               std::string(checksum::s3_name(a)) + " checksum");
    if (auto r = acc.add_part(part.checksum); !r) return r.error();
  }
  w.value = acc.value();
  return w;
}

FLOE_DECL void set_complete_checksum(http::fields& h, checksum::algorithm a, whole_checksum const& w) {
  if (w.type != checksum::checksum_type::full_object) return;
  h.set(checksum::header_name(a), w.value);
  h.set("x-amz-checksum-type", "FULL_OBJECT");
}

FLOE_DECL std::optional<checksum_calculation> parse_checksum_calculation(std::string_view v) noexcept {
  // The same words as the response setting's.
  if (auto same = parse_checksum_validation(v)) {
    return *same == checksum_validation::when_supported ? checksum_calculation::when_supported
                                                        : checksum_calculation::when_required;
  }
  return std::nullopt;
}

FLOE_DECL result<checksum_calculation> resolve_checksum_calculation(std::optional<checksum_calculation> caller,
                                                                   env_lookup const& env,
                                                                   credentials::profile const* prof) {
  if (caller) return *caller;
  std::string value;
  std::string where;
  if (auto v = env ? non_empty(env, "AWS_REQUEST_CHECKSUM_CALCULATION") : std::nullopt) {
    value = std::move(*v);
    where = "AWS_REQUEST_CHECKSUM_CALCULATION";
  } else if (auto const* s = prof ? prof->find("request_checksum_calculation") : nullptr) {
    value = s->entry.value;
    where = "request_checksum_calculation at " + s->where();
  } else {
    return checksum_calculation::when_supported;
  }
  if (auto parsed = parse_checksum_calculation(value)) return *parsed;
  return error(errc::invalid_argument, where + " is \"" + credentials::detail::printable(value) +
                                           "\": it takes when_supported or when_required");
}

FLOE_DECL result<checksum::digest> hash_file_now(std::string const& path, std::uint64_t offset, std::uint64_t length,
                                                checksum::algorithm a) {
  constexpr std::size_t buffer = 256u << 10;
  checksum::hasher h(a);
  int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return error(errc::invalid_argument, "cannot read " + path + ": " + std::strerror(errno));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_it{fd};
  auto buf = std::make_unique<char[]>(buffer);
  auto fail = [&](std::string why) {
    return error(errc::invalid_argument, "cannot read " + path + " to checksum it: " + why);
  };
  for (std::uint64_t done = 0; done < length;) {
    auto const want = static_cast<std::size_t>(std::min<std::uint64_t>(length - done, buffer));
    auto const n = ::pread(fd, buf.get(), want, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(std::strerror(errno));
    }
    if (n == 0) return fail("the file is shorter than the " + std::to_string(length) + " bytes to send");
    h.update(buf.get(), static_cast<std::size_t>(n));
    done += static_cast<std::uint64_t>(n);
  }
  return h.value();
}

FLOE_DECL boost::asio::awaitable<result<checksum::digest>> hash_file(std::string const& path, std::uint64_t offset,
                                                                     std::uint64_t length, checksum::algorithm a) {
  namespace asio = boost::asio;
  auto ex = co_await asio::this_coro::executor;
  // A named job, not a temporary in the co_await's expression: GCC 12
  // destroys such a temporary twice in a coroutine.
  auto job = [path, offset, length, a] { return hash_file_now(path, offset, length, a); };
  auto sum = co_await floe::detail::async_run_blocking<result<checksum::digest>>(ex, std::move(job), asio::use_awaitable);
  co_return sum;
}

}  // namespace floe::s3::detail
