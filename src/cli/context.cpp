// How a verb fails: one report, one exit code.

#include "context.hpp"

#include "interrupt.hpp"
#include "output.hpp"

#include <boost/asio/error.hpp>

#include <cstring>

namespace floe::cli {

int usage_error(context& x, std::string_view message) {
  report_usage(x.cl.verb, message);
  return exit_usage;
}

int fail(context& x, error e, std::string_view operation, std::string_view resource) {
  // After a SIGINT or SIGTERM, what it cancelled is no news: the process
  // says it was interrupted, once, and exits 128 + the signal.
  if (interrupted() != 0 && e.code == boost::asio::error::operation_aborted) return exit_error;
  if (!x.cl.quiet) report_error(x.g, e, operation, resource);
  int const rc = exit_code_for(e);
  if (x.errors != nullptr) {
    if (e.diag.operation.empty()) e.diag.operation = std::string(operation);
    if (e.diag.resource.empty()) e.diag.resource = std::string(resource);
    x.errors->push_back(std::move(e));
  }
  return rc;
}

error system_error_of(int err, std::string message) {
  error e(boost::system::error_code(err, boost::system::system_category()));
  e.diag.message = std::move(message) + ": " + std::strerror(err);
  return e;
}

}  // namespace floe::cli
