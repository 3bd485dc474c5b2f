// floe sqs send: one message (BODY, or all of stdin), or with --lines each
// line of stdin as a message, sent in batches (sqs_lines.hpp) as the lines
// come.

#include "json_writer.hpp"
#include "output.hpp"
#include "sqs_lines.hpp"
#include "sqs_verbs.hpp"

#include <floe/sqs/message_body.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <span>
#include <tuple>
#include <variant>

namespace floe::cli {

namespace {

namespace asio = boost::asio;
using asio::awaitable;
using namespace std::chrono_literals;

constexpr std::size_t max_body = sqs::default_max_message_bytes;
constexpr auto idle_flush = 200ms;
// A batch's entries SQS failed on its side (not the entry's fault) are sent
// again, this many times at most, after a short pause.
constexpr int entry_resends = 4;

// All of stdin, refused when it holds more than `limit` bytes.
result<std::string> read_all_stdin(std::size_t limit) {
  std::string out;
  char buf[64 * 1024];
  for (;;) {
    ssize_t const n = ::read(0, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return system_error_of(errno, "reading stdin");
    }
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit)
      return error(errc::invalid_argument,
                   "stdin holds more than " + std::to_string(limit) + " bytes, the most a message may hold");
  }
}

awaitable<int> send_one(context& x, sqs::client& q, std::string const& url) {
  sqs::send_message_params p;
  p.queue_url = url;
  if (x.cl.args.size() > 2) {
    p.body = x.cl.args[2];
  } else {
    auto in = read_all_stdin(max_body);
    if (!in) co_return fail(x, in.error(), "SendMessage", sqs::queue_name_of(url));
    p.body = std::move(*in);
  }
  auto r = co_await call(q, p);
  if (!r) co_return fail(x, r.error(), "SendMessage", sqs::queue_name_of(url));
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("message_id", r->message_id).field("md5_of_body", r->md5_of_body);
    if (!r->sequence_number.empty()) w.field("sequence_number", r->sequence_number);
    w.end_object();
    out = w.line();
  } else {
    out = r->message_id + "\n";
  }
  co_return write_stdout(out) ? exit_ok : exit_error;
}

// stdin as bytes as they come: asynchronously from a pipe, a socket or a
// terminal (so a quiet producer can be noticed), with plain reads from a
// file (which never waits).
class stdin_reader {
 public:
  explicit stdin_reader(asio::any_io_executor ex) : sd_(ex), timer_(ex) {
    struct stat st {};
    bool const streams = ::fstat(0, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || ::isatty(0));
    if (streams) {
      boost::system::error_code ec;
      sd_.assign(::dup(0), ec);
      async_ = !ec;
    }
  }

  enum class got { bytes, idle, end };

  /// Reads some bytes into `buf`; with `idle` set, gives up after that long
  /// without any (got::idle).
  awaitable<result<got>> read(std::string& buf, std::optional<std::chrono::milliseconds> idle) {
    using namespace asio::experimental::awaitable_operators;
    auto chunk = std::span<char>(chunk_);
    if (!async_) {
      for (;;) {
        ssize_t const n = ::read(0, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) co_return system_error_of(errno, "reading stdin");
        if (n == 0) co_return got::end;
        buf.append(chunk.data(), static_cast<std::size_t>(n));
        co_return got::bytes;
      }
    }
    auto const reading = asio::as_tuple(asio::use_awaitable);
    std::size_t n = 0;
    boost::system::error_code ec;
    if (idle) {
      // The timer races readiness, not a read: `||` drops the loser's
      // result, and a read that completed as the timer won would take its
      // bytes with it. Waiting takes nothing; the read below does.
      timer_.expires_after(*idle);
      auto v = co_await (sd_.async_wait(asio::posix::descriptor_base::wait_read, reading) ||
                         timer_.async_wait(reading));
      if (v.index() == 1) co_return got::idle;
    }
    std::tie(ec, n) = co_await sd_.async_read_some(asio::buffer(chunk_), reading);
    if (ec == asio::error::eof) co_return got::end;
    if (ec) {
      error e(ec);
      e.diag.message = "reading stdin: " + ec.message();
      co_return e;
    }
    buf.append(chunk_.data(), n);
    co_return got::bytes;
  }

 private:
  asio::posix::stream_descriptor sd_;
  asio::steady_timer timer_;
  std::vector<char> chunk_ = std::vector<char>(64 * 1024);
  bool async_ = false;
};

struct line_sender {
  context& x;
  sqs::client& q;
  std::string const& url;
  std::uint64_t sent = 0;
  int rc = exit_ok;
  json_writer* json = nullptr;  // --json: the "messages" array being written
  std::string text;             // text mode: message ids waiting for stdout

