// `floe sqs send --lines`: lines to batches (sqs_lines.hpp).

#include "sqs_lines.hpp"

#include <floe/sqs/message_body.hpp>

namespace floe::cli {

void sqs_line_batcher::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    auto const nl = bytes.find('\n');
    std::string_view const piece = bytes.substr(0, nl);
    if (!partial_too_long_) {
      if (partial_.size() + piece.size() > limits_.max_bytes) {
        // Longer than any message may be: refused at its end, not kept.
        partial_too_long_ = true;
        partial_.clear();
        partial_.shrink_to_fit();
      } else {
        partial_.append(piece);
      }
    }
    if (nl == std::string_view::npos) return;
    end_line();
    bytes.remove_prefix(nl + 1);
  }
}

void sqs_line_batcher::finish() {
  if (!partial_.empty() || partial_too_long_) end_line();
}

void sqs_line_batcher::end_line() {
  ++line_no_;
  std::string const what = "line " + std::to_string(line_no_);
  if (partial_too_long_) {
    partial_too_long_ = false;
    refused_.push_back({line_no_, error(errc::invalid_argument, what + ": longer than " +
                                                                   std::to_string(limits_.max_bytes) +
                                                                   " bytes, the most a message may hold")});
    return;
  }
  if (partial_.empty()) return;  // an empty line is no message
  if (auto ok = sqs::check_message_body(partial_, limits_.max_bytes, what); !ok) {
    refused_.push_back({line_no_, ok.error()});
    partial_.clear();
    return;
  }
  pending_.push_back({line_no_, std::move(partial_)});
  partial_ = std::string();
}

std::optional<std::vector<sqs_line>> sqs_line_batcher::take_full() {
  // The longest prefix of the waiting lines that fits one batch; it must go
  // when the prefix is full by count, or when the line after it does not fit.
  std::size_t n = 0, bytes = 0;
  while (n < pending_.size() && n < limits_.max_entries && bytes + pending_[n].body.size() <= limits_.max_bytes) {
    bytes += pending_[n].body.size();
    ++n;
  }
  bool const full = n == limits_.max_entries || n < pending_.size();
  if (!full || n == 0) return std::nullopt;
  std::vector<sqs_line> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(std::move(pending_.front()));
    pending_.pop_front();
  }
  return out;
}

std::optional<std::vector<sqs_line>> sqs_line_batcher::take_any() {
  if (auto full = take_full()) return full;
  if (pending_.empty()) return std::nullopt;
  std::vector<sqs_line> out(std::make_move_iterator(pending_.begin()), std::make_move_iterator(pending_.end()));
  pending_.clear();
  return out;
}

std::vector<refused_line> sqs_line_batcher::take_refused() {
  std::vector<refused_line> out;
  out.swap(refused_);
  return out;
}

}  // namespace floe::cli
