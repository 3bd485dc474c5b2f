// The heal matrix's runner (heal_matrix.hpp): each row, in a world of its
// own, against three faults at its own request — every issued key revoked
// with an AccessDenied body, the same with a bare 403, and (S3 rows that
// can get one) a region redirect.
#include "heal_matrix.hpp"

#include <floe/session/session.hpp>

#include <random>

namespace floe::test::heal {
namespace {

std::string with_bucket(std::string text, std::string const& bucket) {
  for (auto at = text.find("{B}"); at != std::string::npos; at = text.find("{B}", at + bucket.size()))
    text.replace(at, 3, bucket);
  return text;
}

// A bucket name of the row's own, new in every run (moto keeps what an
// earlier run made): lower case, digits and dashes.
std::string bucket_for(std::string const& row, std::string const& fault) {
  static std::string const run = [] {
    std::random_device rd;
    std::string s;
    for (int i = 0; i < 8; ++i) s += "0123456789abcdefghijklmnopqrstuvwxyz"[rd() % 36];
    return s;
  }();
  static unsigned n = 0;
  std::string b = "heal-" + run + "-" + std::to_string(++n) + "-";
  for (char ch : row + "-" + fault) {
    bool const keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
    if (ch >= 'A' && ch <= 'Z') b += static_cast<char>(ch - 'A' + 'a');
    else if (keep) b += ch;
    else if (b.back() != '-') b += '-';
  }
  b = b.substr(0, 60);
  while (b.back() == '-') b.pop_back();
  return b;
}

// S3's answer to a request sent to the wrong region: a 301 with the
// bucket's region and a PermanentRedirect body; to a HEAD, a bare 400 with
// the header (it cannot carry a body).
std::string redirect_rule(std::string const& target, bool head) {
  if (head)
    return R"({"match": )" + target +
           R"(, "trigger": {"nth": [1]}, "action": {"type": "reply", "status": 400, "headers": {"x-amz-bucket-region": "eu-west-2"}}})";
  std::string const body =
      "<?xml version=\\\"1.0\\\" encoding=\\\"UTF-8\\\"?>\\n<Error><Code>PermanentRedirect</Code><Message>The bucket you "
      "are attempting to access must be addressed using the specified endpoint.</Message><RequestId>R1</RequestId>"
      "<HostId>H1</HostId></Error>";
  return R"({"match": )" + target +
         R"(, "trigger": {"nth": [1]}, "action": {"type": "reply", "status": 301, "headers": {"x-amz-bucket-region": "eu-west-2", "Content-Type": "application/xml"}, "body": ")" +
         body + R"("}})";
}

bool head_request(row const& r) { return r.target.find(R"("method": "HEAD")") != std::string::npos; }

enum class fault { access_denied, bare_403, redirect };

char const* fault_name(fault f) {
  switch (f) {
    case fault::access_denied: return "403 AccessDenied";
    case fault::bare_403: return "bare 403";
    case fault::redirect: return "region redirect";
  }
  return "?";
}

