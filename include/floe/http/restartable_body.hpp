#pragma once
// A request body produced as it is sent, yet replayable: each attempt starts
// a fresh reader. For bytes that are made while they are read but come
// from something that can be read again — a file region framed in the
// aws-chunked trailer form, its checksum computed on the way
// (s3/detail/trailer_body.hpp): one read of the file per attempt, and a
// retry (a 503, a reset, a heal after a 403) sends it again from its start.
//
// It is a body_source::stream whose reader is a restartable_reader: the
// HTTP client starts a new reader for every attempt and sends it without
// Expect: 100-continue, and the retry rules treat it as replayable
// (can_replay below, where body_source::replayable() says no).

#include <floe/http/body.hpp>

#include <functional>
#include <memory>
#include <span>
#include <utility>

namespace floe::http {

/// The reader of a restartable body: `start` makes the reader of one
/// attempt. Called as a plain stream reader (once, by code that knows only
/// streams), it reads from a reader it starts on its first call.
struct restartable_reader {
  std::function<body_source::read_fn()> start;
  std::shared_ptr<body_source::read_fn> once = std::make_shared<body_source::read_fn>();

  std::size_t operator()(std::span<char> dst, boost::system::error_code& ec) const {
    if (!*once) *once = start();
    return (*once)(dst, ec);
  }
};

/// `length` bytes, read by a reader `start` makes anew for each attempt.
inline body_source restartable_body(std::function<body_source::read_fn()> start, std::uint64_t length) {
  return body_source::stream(restartable_reader{std::move(start)}, length);
}

/// The restartable reader of `b`, or null when `b` is not a restartable body.
inline restartable_reader const* restartable_of(body_source const& b) noexcept {
  if (b.type() != body_source::kind::stream) return nullptr;
  return b.reader().target<restartable_reader>();
}

/// Whether `b` can be sent again after bytes of it were sent: memory, a
/// file, or a restartable body.
inline bool can_replay(body_source const& b) noexcept { return b.replayable() || restartable_of(b) != nullptr; }

}  // namespace floe::http
