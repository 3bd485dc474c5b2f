// Compiles floe watch's runner (src/cli/watch_run.hpp and the watcher
// template) against a queue type with sqs::client's API, so the code that
// the real client will instantiate is type-checked in every build. Never
// run: no test calls run_watch_instance.
#include "watch_run.hpp"

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace cli_watch_run_instance_test {

namespace {

namespace asio = boost::asio;

struct probe_queue {
  template <class Params, class Token>
  asio::awaitable<floe::result<typename Params::result_type>> async_call(Params, Token) {
    co_return floe::error(floe::errc::unsupported, "probe");
  }
  template <class Token>
  asio::awaitable<floe::result<std::string>> async_queue_url(floe::sqs::queue_ref, Token) {
    co_return floe::error(floe::errc::unsupported, "probe");
  }
};
static_assert(floe::watch::queue_client<probe_queue>);

}  // namespace

boost::asio::awaitable<int> run_watch_instance(floe::cli::context& x) {
  probe_queue q;
  co_return co_await floe::cli::run_watch(x, q);
}

}  // namespace cli_watch_run_instance_test