void run_row(row const& r, fault f) {
  INFO("row: " << r.name << " (" << r.api << "), fault: " << std::string(fault_name(f)));
  auto seen = std::make_shared<exchanges>();
  auto observe = [seen](floe::http::exchange_view const& v) { seen->add(v.operation, v.status); };
  world w({}, {}, [&](floe::s3::client_config& sc) {
    // Small parts: a multipart upload or copy of a little over 5 MiB.
    sc.multipart_threshold = 5ull << 20;
    sc.part_size = 5ull << 20;
    sc.multipart_copy_threshold = 5ull << 20;
    sc.copy_part_size = 5ull << 20;
    sc.http.observer = observe;
  });
  ctx c{w, bucket_for(r.name, fault_name(f)), w.dir, nullptr, nullptr, {}, {}};
  // The SQS rows' client shares the S3 client's provider (one cache).
  floe::session_params sp;
  sp.env = w.lookup();
  sp.credentials = w.provider;
  sp.http.observer = observe;
  auto session = floe::session::create(sp);
  REQUIRE_MESSAGE(session.has_value(), (session ? std::string() : session.error().what()));
  c.session = *session;
  floe::sqs::client_options so;
  so.endpoint_url = w.srv.proxy;
  auto sqs = floe::sqs::client::create(w.io.get_executor(), *c.session, so);
  REQUIRE_MESSAGE(sqs.has_value(), (sqs ? std::string() : sqs.error().what()));
  c.sqs = std::move(*sqs);

  REQUIRE(w.creds().has_value());  // a key issued: what "all-issued" revokes
  if (r.setup) r.setup(c);
  auto& ctl = w.srv.control;
  int const assume = ctl.add_rule(
      R"({"match": {"service": "sts", "body": "Action=AssumeRoleWithWebIdentity"}, "action": {"type": "delay", "ms": 0}})");
  auto const rejections = ctl.stat("revoked_rejections");
  std::string const target = with_bucket(r.target, c.bucket);
  int redirect = -1;
  if (f == fault::redirect) {
    redirect = ctl.add_rule(redirect_rule(target, head_request(r)));
  } else {
    std::string const mode = f == fault::bare_403 ? "bare" : "access_denied";
    ctl.call("POST", "/revoke",
             R"({"access_keys": "all-issued", "after_forwarded": 0, "mode": ")" + mode + R"(", "match": )" + target + "}");
  }
  auto const skip = seen->of(r.operation).size();  // the setup's own

  std::string const why = w.run([&]() -> asio::awaitable<std::string> { co_return co_await r.run(c); });
  CHECK_MESSAGE(why.empty(), why);

  auto statuses = seen->of(r.operation);
  statuses.erase(statuses.begin(), statuses.begin() + static_cast<std::ptrdiff_t>(skip));
  std::string listed;
  for (auto s : statuses) listed += std::to_string(s) + " ";
  INFO(r.operation << " got: " << listed);
  unsigned const refusal = f == fault::redirect ? (head_request(r) ? 400u : 301u) : 403u;
  auto const hit = std::find(statuses.begin(), statuses.end(), refusal);
  CHECK_MESSAGE(hit != statuses.end(), "the fault never hit " << r.operation);
  bool const then_ok =
      hit != statuses.end() && std::any_of(hit, statuses.end(), [](unsigned s) { return s / 100 == 2; });
  CHECK_MESSAGE(then_ok, r.operation << " never succeeded after the fault");
  if (f == fault::redirect) {
    CHECK(ctl.rule_counter(redirect, "fired") == 1);
    CHECK(ctl.rule_counter(assume, "fired") == 0);
  } else {
    CHECK(ctl.stat("revoked_rejections") > rejections);
    CHECK(ctl.rule_counter(assume, "fired") == 1);  // one STS call heals all of it
  }
}

void run_rows(std::vector<row> const& rows, fault f) {
  for (auto const& r : rows) {
    if (f == fault::redirect && !r.redirect) continue;
    run_row(r, f);
  }
}

}  // namespace

TEST_CASE("heal matrix, S3: every request shape heals after all keys are refused with AccessDenied") {
  run_rows(s3_rows(), fault::access_denied);
}
TEST_CASE("heal matrix, S3: every request shape heals after all keys are refused with a bare 403") {
  run_rows(s3_rows(), fault::bare_403);
}
TEST_CASE("heal matrix, S3: every request shape S3 may redirect follows a region redirect") {
  run_rows(s3_rows(), fault::redirect);
}
TEST_CASE("heal matrix, SQS and STS: every operation heals after all keys are refused with AccessDenied") {
  run_rows(service_rows(), fault::access_denied);
}
TEST_CASE("heal matrix, SQS and STS: every operation heals after all keys are refused with a bare 403") {
  run_rows(service_rows(), fault::bare_403);
}

}  // namespace floe::test::heal
