// floe sqs: queues and messages. One verb whose first operand names what
// to do (create, url, attrs, purge, send, receive, delete); each is a call
// or a loop of calls through sqs::client, and so through the one request
// driver every service shares (signing, retries, the heal after stale
// credentials).

#include "../json_writer.hpp"
#include "../options.hpp"
#include "../output.hpp"
#include "../sqs_verbs.hpp"
#include "../verbs.hpp"

#include <floe/sqs/queue.hpp>

#include <boost/asio/use_awaitable.hpp>

#include <array>

namespace floe::cli {

namespace {

namespace asio = boost::asio;
using asio::awaitable;

// Which options each subcommand takes, and how many operands after it.
struct subcommand {
  std::string_view name;
  unsigned min_operands, max_operands;
  bool lines, receive_options;
};

constexpr unsigned many = 1u << 20;
constexpr std::array<subcommand, 7> subcommands{{
    {"create", 1, 1, false, false},
    {"url", 1, 1, false, false},
    {"attrs", 1, 1, false, false},
    {"purge", 1, 1, false, false},
    {"send", 1, 2, true, false},
    {"receive", 1, 1, false, true},
    {"delete", 2, many, false, false},
}};

subcommand const* find_subcommand(std::string_view name) {
  for (auto const& s : subcommands)
    if (s.name == name) return &s;
  return nullptr;
}

result<void> check_sqs(command_line const& cl) {
  auto const* sub = find_subcommand(cl.args[0]);
  if (sub == nullptr)
    return usage("unknown sqs command '" + printable(cl.args[0]) +
                 "' (create, url, attrs, purge, send, receive, delete)");
  std::size_t const operands = cl.args.size() - 1;
  std::string const what = "sqs " + std::string(sub->name);
  if (operands < sub->min_operands) return usage(what + ": missing argument");
  if (operands > sub->max_operands) return usage(what + ": too many arguments");
  auto const& o = cl.sqs;
  if (o.lines && !sub->lines) return usage("option '--lines' applies to 'floe sqs send' only");
  if (o.lines && operands > 1) return usage("sqs send --lines reads stdin: no BODY argument");
  bool const receiving = o.max != 0 || o.wait || o.visibility || o.delete_after || o.drain;
  if (receiving && !sub->receive_options)
    return usage("options '--max', '--wait', '--visibility', '--delete' and '--drain' apply to 'floe sqs receive' only");
  if (sub->name == "create" || sub->name == "url") {
    if (auto ok = sqs::check_queue_name(cl.args[1]); !ok) return usage(what + ": " + ok.error().diag.message);
  } else if (auto ok = sqs::parse_queue_ref(cl.args[1]); !ok) {
    return usage(what + ": " + ok.error().diag.message);
  }
  return {};
}

// QUEUE to its URL (a name is looked up once); a failure is reported.
awaitable<result<std::string>> resolve(sqs::client& q, std::string const& queue) {
  auto ref = sqs::parse_queue_ref(queue);
  if (!ref) co_return ref.error();
  auto op = q.async_queue_url(*ref, asio::use_awaitable);
  co_return co_await std::move(op);
}

awaitable<int> print_url(context& x, std::string const& url) {
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("queue_url", url).end_object();
    out = w.line();
  } else {
    out = url + "\n";
  }
  co_return write_stdout(out) ? exit_ok : exit_error;
}

awaitable<int> sqs_create(context& x, sqs::client& q) {
  sqs::create_queue_params p;
  p.queue_name = x.cl.args[1];
  auto r = co_await call(q, p);
  if (!r) co_return fail(x, r.error(), "CreateQueue", p.queue_name);
  co_return co_await print_url(x, r->queue_url);
}

awaitable<int> sqs_attrs(context& x, sqs::client& q, std::string const& url) {
  sqs::get_queue_attributes_params p;
  p.queue_url = url;
  auto r = co_await call(q, p);
  if (!r) co_return fail(x, r.error(), "GetQueueAttributes", sqs::queue_name_of(url));
  std::string out;
  if (x.g.json) {
    json_writer w;
    w.begin_object().field("queue_url", url).key("attributes").begin_object();
    for (auto const& [k, v] : r->attributes) w.field(k, v);
    w.end_object().end_object();
    out = w.line();
  } else {
    for (auto const& [k, v] : r->attributes) out += printable(k) + "=" + printable(v) + "\n";
  }
  co_return write_stdout(out) ? exit_ok : exit_error;
}

awaitable<int> sqs_purge(context& x, sqs::client& q, std::string const& url) {
  sqs::purge_queue_params p;
  p.queue_url = url;
  auto r = co_await call(q, p);
  if (!r) co_return fail(x, r.error(), "PurgeQueue", sqs::queue_name_of(url));
  if (!x.g.json) co_return exit_ok;
  json_writer w;
  w.begin_object().field("queue_url", url).field("purged", true).end_object();
  co_return write_stdout(w.line()) ? exit_ok : exit_error;
}

awaitable<int> cmd_sqs(context& x) {
  auto opened = open_sqs_client(x);
  if (!opened) co_return fail(x, opened.error(), "configuration", "");
  sqs::client& q = **opened;
  std::string_view const sub = x.cl.args[0];
  std::string const queue = x.cl.args[1];
  if (sub == "create") co_return co_await sqs_create(x, q);
  auto url = co_await resolve(q, queue);
  if (!url) co_return fail(x, url.error(), "GetQueueUrl", queue);
  if (sub == "url") co_return co_await print_url(x, *url);
  if (sub == "attrs") co_return co_await sqs_attrs(x, q, *url);
  if (sub == "purge") co_return co_await sqs_purge(x, q, *url);
  if (sub == "send") co_return co_await sqs_send(x, q, *url);
  if (sub == "receive") co_return co_await sqs_receive(x, q, *url);
  co_return co_await sqs_delete(x, q, *url);
}

// --max N, --wait S, --visibility S: whole numbers within SQS's bounds.
result<void> set_max(command_line& cl, std::string_view v) {
  std::uint64_t n = 0;
  if (!parse_unsigned(v, n) || n == 0) return usage("--max takes a whole number of messages, at least 1");
  cl.sqs.max = n;
  return {};
}

result<std::chrono::seconds> seconds_within(std::string_view option, std::string_view v, std::chrono::seconds most) {
  std::uint64_t n = 0;
  if (!parse_unsigned(v, n) || n > static_cast<std::uint64_t>(most.count()))
    return usage(std::string(option) + " takes whole seconds from 0 to " + std::to_string(most.count()));
  return std::chrono::seconds(static_cast<std::int64_t>(n));
}

result<void> set_wait(command_line& cl, std::string_view v) {
  auto s = seconds_within("--wait", v, sqs::max_wait_time);
  if (!s) return s.error();
  cl.sqs.wait = *s;
  return {};
}

result<void> set_visibility(command_line& cl, std::string_view v) {
  auto s = seconds_within("--visibility", v, sqs::max_visibility_timeout);
  if (!s) return s.error();
  cl.sqs.visibility = *s;
  return {};
}

template <bool command_line::sqs_options::*Flag>
result<void> set_sqs_flag(command_line& cl, std::string_view) {
  cl.sqs.*Flag = true;
  return {};
}

constexpr option_spec lines{"lines", 0, "",
                            "send: each line of stdin as one message (empty lines\nskipped), in batches of up to 10 "
                            "or 256 KiB, sent at\nonce when stdin is idle for 200 ms",
                            set_sqs_flag<&command_line::sqs_options::lines>};
constexpr option_spec max{"max", 0, "N",
                          "receive: at most N messages in all (default 1; with\n--drain, no limit)", set_max};
constexpr option_spec wait{"wait", 0, "S", "receive: wait up to S seconds (0-20) for a message (long\npoll); default: "
                                           "the queue's ReceiveMessageWaitTimeSeconds",
                           set_wait};
constexpr option_spec visibility{"visibility", 0, "S",
                                 "receive: hide the messages received from other\nreceivers for S seconds (0-43200); "
                                 "default: the queue's",
                                 set_visibility};
constexpr option_spec delete_after{"delete", 0, "",
                                   "receive: delete each message once it is printed",
                                   set_sqs_flag<&command_line::sqs_options::delete_after>};
constexpr option_spec drain{"drain", 0, "", "receive: keep receiving until a receive comes back empty",
                            set_sqs_flag<&command_line::sqs_options::drain>};
constexpr option_spec const* sqs_options[] = {&lines, &max, &wait, &visibility, &delete_after, &drain};

constexpr verb_spec sqs_verbs[] = {
    {.name = "sqs",
     .min_args = 2,
     .max_args = many + 1,
     .operands = "create|url|attrs|purge|send|receive|delete QUEUE [ARGS]",
     .summary = "SQS queues and messages",
     .description =
         "  floe sqs create NAME           make a queue (or find the same one); prints its URL\n"
         "  floe sqs url NAME              the queue's URL (exit 4 when there is no such queue)\n"
         "  floe sqs attrs QUEUE           its attributes, NAME=VALUE lines\n"
         "  floe sqs purge QUEUE           delete every message in it\n"
         "  floe sqs send QUEUE [BODY]     send BODY, or stdin as one message; prints the\n"
         "                                 message id. --lines: each line of stdin a message\n"
         "  floe sqs receive QUEUE         print message bodies exactly, each followed by a\n"
         "                                 newline (--json: ids, receipt handles, attributes)\n"
         "  floe sqs delete QUEUE RECEIPT...  delete received messages by receipt handle\n"
         "QUEUE is a queue URL or a name (looked up with GetQueueUrl). The endpoint:\n"
         "--endpoint-url when given, else AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL, the\n"
         "profile, https://sqs.REGION.amazonaws.com. A missing queue exits 4.\n",
     .options = sqs_options,
     .check = check_sqs,
     .run = cmd_sqs,
     .own_session = true},
};

}  // namespace

namespace verbs {
extern family const sqs = sqs_verbs;  // registered in verbs.cpp
}  // namespace verbs

}  // namespace floe::cli
