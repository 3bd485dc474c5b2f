#pragma once
// `floe sqs send --lines`: stdin cut into lines and the lines into
// batches, with no I/O and no clock (the caller says when stdin went idle).
//
// Each line is one message ('\n' ends it and is not part of it; a last line
// without one counts at end of input; empty lines are skipped). A batch
// goes when it holds `max_entries` lines, when the next line would take its
// bodies past `max_bytes`, or, with whatever it holds, when stdin has been
// idle (the caller's timer) or has ended: a slow producer's lines are not
// held back waiting for a full batch.
//
// A line SQS would refuse or alter (sqs::check_message_body: too long, not
// UTF-8, a character outside SQS's set) never enters a batch: it is kept in
// `refused` with its line number and the reason, so the caller reports it
// and sends the others. A line longer than `max_bytes` is not held in
// memory beyond that: it is refused as too long when its end arrives.

#include <floe/error.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::cli {

struct sqs_line {
  std::uint64_t number = 0;  // 1-based line number in the input
  std::string body;
};

struct refused_line {
  std::uint64_t number = 0;
  error why;
};

class sqs_line_batcher {
 public:
  struct limits {
    std::size_t max_entries = 10;
    std::size_t max_bytes = 256 * 1024;  // one line, and the bodies of one batch together
  };

  sqs_line_batcher() = default;
  explicit sqs_line_batcher(limits l) : limits_(l) {}

  /// Bytes read from the input.
  void feed(std::string_view bytes);
  /// The input ended: a last line without '\n' becomes a line.
  void finish();

  /// A batch that must go now (full by count or by size), if any.
  std::optional<std::vector<sqs_line>> take_full();
  /// Whatever lines are waiting (stdin idle or ended); nullopt when none.
  std::optional<std::vector<sqs_line>> take_any();

  bool has_pending() const noexcept { return !pending_.empty(); }
  /// Lines refused since the last call, oldest first.
  std::vector<refused_line> take_refused();
  /// Lines seen so far (empty lines included).
  std::uint64_t lines_seen() const noexcept { return line_no_; }

 private:
  void end_line();

  limits limits_{};
  std::string partial_;
  bool partial_too_long_ = false;
  std::uint64_t line_no_ = 0;
  std::deque<sqs_line> pending_;
  std::vector<refused_line> refused_;
};

}  // namespace floe::cli
