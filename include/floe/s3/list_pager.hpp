#pragma once
// s3::list_pager: a ListObjectsV2 listing read a page at a time, as the
// pages arrive, so that a caller works while listing and holds one page
// (at most 1000 keys) whatever the number of keys under the prefix.
// client::async_list_objects is the same listing gathered whole.
//
//   s3::list_params p;
//   p.prefix = "logs/";
//   s3::list_pager pages(*client, "bkt", p);
//   while (!pages.done()) {
//     auto page = co_await pages.async_next_page(asio::use_awaitable);
//     if (!page) co_return report(page.error());
//     for (auto& o : page->objects) use(o);  // page->common_prefixes with a delimiter
//   }
//
// async_next_page completes with result<list_page>: the next page (keys
// URL-decoded, as async_list_objects gives them), or an error. Errors: those
// of any request (denied, not_found for a missing bucket, a transport
// failure after the HTTP layer's retries: the listing stays where it was,
// and calling again asks for the same page once more), and
// errc::malformed_reply for a reply that is not a listing or a store whose
// pages would never end (a continuation token seen before in this listing,
// a truncated page without a token, list_params::max_empty_pages empty
// pages in a row): done() is then true. After the last page (or
// list_params::max_keys keys) done() is true; asking again completes with an
// empty page.
//
// One page at a time: do not call async_next_page before the previous call
// completed. Cancellation: as any client operation (terminal cancellation
// aborts the request in flight; the listing stays where it was). Lifetimes:
// the client and the pager must outlive every call; the pager is not
// movable while a call is in flight. Runs on the client's executor.

#include <floe/result.hpp>
#include <floe/s3/client.hpp>
#include <floe/s3/detail/pagination.hpp>
#include <floe/s3/params.hpp>
#include <floe/s3/replies.hpp>

#include <boost/asio/deferred.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace floe::s3 {

class list_pager {
 public:
  /// Lists `bucket` as `p` says (prefix, delimiter, start_after, page_size,
  /// max_keys, max_empty_pages). Sends nothing until the first call.
  list_pager(client& c, std::string_view bucket, list_params p) : c_(c), cur_(std::string(bucket), std::move(p)) {}

  list_pager(list_pager const&) = delete;
  list_pager& operator=(list_pager const&) = delete;

  /// The next page: completes with result<list_page>.
  template <class Token = boost::asio::deferred_t>
  auto async_next_page(Token&& token = {}) {
    return c_.start<result<list_page>>([this]() { return c_.do_list_page(cur_); }, std::forward<Token>(token));
  }

  /// No page follows (the last one came, max_keys were listed, or the
  /// store's pages were refused).
  bool done() const noexcept { return cur_.done; }
  /// Pages received so far.
  unsigned pages() const noexcept { return cur_.pages; }
  /// Keys received so far (common prefixes not counted).
  std::uint64_t keys() const noexcept { return cur_.listed; }

 private:
  client& c_;
  detail::list_cursor cur_;
};

}  // namespace floe::s3
