// Downloads: a cut body resumed with Range and If-Match, an object changed
// between the parts, and a failed or not-modified download that leaves the
// file it would have replaced as it was.
#include "s3_suite.hpp"

// Its own namespace: it shares a build unit with other test files
// (tests/integration/meson.build).
namespace s3_downloads_it {

namespace {

std::string read_all(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> dir_entries(fs::path const& dir) {
  std::vector<std::string> names;
  for (auto const& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("a download cut mid-body resumes with Range and If-Match and yields the whole object") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "resume");
  temp_dir dir;
  auto const src = dir.pattern_file("src", 3u << 20, 7);
  auto uf = c->async_upload_file(b.name, "obj", src, asio::use_future);
  REQUIRE_OK(finish(io, uf));
  auto& ctl = s3_target::get().control;
  int const cut = ctl.add_rule(R"({"match": {"method": "GET", "path": "^/)" + b.name +
                               R"(/obj$"}, "trigger": {"nth": [1]}, "action": {"type": "cut", "when": "mid_body", "after_bytes": 1000000}})");
  int const resumed = ctl.add_rule(R"({"match": {"method": "GET", "path": "^/)" + b.name +
                                   R"(/obj$", "headers_present": ["Range", "If-Match"]}, "action": {"type": "delay", "ms": 0}})");
  auto const out = dir.file("out");
  auto df = c->async_download(b.name, "obj", out, asio::use_future);
  auto d = finish(io, df);
  REQUIRE_OK(d);
  CHECK(d->resumes == 1);
  CHECK(ctl.rule_counter(cut, "fired") == 1);
  CHECK(ctl.rule_counter(resumed, "fired") == 1);
  CHECK(fs::file_size(out) == (3u << 20));
  CHECK(sha256_file(out) == sha256_file(src));
}

TEST_CASE("a resumed GET whose object changed in between fails and splices nothing") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "changed");
  std::string const v1(2u << 20, 'a');
  std::string const v2(2u << 20, 'b');
  REQUIRE_OK(put(io, *c, b.name, "obj", v1));
  auto& ctl = s3_target::get().control;
  int const cut = ctl.add_rule(R"({"match": {"method": "GET", "path": "^/)" + b.name +
                               R"(/obj$"}, "trigger": {"nth": [1]}, "action": {"type": "cut", "when": "mid_body", "after_bytes": 500000}})");
  // On the first bytes, overwrite the object (another client on its own
  // io_context, run to completion here): the resume that follows the cut
  // must then find another version.
  std::string got;
  bool overwritten = false;
  std::string overwrite_error;
  floe::http::body_sink::write_fn sink = [&](std::string_view piece, boost::system::error_code&) {
    got.append(piece);
    if (overwritten) return;
    overwritten = true;
    asio::io_context io2;
    auto c2 = make_client(io2);
    auto body = body_source::memory(v2);
    auto pf = c2->async_put_object(b.name, "obj", body, asio::use_future);
    auto const deadline = std::chrono::steady_clock::now() + 60s;
    while (pf.wait_for(0s) != std::future_status::ready && std::chrono::steady_clock::now() < deadline)
      { if (io2.stopped()) io2.restart(); io2.run_one_for(50ms); }
    if (pf.wait_for(0s) != std::future_status::ready) overwrite_error = "overwrite did not finish";
    else if (auto r = pf.get(); !r) overwrite_error = r.error().what();
  };
  auto gf = c->async_get_object_to(b.name, "obj", sink, asio::use_future);
  auto g = finish(io, gf);
  CHECK(overwritten);
  CHECK(overwrite_error.empty());
  CHECK(ctl.rule_counter(cut, "fired") == 1);
  REQUIRE(!g.has_value());
  CHECK(g.error().code == errc::precondition_failed);
  CHECK(g.error().diag.http_status == 412);
  CHECK(g.error().diag.message.find("changed during the download") != std::string::npos);
  CHECK(got.size() < v1.size());
  CHECK(got.find('b') == std::string::npos);  // nothing of the new version was appended
}

TEST_CASE("a download that fails (404, failed If-Match) or is not modified (304) leaves the existing file as it was") {
  proxy_scope px;
  asio::io_context io;
  auto c = make_client(io);
  bucket_guard b(io, *c, "dlkeep");
  std::string const data = "the object's body";
  auto p = put(io, *c, b.name, "obj", data);
  REQUIRE_OK(p);
  temp_dir dir;
  auto const path = dir.file("out");
  std::string const previous = "what the file held before: not to be lost";
  {
    std::ofstream pre(path, std::ios::binary);
    pre << previous;
  }
  auto const only_the_file = std::vector<std::string>{"out"};

  auto mf = c->async_download(b.name, "no such key", path, asio::use_future);
  auto m = finish(io, mf);
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error().code == errc::not_found);
  CHECK(read_all(path) == previous);
  CHECK(dir_entries(dir.path) == only_the_file);  // no temporary file left behind

  floe::s3::get_params wrong;
  wrong.conditions.if_match = std::string(32, '0');
  auto wf = c->async_download(b.name, "obj", path, wrong, asio::use_future);
  auto w = finish(io, wf);
  REQUIRE_FALSE(w.has_value());
  CHECK(w.error().code == errc::precondition_failed);
  CHECK(read_all(path) == previous);
  CHECK(dir_entries(dir.path) == only_the_file);

  floe::s3::get_params current;
  current.conditions.if_none_match = p->etag;
  auto nf = c->async_download(b.name, "obj", path, current, asio::use_future);
  auto n = finish(io, nf);
  REQUIRE_OK(n);
  CHECK(n->not_modified);
  CHECK(read_all(path) == previous);
  CHECK(dir_entries(dir.path) == only_the_file);

  // A failure before any file existed creates none.
  auto const fresh = dir.file("fresh");
  auto ff = c->async_download(b.name, "no such key", fresh, asio::use_future);
  CHECK_FALSE(finish(io, ff).has_value());
  CHECK_FALSE(fs::exists(fresh));

  // A download that succeeds replaces the content, keeping the permissions.
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  auto gf = c->async_download(b.name, "obj", path, asio::use_future);
  REQUIRE_OK(finish(io, gf));
  CHECK(read_all(path) == data);
  CHECK(dir_entries(dir.path) == only_the_file);
  CHECK(fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
}

}  // namespace s3_downloads_it
