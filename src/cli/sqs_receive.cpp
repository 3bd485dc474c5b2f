// floe sqs receive and floe sqs delete.
//
// A received message is printed before it is deleted (--delete): a failed
// delete leaves it in the queue, to come back after its visibility timeout,
// so nothing is ever lost. A message whose body does not match its MD5 is
// not printed and not deleted: it is reported and left to the queue's
// redrive policy.

#include "json_writer.hpp"
#include "output.hpp"
#include "sqs_verbs.hpp"

#include <algorithm>
#include <limits>

namespace floe::cli {

namespace {

namespace asio = boost::asio;
using asio::awaitable;

// Deletes by receipt handle, 10 per request; failures reported entry by
// entry, naming the message (`names`, same order as `handles`).
awaitable<int> delete_handles(context& x, sqs::client& q, std::string const& url,
                              std::vector<std::string> const& handles, std::vector<std::string> const& names,
                              std::uint64_t& deleted) {
  int rc = exit_ok;
  for (std::size_t from = 0; from < handles.size(); from += sqs::max_batch_entries) {
    std::size_t const to = std::min(handles.size(), from + sqs::max_batch_entries);
    sqs::delete_message_batch_params p;
    p.queue_url = url;
    for (std::size_t i = from; i < to; ++i) p.entries.push_back({std::to_string(i - from), handles[i]});
    auto r = co_await call(q, p);
    if (!r) co_return fail(x, r.error(), "DeleteMessageBatch", sqs::queue_name_of(url));
    deleted += r->successful.size();
    auto const name_of = [&](std::string_view id) {
      std::size_t i = 0;
      for (char c : id) i = i * 10 + static_cast<std::size_t>(c - '0');
      return std::string(sqs::queue_name_of(url)) + " " + names[from + i];
    };
    if (report_batch_failures(x, "DeleteMessageBatch", r->failed, name_of) != exit_ok) rc = exit_error;
  }
  co_return rc;
}

void write_message(json_writer& w, sqs::message const& m) {
  w.begin_object().field("message_id", m.message_id).field("receipt_handle", m.receipt_handle);
  w.field("body", m.body).field("md5_of_body", m.md5_of_body).key("attributes").begin_object();
  for (auto const& [k, v] : m.attributes) w.field(k, v);
  w.end_object().end_object();
}

}  // namespace

awaitable<int> sqs_receive(context& x, sqs::client& q, std::string const& url) {
  auto const& o = x.cl.sqs;
  std::uint64_t const most = o.max != 0 ? o.max : o.drain ? std::numeric_limits<std::uint64_t>::max() : 1;
  std::uint64_t received = 0, deleted = 0;
  int rc = exit_ok;
  json_writer w;
  if (x.g.json) w.begin_object().key("messages").begin_array();
  while (received < most) {
    sqs::receive_message_params p;
    p.queue_url = url;
    p.max_messages = static_cast<int>(std::min<std::uint64_t>(sqs::max_receive_messages, most - received));
    p.wait = o.wait;
    p.visibility_timeout = o.visibility;
    p.system_attribute_names = {"All"};
    auto r = co_await call(q, p);
    if (!r) {
      rc = fail(x, r.error(), "ReceiveMessage", sqs::queue_name_of(url));
      break;
    }
    for (auto const& bad : r->rejected) {
      error e(errc::checksum_mismatch, bad.reason);
      report_error(x.g, std::move(e), "ReceiveMessage", std::string(sqs::queue_name_of(url)) + " " + bad.message_id);
      rc = exit_error;
    }
    if (r->messages.empty() && r->rejected.empty()) break;
    received += r->messages.size() + r->rejected.size();
    std::string text;
    std::vector<std::string> handles, names;
    for (auto const& m : r->messages) {
      if (x.g.json) write_message(w, m);
      else text += m.body + "\n";
      handles.push_back(m.receipt_handle);
      names.push_back(m.message_id);
    }
    if (!text.empty() && !write_stdout(text)) co_return exit_error;
    if (o.delete_after && !handles.empty()) {
      int const d = co_await delete_handles(x, q, url, handles, names, deleted);
      if (d != exit_ok) rc = d;
    }
    if (!o.drain && o.max == 0) break;
  }
  if (x.g.json) {
    w.end_array().field("received", received);
    if (o.delete_after) w.field("deleted", deleted);
    w.end_object();
    if (!write_stdout(w.line())) co_return exit_error;
  }
  co_return rc;
}

awaitable<int> sqs_delete(context& x, sqs::client& q, std::string const& url) {
  std::vector<std::string> handles(x.cl.args.begin() + 2, x.cl.args.end());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < handles.size(); ++i) names.push_back("receipt " + std::to_string(i + 1));
  std::uint64_t deleted = 0;
  int const rc = co_await delete_handles(x, q, url, handles, names, deleted);
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("deleted", deleted).field("failed", handles.size() - deleted).end_object();
    if (!write_stdout(w.line())) co_return exit_error;
  }
  co_return rc;
}

}  // namespace floe::cli
