// DeleteObjects for rm --recursive, rb --force and sync --delete.

#include "delete_batch.hpp"

#include "op_trace.hpp"
#include "output.hpp"
#include "s3_uri.hpp"
#include "transfer.hpp"

namespace floe::cli {

boost::asio::awaitable<int> delete_keys(context& x, std::string const& bucket, std::vector<std::string>& keys,
                                        delete_tally& tally) {
  if (keys.empty()) co_return exit_ok;
  if (x.cl.dryrun) {
    for (auto const& k : keys) print_op_line(x, "delete", uri_of(bucket, k), "");
    tally.add_deleted(keys);
    co_return exit_ok;
  }
  op_trace trace(x, "DeleteObjects", "POST", bucket, std::nullopt);
  auto r = co_await x.c.async_delete_objects(bucket, keys);
  trace.done(r);
  if (!r) {
    for (auto& k : keys) tally.not_done.push_back(std::move(k));
    co_return fail(x, r.error(), "DeleteObjects", bucket);
  }
  for (auto const& k : r->deleted) print_op_line(x, "delete", uri_of(bucket, k), "");
  tally.add_deleted(r->deleted);
  int rc = exit_ok;
  for (auto const& f : r->errors) {
    error e(errc::service_error);
    e.diag.code = f.code;
    e.diag.message = f.message;
    fail(x, e, "DeleteObjects", resource_of(bucket, f.key));
    tally.errors.push_back(f);
    rc = exit_error;
  }
  // The library stopped after a batch failed (only with more than 1000
  // keys): what it did not do is named, the error decides.
  for (auto& k : r->not_done) tally.not_done.push_back(std::move(k));
  if (!r->complete()) co_return fail(x, r->failure, "DeleteObjects", bucket);
  co_return rc;
}

}  // namespace floe::cli
