#pragma once
// Where a download writes: a temporary file beside the target, renamed over
// it by commit() once the whole body is there, so that a failed, cancelled
// or not-modified download never truncates what the target held. The
// temporary file is removed unless committed. A target that exists and is
// not a regular file (a FIFO, /dev/null) cannot be replaced by rename: it is
// written in place. Plain POSIX calls, no Asio.

#include <floe/config.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace floe::s3::detail {

struct out_file {
  int fd = -1;
  std::string target;  // the file to produce (a symbolic link resolved)
  std::string temp;    // empty: writing the target in place

  out_file() = default;
  out_file(out_file const&) = delete;
  out_file& operator=(out_file const&) = delete;
  ~out_file() { discard(); }

  // Opens the temporary file (or, see above, the target). errno on failure.
  FLOE_DECL bool open(std::string const& path);

  // Writes all of `piece`, adding each byte written to `written`; 0, or the
  // errno of a failed write.
  FLOE_DECL int write(std::string_view piece, std::uint64_t& written) noexcept;

  // Empties the temporary file to write the body again from its first
  // byte; false when there is none (no file, or the target written in
  // place: what was written there has reached the reader) or it failed.
  FLOE_DECL bool rewind() noexcept;

  // Makes the body the target's content; errno-style message on failure.
  FLOE_DECL std::string commit();

  // Drops the temporary file (the target stays as it was).
  FLOE_DECL void discard() noexcept;
};

}  // namespace floe::s3::detail

#if defined(FLOE_HEADER_ONLY)
#include <floe/s3/detail/impl/out_file.ipp>
#endif
