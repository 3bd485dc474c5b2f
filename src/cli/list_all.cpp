// ListObjectsV2 to the end of a prefix.

#include "list_all.hpp"

#include "op_trace.hpp"

namespace floe::cli {

boost::asio::awaitable<result<s3::listing>> list_all(context& x, std::string const& bucket, std::string const& prefix,
                                                     std::string const& delimiter) {
  s3::list_params p;
  p.prefix = prefix;
  p.delimiter = delimiter;
  op_trace trace(x, "ListObjectsV2", "GET", bucket, std::nullopt);
  auto r = co_await x.c.async_list_objects(bucket, p);
  trace.done(r);
  co_return r;
}

}  // namespace floe::cli
