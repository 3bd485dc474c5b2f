// floe: the command line. Parses, builds an s3::client from the global
// options, runs one verb on an io_context and exits with its code.

#include "commands.hpp"
#include "help.hpp"
#include "interrupt.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "request_log.hpp"
#include "verbs.hpp"

#include <floe/s3/client.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#ifndef FLOE_CLI_VERSION
#define FLOE_CLI_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using namespace floe::cli;
  // A closed stdout (floe cat | head) is a write error, not a signal.
  std::signal(SIGPIPE, SIG_IGN);

  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  auto parsed = parse_command_line(args);
  if (!parsed) {
    // Name the verb in the message when one was recognised.
    std::string verb;
    for (auto a : args)
      if (is_verb(a)) {
        verb = std::string(a);
        break;
      }
    report_usage(verb, parsed.error().diag.message);
    return exit_usage;
  }
  auto const& cl = *parsed;
  if (cl.help) {
    std::fputs(help_text(cl.verb).c_str(), stdout);
    return exit_ok;
  }
  if (cl.version) {
    std::fputs("floe " FLOE_CLI_VERSION "\n", stdout);
    return exit_ok;
  }

  floe::s3::client_config cfg;
  cfg.addressing.endpoint_url = cl.g.endpoint_url;
  cfg.addressing.region = cl.g.region;
  if (cl.g.path_style) cfg.addressing.style = floe::s3::addressing_style::path;
  cfg.shared_files.profile = cl.g.profile;
  cfg.http.tls.ca_file = cl.g.ca_bundle;
  cfg.http.tls.verify_peer = !cl.g.no_verify_ssl;
  // The library never prints; its warnings (today: --no-verify-ssl's, when
  // a TLS connection is made without verification) are the CLI's to show.
  cfg.http.tls.on_warning = [](std::string_view m) {
    std::string line = "floe: warning: ";
    line.append(m).push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stderr);
  };
  // The CLI moves big objects over few connections: 1 MiB reads and writes
  // (the library's default, 64 KiB, suits a pool of many connections) cut
  // the system calls and coroutine turns per byte by 16; `floe cat` of a
  // big object went from ~0.62 to ~0.85-0.90 of wrk's rate (bench/run).
  // At most one such buffer per connection: peak RSS stays under 16 MiB.
  cfg.http.io_chunk = std::size_t{1} << 20;
  if (cl.g.connect_timeout.count() >= 0) cfg.http.connect_timeout = cl.g.connect_timeout;
  if (cl.g.read_timeout.count() >= 0) cfg.http.idle_timeout = cl.g.read_timeout;
  cfg.http.retry.deadline = cl.g.deadline;
  cfg.http.low_speed_limit = cl.g.low_speed_limit;
  if (cl.g.low_speed_time.count() >= 0) cfg.http.low_speed_time = cl.g.low_speed_time;
  if (cl.g.debug) {
    // One line per HTTP attempt (S3 and the STS fetches of credentials).
    global_options const* g = &cl.g;
    cfg.http.observer = [g](floe::http::exchange_view const& v) { log_exchange(*g, v); };
  }

  boost::asio::io_context io;
  auto client = floe::s3::client::create(io.get_executor(), std::move(cfg));
  if (!client) {
    report_error(cl.g, client.error(), "configuration", "");
    return client.error().code == floe::errc::invalid_argument ? exit_usage : exit_error;
  }

  // SIGINT and SIGTERM cancel the command (interrupt.hpp).
  boost::asio::cancellation_signal cancel;
  interrupt_watch watch(io, cancel);
  int rc = exit_error;
  auto finished = [&rc, &cl, &watch](std::exception_ptr e, int code) {
    watch.done();
    if (interrupted() != 0) return;  // a cancelled command may end by a throw: the exit code says it
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (std::exception const& ex) {
        floe::error err(floe::errc::invalid_argument, std::string("internal error: ") + ex.what());
        report_error(cl.g, err, cl.verb, "");
      } catch (...) {
        floe::error err(floe::errc::invalid_argument, "internal error");
        report_error(cl.g, err, cl.verb, "");
      }
      rc = exit_error;
      return;
    }
    rc = code;
  };
  boost::asio::co_spawn(io, run_command(**client, cl), boost::asio::bind_cancellation_slot(cancel.slot(), finished));
  // Returns when the command and what it left running (the abort of a
  // cancelled upload) are done.
  io.run();
  std::fflush(stdout);
  if (int const sig = interrupted()) return 128 + sig;
  return rc;
}
