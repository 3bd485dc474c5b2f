// Warm request/response pairs lent to an s3::client's operations and given
// back emptied (s3/detail/exchange_pool.hpp).
#include <floe/s3/detail/exchange_pool.hpp>
// The pooled scratch is also S3's hooks into the service driver; their
// definitions come with the client (s3/impl/driver.ipp) in a header-only build.
#include <floe/s3/client.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_exchange_pool_test {

using namespace floe;
using floe::s3::detail::exchange_lease;
using floe::s3::detail::exchange_pool;

TEST_CASE("exchange_lease: an exchange comes back emptied, secrets and outcome included, and is lent again") {
  auto pool = std::make_shared<exchange_pool>();
  http::request* first = nullptr;
  {
    exchange_lease x(pool);
    first = &x.req();
    x.req().method = "PUT";
    x.req().headers.set("x-amz-meta-a", "1");
    x.res().status = 500;
    x.res().body = "reply";
    x.scratch().spec.owned.access_key_id = "AKIDEXAMPLE";
    x.scratch().spec.owned.secret_access_key = credentials::secret_string("secret");
    x.scratch().failure = error(errc::service_error, "boom");
    CHECK(pool->spares.empty());
  }
  REQUIRE(pool->spares.size() == 1);
  exchange_lease again(pool);
  CHECK(&again.req() == first);  // the same warm pair, not a new one
  CHECK(pool->spares.empty());
  CHECK(again.req().method == "GET");
  CHECK(again.req().headers.size() == 0);
  CHECK(again.res().status == 0);
  CHECK(again.res().body.empty());
  CHECK(again.scratch().spec.owned.access_key_id.empty());
  CHECK(again.scratch().spec.owned.secret_access_key.empty());
  CHECK_FALSE(again.scratch().failure.code);
}

TEST_CASE("exchange_lease: at most max_spare exchanges are kept; more in flight allocate their own") {
  auto pool = std::make_shared<exchange_pool>();
  {
    std::vector<std::unique_ptr<exchange_lease>> leases;
    for (std::size_t i = 0; i < exchange_lease::max_spare + 5; ++i) leases.push_back(std::make_unique<exchange_lease>(pool));
  }
  CHECK(pool->spares.size() == exchange_lease::max_spare);
}

TEST_CASE("exchange_lease: a lease outliving its client's handle on the pool still gives the exchange back") {
  auto pool = std::make_shared<exchange_pool>();
  std::weak_ptr<exchange_pool> watch = pool;
  auto lease = std::make_unique<exchange_lease>(pool);
  pool.reset();  // the client is gone; an operation's frame is not yet
  REQUIRE_FALSE(watch.expired());
  lease.reset();
  CHECK(watch.expired());
}

}  // namespace s3_exchange_pool_test
