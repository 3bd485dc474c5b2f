// Whether a streamed GetObject's replies add up to the object
// (s3/detail/download_check.hpp), pure: a reply head at a time.
#include <floe/s3/detail/download_check.hpp>

#include <doctest/doctest.h>

#include <optional>
#include <string>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace s3_download_check_test {

using namespace floe::s3::detail;

namespace {
reply_facts_of_body head(unsigned status, std::string_view range = {}, std::optional<std::uint64_t> length = {}) {
  reply_facts_of_body f;
  f.status = status;
  f.content_range = range;
  f.content_length = length;
  return f;
}
using range = download_check::byte_range;
}  // namespace

TEST_CASE("parse_content_range: bytes FIRST-LAST/TOTAL, TOTAL '*' unknown; anything else refused") {
  auto r = parse_content_range("bytes 0-4/100000");
  REQUIRE(r);
  CHECK(r->first == 0);
  CHECK(r->last == 4);
  CHECK(r->total == 100000u);
  r = parse_content_range("bytes 10-19/*");
  REQUIRE(r);
  CHECK_FALSE(r->total);
  for (auto bad : {"", "bytes", "bytes */100", "bytes 5-4/100", "bytes 0-100/100", "bytes -1-4/10", "bytes 0-4",
                   "items 0-4/10", "bytes 0-4/10x", "bytes 0x-4/10", "bytes +0-4/10", "bytes 0-4/",
                   "bytes 0-99999999999999999999999/1"})
    CHECK_MESSAGE(!parse_content_range(bad), bad);
}

TEST_CASE("an unranged GET: a 200 with its Content-Length is the object; the bytes delivered must reach it") {
  download_check c(std::nullopt);
  CHECK(c.accept(head(200, {}, 100), false, 0).empty());
  CHECK(c.total() == 100u);
  CHECK(c.complete(100).empty());
  CHECK(c.complete(99) == "the download ended after 99 of 100 bytes");
}

TEST_CASE("an unranged GET answered 206 is a piece passed off as the object: refused") {
  download_check c(std::nullopt);
  auto why = c.accept(head(206, "bytes 0-4/100000", 5), false, 0);
  CHECK(why.find("a 206") != std::string::npos);
  CHECK(why.find("asked for no range") != std::string::npos);
}

TEST_CASE("an unranged GET answered 204 or another 2xx is not the object") {
  download_check c(std::nullopt);
  CHECK(c.accept(head(204), false, 0) == "the reply was 204, not 200 with the object");
}

TEST_CASE("a chunked 200 (no length announced) is whole when its framing ended it") {
  download_check c(std::nullopt);
  CHECK(c.accept(head(200), false, 0).empty());
  CHECK_FALSE(c.total());
  CHECK(c.complete(12345).empty());
}

TEST_CASE("a resume: 206 from where the download stopped to the end, total as first announced") {
  download_check c(std::nullopt);
  REQUIRE(c.accept(head(200, {}, 100), false, 0).empty());
  CHECK(c.accept(head(206, "bytes 40-99/100", 60), true, 40).empty());
  CHECK(c.complete(100).empty());
  // Broken again: the next resume is checked against the same total.
  CHECK(c.accept(head(206, "bytes 70-99/100", 30), true, 70).empty());
}

TEST_CASE("a resume answered with an empty 200, a 204 or a 200 that ignored Range is refused") {
  for (unsigned status : {200u, 204u}) {
    download_check c(std::nullopt);
    REQUIRE(c.accept(head(200, {}, 100), false, 0).empty());
    auto why = c.accept(head(status, {}, 0), true, 40);
    CHECK_MESSAGE(why.find("asked for bytes from 40, the reply was " + std::to_string(status)) == 0, why);
  }
}

TEST_CASE("a resume whose Content-Range total shrank or grew is another version: refused") {
  download_check c(std::nullopt);
  REQUIRE(c.accept(head(200, {}, 100), false, 0).empty());
  auto why = c.accept(head(206, "bytes 40-49/50", 10), true, 40);
  CHECK(why.find("length changed during the download: first 100 bytes, now 50") != std::string::npos);
  why = c.accept(head(206, "bytes 40-199/200", 160), true, 40);
  CHECK(why.find("now 200") != std::string::npos);
  why = c.accept(head(206, "bytes 40-99/*", 60), true, 40);
  CHECK(why.find("now *") != std::string::npos);
}

TEST_CASE("a resume that starts elsewhere, stops short, or whose length disagrees with its range is refused") {
  download_check c(std::nullopt);
  REQUIRE(c.accept(head(200, {}, 100), false, 0).empty());
  CHECK(c.accept(head(206, "bytes 0-99/100", 100), true, 40) ==
        "asked for bytes from 40, the reply holds bytes 0-99");
  CHECK(c.accept(head(206, "bytes 40-59/100", 20), true, 40).find("the download needs bytes 40-99") !=
        std::string::npos);
  CHECK(c.accept(head(206, "bytes 40-99/100", 0), true, 40) ==
        "the 206's Content-Length 0 does not match its Content-Range bytes 40-99");
  CHECK(c.accept(head(206, "", 60), true, 40).find("no usable Content-Range") != std::string::npos);
  CHECK(c.accept(head(206, "bytes 40-99/100", 60), true, 40).empty());
}

TEST_CASE("a ranged GET: the 206 covers exactly the bytes asked (clipped to the object), and all must arrive") {
  download_check c(range{10, 19});
  CHECK(c.accept(head(200, {}, 100), true, 0).find("(Range ignored?)") != std::string::npos);
  CHECK(c.accept(head(206, "bytes 10-19/100", 10), true, 0).empty());
  CHECK(c.complete(10).empty());
  CHECK(c.complete(4) == "the download ended after 4 of 10 bytes");

  download_check open_ended(range{90, std::nullopt});
  CHECK(open_ended.accept(head(206, "bytes 90-99/100", 10), true, 0).empty());
  CHECK(open_ended.complete(10).empty());

  download_check past_end(range{90, 500});  // S3 clips the end to the object
  CHECK(past_end.accept(head(206, "bytes 90-99/100", 10), true, 0).empty());
  CHECK(past_end.complete(10).empty());

  download_check unknown_total(range{0, 9});
  CHECK(unknown_total.accept(head(206, "bytes 0-9/*"), true, 0).empty());
  CHECK(unknown_total.complete(10).empty());
  CHECK_FALSE(unknown_total.complete(0).empty());
}

TEST_CASE("an empty 206 to a resume of a ranged GET delivers nothing: the download is short") {
  download_check c(range{0, 99});
  REQUIRE(c.accept(head(206, "bytes 0-99/1000", 100), true, 0).empty());
  // A chunked 206 with the right range that then ends at once: complete() says so.
  REQUIRE(c.accept(head(206, "bytes 30-99/1000"), true, 30).empty());
  CHECK(c.complete(30) == "the download ended after 30 of 100 bytes");
}

}  // namespace s3_download_check_test
