// watch::deletion: DeleteMessageBatch requests and what each reply means.
#include <floe/watch/deletion.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace watch_deletion_test {

using namespace floe::watch;
using floe::errc;

namespace {

std::vector<std::string> handles(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("rh-" + std::to_string(i));
  return out;
}

floe::sqs::batch_result all_ok(floe::sqs::delete_message_batch_params const& p) {
  floe::sqs::batch_result r;
  for (auto const& e : p.entries) r.successful.push_back(e.id);
  return r;
}

}  // namespace

TEST_CASE("handles are de-duplicated and sent 10 at a time with distinct Ids") {
  auto h = handles(23);
  h.push_back("rh-3");
  h.push_back("");
  deletion d(h);
  CHECK(d.handles().size() == 23);
  std::vector<std::size_t> sizes;
  while (auto req = d.next()) {
    auto p = d.params("http://q/1/q", *req);
    CHECK(p.queue_url == "http://q/1/q");
    sizes.push_back(p.entries.size());
    for (std::size_t i = 1; i < p.entries.size(); ++i) CHECK(p.entries[i].id != p.entries[i - 1].id);
    d.on_reply(*req, all_ok(p));
  }
  CHECK(sizes == std::vector<std::size_t>{10, 10, 3});
  CHECK(d.done());
  CHECK(d.deleted() == 23);
}

TEST_CASE("ReceiptHandleIsInvalid is gone, a sender fault is given up, anything else retried") {
  deletion d(handles(4), 3);
  auto req = d.next();
  REQUIRE(req);
  floe::sqs::batch_result r;
  r.successful = {"0"};
  r.failed.push_back({"1", "ReceiptHandleIsInvalid", "gone", true, false});
  r.failed.push_back({"2", "InvalidParameterValue", "bad", true, false});
  r.failed.push_back({"3", "InternalError", "try again", false, false});
  d.on_reply(*req, r);
  CHECK(d.deleted() == 1);
  CHECK(d.gone() == 1);
  CHECK(d.given_up() == 1);
  CHECK_FALSE(d.done());
  auto again = d.next();
  REQUIRE(again);
  CHECK(*again == deletion::request{3});
  d.on_reply(*again, all_ok(d.params("u", *again)));
  CHECK(d.done());
  CHECK(d.deleted() == 2);
  CHECK(d.failures().size() == 1);
}

TEST_CASE("an entry the reply does not mention, or an MD5 floe found wrong, is tried again") {
  deletion d(handles(2), 2);
  auto req = d.next();
  floe::sqs::batch_result r;
  r.failed.push_back({"0", "MissingFromReply", "", true, true});  // client_detected: not the sender's fault
  d.on_reply(*req, r);  // "1" not mentioned at all
  auto again = d.next();
  REQUIRE(again);
  CHECK(again->size() == 2);
  d.on_reply(*again, floe::sqs::batch_result{});
  CHECK(d.done());
  CHECK(d.given_up() == 2);  // two attempts each, then given up
  CHECK_FALSE(d.next());
}

TEST_CASE("a whole request that fails counts one attempt per entry") {
  deletion d(handles(3), 2);
  floe::error e(errc::transient);
  auto req = d.next();
  d.on_error(*req, e);
  req = d.next();
  REQUIRE(req);
  CHECK(req->size() == 3);
  d.on_error(*req, e);
  CHECK(d.done());
  CHECK(d.given_up() == 3);
}

TEST_CASE("a one-entry request refused for its handle: the message is gone") {
  deletion d(handles(1));
  auto req = d.next();
  floe::error e(errc::invalid_receipt_handle);
  d.on_error(*req, e);
  CHECK(d.done());
  CHECK(d.gone() == 1);
}

TEST_CASE("Ids not in the request are ignored") {
  deletion d(handles(2));
  auto req = d.next();
  floe::sqs::batch_result r;
  r.successful = {"0", "7", "x", "01x"};
  d.on_reply(*req, r);
  CHECK(d.deleted() == 1);
  CHECK_FALSE(d.done());
}

}  // namespace watch_deletion_test
