// The CLI's pure rules for everyday `aws s3` work: the content type guessed
// from a name, --metadata's forms and refusals, --exclude/--include's
// patterns, what sync copies, `ls` lines column for column, and paths as
// operation lines show them.
#include "filters.hpp"
#include "listing_format.hpp"
#include "metadata_arg.hpp"
#include "mime_type.hpp"
#include "parse.hpp"
#include "shown_path.hpp"
#include "tree_entry.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

// Its own namespace: it shares a build unit with other test files
// (tests/unit/meson.build).
namespace cli_cli_rules_test {

using namespace floe;

TEST_CASE("guess_content_type: the issue's table, case ignored, the last extension only") {
  struct row {
    char const* name;
    char const* type;
  };
  for (auto const& r : {row{"a.json", "application/json"}, row{"index.html", "text/html"},
                            row{"s.css", "text/css"}, row{"app.js", "text/javascript"}, row{"t.csv", "text/csv"},
                            row{"notes.txt", "text/plain"}, row{"d.xml", "application/xml"}, row{"i.svg", "image/svg+xml"},
                            row{"p.png", "image/png"}, row{"p.jpg", "image/jpeg"}, row{"p.jpeg", "image/jpeg"},
                            row{"p.gif", "image/gif"}, row{"doc.pdf", "application/pdf"},
                            row{"logs.gz", "application/gzip"}, row{"logs.tar.gz", "application/gzip"},
                            row{"a.tar", "application/x-tar"}, row{"a.zip", "application/zip"},
                            row{"part-0.parquet", "application/vnd.apache.parquet"},
                            row{"r.avro", "application/avro"}, row{"r.orc", "application/vnd.apache.orc"},
                            row{"dir/sub/UPPER.JSON", "application/json"}, row{"Mixed.Html", "text/html"}})
    CHECK_MESSAGE(cli::guess_content_type(r.name) == r.type, r.name);
  // Nothing to go by: the store's default applies.
  for (auto name : {"README", "archive.", "a.unknownext", ".json", "dir.json/file", "", "a.verylongextension"})
    CHECK_MESSAGE(cli::guess_content_type(name).empty(), name);
}

TEST_CASE("--metadata: comma-separated entries, the JSON form, and refusal of what is ambiguous") {
  cli::metadata_list m;
  REQUIRE(cli::parse_metadata_arg("a=1,b=2", m).has_value());
  CHECK(m == cli::metadata_list{{"a", "1"}, {"b", "2"}});
  // A value may hold '=' (a name ends at the first) and be empty.
  REQUIRE(cli::parse_metadata_arg("sig=YWJj==,empty=", m).has_value());
  CHECK(m.size() == 4);
  CHECK(m[2] == std::pair<std::string, std::string>{"sig", "YWJj=="});
  CHECK(m[3] == std::pair<std::string, std::string>{"empty", ""});
  // A value holding ',' only through JSON.
  cli::metadata_list j;
  REQUIRE(cli::parse_metadata_arg(R"({"list": "1,2", "k": "v=w"})", j).has_value());
  CHECK(j == cli::metadata_list{{"list", "1,2"}, {"k", "v=w"}});

  auto refused = [](std::string_view arg, std::string_view says) {
    cli::metadata_list out{{"taken", "x"}};
    auto r = cli::parse_metadata_arg(arg, out);
    REQUIRE_MESSAGE(!r.has_value(), arg);
    CHECK_MESSAGE(r.error().diag.message.find(says) != std::string::npos, r.error().diag.message);
    CHECK_MESSAGE(out.size() == 1, arg);  // nothing of a refused value is kept
  };
  refused("a=1,2", "ambiguous: '2' has no '='");
  refused("a=1,b", "ambiguous");
  refused("novalue", "ambiguous");
  refused("a=1,", "empty entry");
  refused(",a=1", "empty entry");
  refused("=1", "no name");
  refused("a b=1", "must be letters");
  refused("a=1,A=2", "given twice");  // S3 lower-cases names
  refused("Taken=2", "given twice");  // across --metadata options too
  refused(R"({"a": 1})", "not a JSON string");
  refused(R"({"a": "1")", "not a JSON object");
  refused("", "takes NAME=VALUE");
}

TEST_CASE("glob_match: fnmatch's meaning ('*' crosses '/', sets, literals)") {
  using cli::glob_match;
  CHECK(glob_match("*.txt", "a.txt"));
  CHECK(glob_match("*.txt", "sub/dir/a.txt"));  // '*' crosses '/'
  CHECK_FALSE(glob_match("*.txt", "a.txt.gz"));
  CHECK(glob_match("sub/*", "sub/a/b"));
  CHECK_FALSE(glob_match("sub/*", "other/sub/a"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("a?c", "abc"));
  CHECK(glob_match("a?c", "a\xC3\xA9" "c"));  // one UTF-8 character
  CHECK_FALSE(glob_match("a?c", "ac"));
  CHECK(glob_match("[ab]*", "b1"));
  CHECK_FALSE(glob_match("[ab]*", "c1"));
  CHECK(glob_match("[!ab]*", "c1"));
  CHECK(glob_match("log[0-9].gz", "log7.gz"));
  CHECK_FALSE(glob_match("log[0-9].gz", "logx.gz"));
  CHECK(glob_match("[]]", "]"));          // ']' first is a member
  CHECK(glob_match("a[*]", "a*"));        // a literal '*'
  CHECK(glob_match("a[b", "a[b"));        // never closed: a literal '['
  CHECK_FALSE(glob_match("A.txt", "a.txt"));  // case matters
  CHECK(glob_match("*a*b*c*", "xxaxxbxxcxx"));
  CHECK_FALSE(glob_match("*a*b*c*", "xxaxxcxxbxx"));
}

TEST_CASE("included: everything unless a pattern says otherwise; the last match decides") {
  using cli::filter_rule;
  std::vector<filter_rule> none;
  CHECK(cli::included(none, "any/thing"));
  std::vector<filter_rule> rules{{false, "*"}, {true, "*.json"}};
  CHECK(cli::included(rules, "a.json"));
  CHECK_FALSE(cli::included(rules, "a.txt"));
  std::vector<filter_rule> back{{true, "*.json"}, {false, "*"}};  // order matters
  CHECK_FALSE(cli::included(back, "a.json"));
  std::vector<filter_rule> tmp{{false, "tmp/*"}, {true, "tmp/keep*"}, {false, "*.bak"}};
  CHECK_FALSE(cli::included(tmp, "tmp/x"));
  CHECK(cli::included(tmp, "tmp/keep.txt"));
  CHECK_FALSE(cli::included(tmp, "tmp/keep.bak"));
  CHECK(cli::included(tmp, "src/a.c"));
}

TEST_CASE("needs_copy: size, then time (newer source, to the second); --size-only; --exact-timestamps") {
  cli::tree_entry src{"k", 10, 1000, ""}, dst{"k", 10, 1000, ""};
  using cli::compare_mode;
  CHECK_FALSE(cli::needs_copy(src, dst, compare_mode::size_and_time));
  dst.mtime = 2000;  // uploaded after the file was written
  CHECK_FALSE(cli::needs_copy(src, dst, compare_mode::size_and_time));
  src.mtime = 2001;  // the file changed since
  CHECK(cli::needs_copy(src, dst, compare_mode::size_and_time));
  CHECK_FALSE(cli::needs_copy(src, dst, compare_mode::size_only));
  CHECK(cli::needs_copy(src, dst, compare_mode::exact_timestamps));
  src.mtime = 1999;  // older at the source: the default keeps the destination, exact does not
  CHECK_FALSE(cli::needs_copy(src, dst, compare_mode::size_and_time));
  CHECK(cli::needs_copy(src, dst, compare_mode::exact_timestamps));
  src.mtime = dst.mtime;
  CHECK_FALSE(cli::needs_copy(src, dst, compare_mode::exact_timestamps));
  src.size = 11;  // a size that differs always copies
  for (auto m : {compare_mode::size_and_time, compare_mode::size_only, compare_mode::exact_timestamps})
    CHECK(cli::needs_copy(src, dst, m));
}

TEST_CASE("ls lines: aws s3 ls's columns, local time, names after the last '/', PRE, sizes, summary") {
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  CHECK(cli::object_line("2024-05-01T12:03:04.000Z", 1234, "name.txt", false) ==
        "2024-05-01 12:03:04       1234 name.txt\n");
  CHECK(cli::object_line("2024-05-01T12:03:04Z", 12345678901ull, "big", false) ==
        "2024-05-01 12:03:04 12345678901 big\n");
  CHECK(cli::object_line("2024-05-01T12:03:04Z", 1536, "h", true) == "2024-05-01 12:03:04    1.5 KiB h\n");
  CHECK(cli::object_line("2024-05-01T12:03:04Z", 1, "t\tab", false) == "2024-05-01 12:03:04          1 t\\x09ab\n");
  ::setenv("TZ", "Asia/Kolkata", 1);  // +05:30: dates are shown in local time, as aws s3 does
  ::tzset();
  CHECK(cli::object_line("2024-05-01T20:00:00Z", 0, "z", false) == "2024-05-02 01:30:00          0 z\n");
  CHECK(cli::bucket_line("2024-05-01T20:00:00.000Z", "bkt") == "2024-05-02 01:30:00 bkt\n");
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  CHECK(cli::prefix_line("logs/2024/") == "                           PRE 2024/\n");
  CHECK(cli::prefix_line("top/") == "                           PRE top/\n");
  CHECK(cli::listed_name("dir/sub/file.txt", false) == "file.txt");
  CHECK(cli::listed_name("dir/sub/file.txt", true) == "dir/sub/file.txt");
  CHECK(cli::aws_human_size(0) == "0 Bytes");
  CHECK(cli::aws_human_size(1) == "1 Byte");
  CHECK(cli::aws_human_size(1023) == "1023 Bytes");
  CHECK(cli::aws_human_size(1024) == "1.0 KiB");
  CHECK(cli::aws_human_size(1048575) == "1.0 MiB");  // 1023.999 KiB rounds to 1024: the next unit
  CHECK(cli::aws_human_size(5ull << 30) == "5.0 GiB");
  CHECK(cli::summary_lines(3, 13, false) == "\nTotal Objects: 3\n   Total Size: 13\n");
  CHECK(cli::summary_lines(1, 2048, true) == "\nTotal Objects: 1\n   Total Size: 2.0 KiB\n");
}

TEST_CASE("shown_path: the directory relative to the working directory, then the name") {
  CHECK(cli::shown_path("f", "/work") == "./f");
  CHECK(cli::shown_path("./f", "/work") == "./f");
  CHECK(cli::shown_path("sub/f", "/work") == "sub/f");
  CHECK(cli::shown_path("/work/sub/f", "/work") == "sub/f");
  CHECK(cli::shown_path("/tmp/x/f", "/work/a") == "../../tmp/x/f");
  CHECK(cli::shown_path("../f", "/work/a") == "../f");
  CHECK(cli::shown_path("dir/", "/work") == "dir/");  // no name: as typed
}

TEST_CASE("the parser: sync's and mv's options, filters in order, and the combinations refused") {
  auto parse = [](std::vector<std::string_view> argv) { return cli::parse_command_line(argv); };
  auto ok = parse({"sync", "d", "s3://b/p", "--exclude", "*", "--include", "*.json", "--delete", "--dryrun"});
  REQUIRE(ok.has_value());
  REQUIRE(ok->filters.size() == 2);
  CHECK((!ok->filters[0].include && ok->filters[0].pattern == "*"));
  CHECK((ok->filters[1].include && ok->filters[1].pattern == "*.json"));
  CHECK(ok->delete_removed);
  CHECK(ok->dryrun);
  auto refused = [&](std::vector<std::string_view> argv, std::string_view says) {
    auto r = parse(argv);
    REQUIRE_MESSAGE(!r.has_value(), argv[0]);
    CHECK_MESSAGE(r.error().diag.message.find(says) != std::string::npos, r.error().diag.message);
  };
  refused({"sync", "d", "s3://b/p", "--size-only", "--exact-timestamps"}, "exclude each other");
  refused({"cp", "f", "s3://b/k", "--exclude", "*.txt"}, "with --recursive");
  refused({"rm", "s3://b/k", "--include", "*"}, "with --recursive");
  refused({"cp", "-r", "d", "s3://b/p", "--quiet", "--only-show-errors"}, "exclude each other");
  refused({"--json", "sync", "d", "s3://b/p", "--quiet"}, "one document");
  refused({"presign", "s3://b/k", "--expires", "60", "--expires-in", "60"}, "given twice");
  refused({"put", "s3://b/k", "--metadata", "a=1,2"}, "ambiguous");
  refused({"ls", "s3://b", "--delete"}, "does not apply");
  auto in = parse({"presign", "s3://b/k", "--expires-in", "120"});
  REQUIRE(in.has_value());
  CHECK(in->expires.count() == 120);
  auto meta = parse({"cp", "f", "s3://b/k", "--metadata", "a=1,b=2", "--metadata", "c=3"});
  REQUIRE(meta.has_value());
  CHECK(meta->metadata.size() == 3);
}

TEST_CASE("the parser: --storage-class, --sse, --sse-kms-key-id, --acl, --cache-control on every verb that writes") {
  auto parse = [](std::vector<std::string_view> argv) { return cli::parse_command_line(argv); };
  for (std::vector<std::string_view> verb : {std::vector<std::string_view>{"put", "s3://b/k"},
                                             std::vector<std::string_view>{"cp", "f", "s3://b/k"},
                                             std::vector<std::string_view>{"mv", "s3://a/k", "s3://b/k"},
                                             std::vector<std::string_view>{"sync", "d", "s3://b/p"}}) {
    auto argv = verb;
    for (std::string_view a : {"--storage-class", "GLACIER_IR", "--sse", "aws:kms", "--sse-kms-key-id", "arn:k",
                               "--acl", "bucket-owner-full-control", "--cache-control", "max-age=60"})
      argv.push_back(a);
    auto ok = parse(argv);
    REQUIRE_MESSAGE(ok.has_value(), verb[0], ": ", (ok ? std::string() : ok.error().diag.message));
    CHECK(ok->write.storage_class == "GLACIER_IR");
    CHECK(ok->write.sse == "aws:kms");
    CHECK(ok->write.sse_kms_key_id == "arn:k");
    CHECK(ok->write.acl == "bucket-owner-full-control");
    CHECK(ok->write.cache_control == "max-age=60");
  }
  for (std::string_view sc : {"STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING",
                              "GLACIER", "DEEP_ARCHIVE", "GLACIER_IR", "OUTPOSTS", "EXPRESS_ONEZONE"})
    CHECK_MESSAGE(parse({"put", "s3://b/k", "--storage-class", sc}).has_value(), sc);
  for (std::string_view acl : {"private", "public-read", "public-read-write", "authenticated-read", "aws-exec-read",
                               "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write"})
    CHECK_MESSAGE(parse({"cp", "f", "s3://b/k", "--acl", acl}).has_value(), acl);
  CHECK(parse({"put", "s3://b/k", "--sse", "AES256"}).has_value());

  auto refused = [&](std::vector<std::string_view> argv, std::string_view says) {
    auto r = parse(argv);
    REQUIRE_MESSAGE(!r.has_value(), argv[argv.size() - 1]);
    CHECK_MESSAGE(r.error().diag.message.find(says) != std::string::npos, r.error().diag.message);
  };
  refused({"put", "s3://b/k", "--sse", "aes256"}, "--sse takes one of AES256, aws:kms, not \"aes256\"");
  refused({"cp", "f", "s3://b/k", "--storage-class", "standard"}, "not \"standard\"");
  refused({"cp", "f", "s3://b/k", "--storage-class", "COLD"}, "--storage-class takes one of STANDARD,");
  refused({"sync", "d", "s3://b/p", "--acl", "public"}, "--acl takes one of private,");
  refused({"mv", "f", "s3://b/k", "--sse-kms-key-id", "k1"}, "--sse-kms-key-id \"k1\" goes only with --sse aws:kms");
  refused({"put", "s3://b/k", "--sse", "AES256", "--sse-kms-key-id", "k1"}, "not --sse AES256");
  refused({"cp", "-r", "d", "s3://b/p", "--sse-kms-key-id", "k1"}, "goes only with --sse aws:kms");
  refused({"put", "s3://b/k", "--cache-control", ""}, "--cache-control takes a value");
  refused({"rm", "s3://b/k", "--acl", "private"}, "does not apply");
  refused({"ls", "s3://b", "--storage-class", "STANDARD"}, "does not apply");
}

TEST_CASE("the parser: a download takes no option that says how an object is written; --concurrency needs many") {
  auto parse = [](std::vector<std::string_view> argv) { return cli::parse_command_line(argv); };
  auto refused = [&](std::vector<std::string_view> argv, std::string_view says) {
    auto r = parse(argv);
    REQUIRE_MESSAGE(!r.has_value(), argv[argv.size() - 2], " ", argv[argv.size() - 1]);
    CHECK_MESSAGE(r.error().diag.message.find(says) != std::string::npos, r.error().diag.message);
  };
  std::vector<std::vector<std::string_view>> const given{
      {"--content-type", "text/csv"}, {"--metadata", "a=1"},         {"--no-guess-mime-type"},
      {"--storage-class", "STANDARD"}, {"--sse", "AES256"},          {"--sse", "aws:kms", "--sse-kms-key-id", "k"},
      {"--acl", "private"},            {"--cache-control", "no-cache"}};
  for (std::vector<std::string_view> download :
       {std::vector<std::string_view>{"cp", "s3://b/k", "f"}, std::vector<std::string_view>{"cp", "s3://b/k", "-"},
        std::vector<std::string_view>{"cp", "-r", "s3://b/p/", "d"}, std::vector<std::string_view>{"mv", "s3://b/k", "f"},
        std::vector<std::string_view>{"sync", "s3://b/p/", "d"}}) {
    for (auto const& opts : given) {
      auto argv = download;
      argv.insert(argv.end(), opts.begin(), opts.end());
      refused(argv, "applies to what is written to S3 (an upload or an S3-to-S3 copy), not to a download");
      refused(argv, opts[0]);
    }
  }
  // The same options on an upload and an S3-to-S3 copy are taken.
  for (auto const& opts : given) {
    for (std::vector<std::string_view> argv : {std::vector<std::string_view>{"cp", "f", "s3://b/k"},
                                               std::vector<std::string_view>{"cp", "s3://a/k", "s3://b/k"},
                                               std::vector<std::string_view>{"sync", "s3://a/p/", "s3://b/p/"}}) {
      argv.insert(argv.end(), opts.begin(), opts.end());
      auto r = parse(argv);
      CHECK_MESSAGE(r.has_value(), argv[0], " ", opts[0], ": ", (r ? std::string() : r.error().diag.message));
    }
  }

  refused({"cp", "f", "s3://b/k", "--concurrency", "4"}, "--concurrency (objects at once) applies with --recursive");
  refused({"mv", "s3://a/k", "s3://b/k", "--concurrency", "8"}, "applies with --recursive");
  refused({"cp", "s3://a/k", "f", "--concurrency", "2"}, "applies with --recursive");
  CHECK(parse({"cp", "-r", "d", "s3://b/p/", "--concurrency", "4"}).has_value());
  CHECK(parse({"mv", "-r", "s3://a/p/", "s3://b/p/", "--concurrency", "4"}).has_value());
  CHECK(parse({"sync", "d", "s3://b/p/", "--concurrency", "4"}).has_value());
  auto deflt = parse({"cp", "f", "s3://b/k"});
  REQUIRE(deflt.has_value());
  CHECK_FALSE(deflt->concurrency_given);
}

}  // namespace cli_cli_rules_test
