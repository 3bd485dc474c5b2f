// Deleting what is under a prefix, a page at a time.

#include "remove_prefix.hpp"

#include "delete_batch.hpp"
#include "filters.hpp"
#include "json_writer.hpp"
#include "list_pages.hpp"
#include "output.hpp"
#include "s3_uri.hpp"

namespace floe::cli {

boost::asio::awaitable<int> remove_prefix(context& x, std::string const& bucket, std::string const& prefix,
                                          delete_tally& tally) {
  list_pages pages(x, bucket, prefix, "");
  s3::list_page page;
  int rc = exit_ok;
  for (;;) {
    auto more = co_await pages.next(page);
    if (!more) {
      rc = worse(rc, fail(x, more.error(), "ListObjectsV2", resource_of(bucket, prefix)));
      break;
    }
    if (!*more) break;
    std::vector<std::string> keys;
    keys.reserve(page.objects.size());
    for (auto& o : page.objects)
      if (included(x.cl.filters, std::string_view(o.key).substr(prefix.size()))) keys.push_back(std::move(o.key));
    std::size_t const not_done_before = tally.not_done.size();
    rc = worse(rc, co_await delete_keys(x, bucket, keys, tally));
    if (tally.not_done.size() != not_done_before) break;  // a request failed: stop there
  }
  co_return rc;
}

void write_tally_fields(context const& x, json_writer& w, delete_tally const& tally) {
  w.key("deleted").begin_array();
  for (auto const& k : tally.deleted) w.value(k);
  w.end_array();
  write_tally_rest(x, w, tally);
}

void write_tally_rest(context const& x, json_writer& w, delete_tally const& tally) {
  w.key("errors").begin_array();
  for (auto const& f : tally.errors)
    w.begin_object().field("key", f.key).field("code", f.code).field("message", f.message).end_object();
  w.end_array().key("not_done").begin_array();
  for (auto const& k : tally.not_done) w.value(k);
  w.end_array();
  if (x.cl.dryrun) w.field("dryrun", true);
}

}  // namespace floe::cli
