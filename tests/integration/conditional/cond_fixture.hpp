// The fixture the conditional integration programs share: a client on the
// store under test (cond_target), a fresh bucket emptied and removed at the
// end, and the check that the proxy's SigV4 verifier rejected nothing.
#pragma once

#include "cond_target.hpp"

#include <floe/s3/conditional.hpp>

#include <boost/asio/use_future.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#ifndef REQUIRE_OK
#define REQUIRE_OK(r) REQUIRE_MESSAGE((r).has_value(), ((r).has_value() ? std::string() : (r).error().what()))
#endif

namespace floe::test {

struct cond_fixture {
  boost::asio::io_context io;
  std::unique_ptr<s3::client> c;
  std::string bucket;

  explicit cond_fixture(std::string const& what) {
    auto& t = cond_target::get();
    t.control.reset();
    c = t.make_client(io);
    bucket = floe::test::unique_bucket(what);
    auto f = c->async_create_bucket(bucket, boost::asio::use_future);
    auto r = finish(io, f);
    REQUIRE_OK(r);
  }
  ~cond_fixture() {
    try {
      cond_target::get().control.delete_rules();
      auto lf = c->async_list_objects(bucket, boost::asio::use_future);
      auto l = finish(io, lf);
      if (l && !l->objects.empty()) {
        std::vector<std::string> keys;
        for (auto const& o : l->objects) keys.push_back(o.key);
        auto df = c->async_delete_objects(bucket, std::move(keys), boost::asio::use_future);
        (void)finish(io, df);
      }
      auto bf = c->async_delete_bucket(bucket, boost::asio::use_future);
      (void)finish(io, bf);
    } catch (...) {
    }
    auto const n = cond_target::get().control.stat("signature_failures");
    CHECK_MESSAGE(n == 0, "the proxy's SigV4 verifier rejected " << n << " request(s)");
  }

  floe::result<s3::write_outcome> put_if(std::string const& key, std::string const& data, std::string const& if_match,
                                     std::string const& if_none_match) {
    s3::put_params p;
    p.if_match = if_match;
    p.if_none_match = if_none_match;
    auto body = floe::http::body_source::memory(data);
    auto f = s3::async_put_conditional(*c, bucket, key, body, p, boost::asio::use_future);
    return finish(io, f);
  }
  floe::result<s3::put_result> put(std::string const& key, std::string const& data) {
    auto body = floe::http::body_source::memory(data);
    auto f = c->async_put_object(bucket, key, body, boost::asio::use_future);
    return finish(io, f);
  }
  floe::result<s3::get_result> head(std::string const& key) {
    auto f = c->async_head_object(bucket, key, boost::asio::use_future);
    return finish(io, f);
  }
  floe::result<s3::get_result> get(std::string const& key) {
    auto f = c->async_get_object(bucket, key, boost::asio::use_future);
    return finish(io, f);
  }
};

}  // namespace floe::test
