// The heal matrix covers every public operation: each async_ function of
// the S3, SQS and STS clients, and each SQS operation's params struct, is
// named by a row (or exempted with a reason), read from the headers
// themselves — so an operation added without its row fails here.
#include "heal_matrix.hpp"

#include <fstream>
#include <iterator>
#include <regex>
#include <set>

namespace floe::test::heal {
namespace {

std::string source(std::string const& rel) {
  char const* root = std::getenv("FLOE_SOURCE_ROOT");
  REQUIRE_MESSAGE(root != nullptr, "FLOE_SOURCE_ROOT is not set: run the tests through meson (scripts/test)");
  std::ifstream in(std::string(root) + "/" + rel);
  REQUIRE_MESSAGE(in.good(), "cannot read " << rel);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::set<std::string> matches(std::string const& text, std::regex const& re) {
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

}  // namespace

TEST_CASE("heal matrix coverage: every public operation of the S3, SQS and STS clients has a row") {
  std::set<std::string> named;
  auto rows = s3_rows();
  for (auto& r : service_rows()) rows.push_back(std::move(r));
  for (auto const& r : rows) {
    named.insert(r.api);
    named.insert(r.operation);
  }
  for (auto const& e : exemptions()) {
    CHECK_MESSAGE(!e.why.empty(), e.api << " is exempted without a reason");
    named.insert(e.api);
  }
  std::regex const fn(R"(auto (async_\w+)\()");
  std::set<std::string> wanted;
  for (auto const* h : {"include/floe/s3/client.hpp", "include/floe/sqs/client.hpp", "include/floe/sts/client.hpp"}) {
    auto const found = matches(source(h), fn);
    CHECK_MESSAGE(!found.empty(), "no async_ function found in " << h);
    wanted.insert(found.begin(), found.end());
  }
  std::regex const op(R"re(std::string_view operation = "(\w+)")re");
  for (auto const* h : {"include/floe/sqs/messages.hpp", "include/floe/sqs/queues.hpp", "include/floe/sqs/batches.hpp"}) {
    auto const found = matches(source(h), op);
    CHECK_MESSAGE(!found.empty(), "no SQS operation found in " << h);
    wanted.insert(found.begin(), found.end());
  }
  CHECK(wanted.size() > 20);
  for (auto const& w : wanted) CHECK_MESSAGE(named.count(w) == 1, w << " has no row in the heal matrix");
  // And no row names something that no longer exists.
  for (auto const& r : rows) {
    bool const known = wanted.count(r.api) == 1;
    CHECK_MESSAGE(known, r.name << " names " << r.api << ", which no client header declares");
  }
}

}  // namespace floe::test::heal
