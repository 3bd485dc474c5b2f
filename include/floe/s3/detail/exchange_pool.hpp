#pragma once
// Warm request/response pairs, reused between an s3::client's operations so
// that a request on a warm client does not allocate its header lists and
// strings again.

#include <floe/http/message.hpp>
#include <floe/s3/detail/operation.hpp>

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace floe::s3::detail {

// A request and its reply, kept warm between operations: their header lists
// and strings keep their memory.
struct exchange {
  http::request req;
  http::response res;
  op_scratch scratch;
};

struct exchange_pool {
  std::vector<std::unique_ptr<exchange>> spares;
};

// Lends an exchange from the client's spares (a new one when there is none)
// and gives it back, emptied, at scope exit. At most max_spare are kept:
// more than that many operations in flight allocate their own. The lease
// shares the pool: a coroutine frame destroyed after its client (an
// io_context torn down with operations pending) still returns it safely.
class exchange_lease {
 public:
  static constexpr std::size_t max_spare = 64;
  explicit exchange_lease(std::shared_ptr<exchange_pool> const& pool) : pool_(pool) {
    if (pool_->spares.empty()) {
      x_ = std::make_unique<exchange>();
    } else {
      x_ = std::move(pool_->spares.back());
      pool_->spares.pop_back();
    }
  }
  ~exchange_lease() {
    if (pool_->spares.size() >= max_spare) return;
    x_->req.clear();
    x_->res.clear();
    x_->scratch.spec.owned = {};  // no copy of a secret waits in the pool
    x_->scratch.failure.clear();
    pool_->spares.push_back(std::move(x_));
  }
  exchange_lease(exchange_lease const&) = delete;
  exchange_lease& operator=(exchange_lease const&) = delete;
  http::request& req() noexcept { return x_->req; }
  http::response& res() noexcept { return x_->res; }
  op_scratch& scratch() noexcept { return x_->scratch; }

 private:
  std::shared_ptr<exchange_pool> pool_;
  std::unique_ptr<exchange> x_;
};

}  // namespace floe::s3::detail
