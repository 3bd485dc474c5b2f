#pragma once
// Request-body sources and response-body sinks. A body is never required to
// be in memory: files are read and written in chunks through a per-connection
// buffer, and a stream source or sink is a callback.
//
// Replayability decides retries: a memory or file source can be sent again,
// a stream source cannot (it is sent with Expect: 100-continue and never
// resent once a byte of it was read). A memory or file sink can be reset
// before another attempt; a stream sink cannot, so a reply cut mid-body after
// bytes reached it is not retried.

#include <boost/system/error_code.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace floe::http {

class body_source {
 public:
  enum class kind : std::uint8_t { none, memory, file, stream };
  /// Reads up to dst.size() bytes into dst; returns how many (0 only at the end).
  using read_fn = std::function<std::size_t(std::span<char> dst, boost::system::error_code& ec)>;

  body_source() = default;

  /// Bytes that must outlive the request.
  static body_source memory(std::string_view bytes) {
    body_source b;
    b.kind_ = kind::memory;
    b.data_ = bytes;
    b.size_ = bytes.size();
    return b;
  }
  /// `length` bytes of the file at `path` from `offset` (opened per attempt).
  static body_source file(std::string path, std::uint64_t offset, std::uint64_t length) {
    body_source b;
    b.kind_ = kind::file;
    b.path_ = std::move(path);
    b.offset_ = offset;
    b.size_ = length;
    return b;
  }
  /// Exactly `length` bytes produced by `read` (fewer is an error). Not replayable.
  static body_source stream(read_fn read, std::uint64_t length) {
    body_source b;
    b.kind_ = kind::stream;
    b.read_ = std::move(read);
    b.size_ = length;
    return b;
  }

  kind type() const noexcept { return kind_; }
  std::uint64_t size() const noexcept { return size_; }
  bool replayable() const noexcept { return kind_ != kind::stream; }
  std::string_view bytes() const noexcept { return data_; }
  std::string const& path() const noexcept { return path_; }
  std::uint64_t offset() const noexcept { return offset_; }
  read_fn const& reader() const noexcept { return read_; }

 private:
  kind kind_ = kind::none;
  std::string_view data_;
  std::string path_;
  std::uint64_t offset_ = 0;
  std::uint64_t size_ = 0;
  read_fn read_;
};

class body_sink {
 public:
  enum class kind : std::uint8_t { memory, file, stream };
  /// Receives each piece of the body as it arrives.
  using write_fn = std::function<void(std::string_view piece, boost::system::error_code& ec)>;

  /// The default: response::body, bounded by the client's body_limit.
  body_sink() = default;

  /// Written (created or truncated at each attempt) to `path`.
  static body_sink file(std::string path) {
    body_sink s;
    s.kind_ = kind::file;
    s.path_ = std::move(path);
    return s;
  }
  /// Handed to `write` piece by piece. Not resettable.
  static body_sink stream(write_fn write) {
    body_sink s;
    s.kind_ = kind::stream;
    s.write_ = std::move(write);
    return s;
  }

  kind type() const noexcept { return kind_; }
  bool resettable() const noexcept { return kind_ != kind::stream; }
  std::string const& path() const noexcept { return path_; }
  write_fn const& writer() const noexcept { return write_; }

 private:
  kind kind_ = kind::memory;
  std::string path_;
  write_fn write_;
};

}  // namespace floe::http