  std::string where(std::uint64_t line) const {
    return std::string(sqs::queue_name_of(url)) + " line " + std::to_string(line);
  }

  // Sends one batch; entries SQS failed on its side are sent again. A
  // failure of the whole batch after the driver's retries stops the run.
  awaitable<result<void>> send(std::vector<sqs_line> lines) {
    std::map<std::string, sqs_line*, std::less<>> by_id;
    std::vector<sqs_line*> todo;
    for (auto& l : lines) todo.push_back(&l);
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (int round = 0; !todo.empty(); ++round) {
      sqs::send_message_batch_params p;
      p.queue_url = url;
      by_id.clear();
      for (std::size_t i = 0; i < todo.size(); ++i) {
        sqs::send_message_batch_entry e;
        e.id = std::to_string(i);
        e.body = todo[i]->body;
        by_id.emplace(e.id, todo[i]);
        p.entries.push_back(std::move(e));
      }
      auto r = co_await call(q, p);
      if (!r) {
        auto e = r.error();
        e.diag.message += " (not sent: line " + std::to_string(todo.front()->number) + " and those after it)";
        co_return e;
      }
      // Successes in input order (the reply's order is SQS's).
      std::map<std::uint64_t, std::string> ids;
      for (auto const& s : r->successful) ids.emplace(by_id.at(s.id)->number, s.message_id);
      for (auto const& [line, id] : ids) {
        ++sent;
        if (json != nullptr) json->begin_object().field("line", line).field("message_id", id).end_object();
        else text += id + "\n";
      }
      std::vector<sqs_line*> again;
      for (auto const& f : r->failed) {
        sqs_line* l = by_id.at(f.id);
        bool const theirs = !f.sender_fault && f.code != "MD5OfMessageBodyMismatch";
        if (theirs && round < entry_resends) {
          again.push_back(l);
          continue;
        }
        std::vector<sqs::batch_failure> one{f};
        rc = report_batch_failures(x, "SendMessageBatch", one, [&](std::string_view) { return where(l->number); });
      }
      todo = std::move(again);
      if (!todo.empty()) {
        pause.expires_after(std::chrono::milliseconds(100 << round));
        co_await pause.async_wait(asio::use_awaitable);
      }
    }
    if (!text.empty()) {
      if (!write_stdout(text)) co_return error(errc::invalid_argument, "cannot write to stdout");
      text.clear();
    }
    co_return result<void>{};
  }
};

awaitable<int> send_lines(context& x, sqs::client& q, std::string const& url) {
  json_writer w;
  line_sender s{x, q, url, 0, exit_ok, nullptr, {}};
  if (x.g.json) {
    w.begin_object().key("messages").begin_array();
    s.json = &w;
  }
  sqs_line_batcher batcher;
  stdin_reader in(co_await asio::this_coro::executor);
  std::string buf;
  auto report_refused = [&] {
    for (auto& r : batcher.take_refused()) {
      report_error(x.g, std::move(r.why), "SendMessageBatch", sqs::queue_name_of(url));
      s.rc = exit_error;
    }
  };
  bool ended = false;
  while (!ended) {
    std::optional<std::vector<sqs_line>> batch = batcher.take_full();
    if (!batch) {
      std::optional<std::chrono::milliseconds> idle;
      if (batcher.has_pending()) idle = idle_flush;
      auto got = co_await in.read(buf, idle);
      if (!got) co_return fail(x, got.error(), "SendMessageBatch", sqs::queue_name_of(url));
      if (*got == stdin_reader::got::bytes) {
        batcher.feed(buf);
        buf.clear();
      } else if (*got == stdin_reader::got::end) {
        batcher.finish();
        ended = true;
      }
      report_refused();
      if (*got == stdin_reader::got::bytes) continue;
      batch = batcher.take_any();  // idle or ended: what is waiting goes now
      if (!batch) continue;
    }
    auto op = s.send(std::move(*batch));
    auto sent = co_await std::move(op);
    if (!sent) co_return fail(x, sent.error(), "SendMessageBatch", sqs::queue_name_of(url));
  }
  while (auto rest = batcher.take_any()) {
    auto op = s.send(std::move(*rest));
    auto sent = co_await std::move(op);
    if (!sent) co_return fail(x, sent.error(), "SendMessageBatch", sqs::queue_name_of(url));
  }
  if (x.g.json) {
    w.end_array().field("sent", s.sent).end_object();
    if (!write_stdout(w.line())) co_return exit_error;
  }
  co_return s.rc;
}

}  // namespace

awaitable<int> sqs_send(context& x, sqs::client& q, std::string const& url) {
  if (x.cl.sqs.lines) co_return co_await send_lines(x, q, url);
  co_return co_await send_one(x, q, url);
}

}  // namespace floe::cli
