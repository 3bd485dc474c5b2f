// The two kinds of tree: an S3 prefix read page by page, a local directory
// read one level at a time in S3's order.

#include "tree_source.hpp"

#include "list_pages.hpp"
#include "listing_format.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <sys/stat.h>
#include <vector>

namespace floe::cli {

namespace fs = std::filesystem;

namespace {

// The walk's order (tree_entry::rel ascending, in bytes) as each entry
// comes: one out of place, or the same name twice, would make sync take an
// entry one side has for one it lacks (and --delete remove it).
class order_check {
 public:
  // Empty when `name` comes after the last; else what is wrong with it.
  std::string misplaced(std::string const& name) {
    std::string why;
    if (started_ && name == last_) why = "came twice";
    else if (started_ && name < last_) why = "came after '" + last_ + "'";
    started_ = true;
    last_ = name;
    return why;
  }

 private:
  std::string last_;
  bool started_ = false;
};

class s3_source final : public tree_source {
 public:
  s3_source(context& x, std::string bucket, std::string prefix) : pages_(x, std::move(bucket), std::move(prefix), "") {}

  boost::asio::awaitable<result<bool>> next(tree_entry& out) override {
    for (;;) {
      while (at_ < page_.objects.size()) {
        auto& o = page_.objects[at_++];
        std::string_view rel = std::string_view(o.key).substr(pages_.prefix().size());
        if (rel.empty() || (rel.back() == '/' && o.size == 0)) continue;  // the prefix itself, a directory marker
        // Keys in order are rels in order: they share the prefix.
        if (auto why = order_.misplaced(o.key); !why.empty())
          co_return error(errc::malformed_reply, "the listing is not in order: key '" + o.key + "' " + why +
                                                     " (S3 lists each key once, in byte order); stopped there");
        out.rel = std::string(rel);
        out.size = o.size;
        out.mtime = epoch_of_iso8601(o.last_modified).value_or(0);
        out.etag = std::move(o.etag);
        co_return true;
      }
      at_ = 0;
      auto more = co_await pages_.next(page_);
      if (!more) co_return more.error();
      if (!*more) co_return false;
    }
  }

 private:
  list_pages pages_;
  s3::list_page page_;
  std::size_t at_ = 0;
  order_check order_;
};

// Why a directory entry is not sent: `own` is the entry itself, `target`
// what a link points to.
std::string not_regular_reason(fs::file_status own, fs::file_status target) {
  auto kind = [](fs::file_type t) -> std::string {
    switch (t) {
      case fs::file_type::directory: return "a directory";
      case fs::file_type::fifo: return "a fifo";
      case fs::file_type::socket: return "a socket";
      case fs::file_type::block: return "a block device";
      case fs::file_type::character: return "a character device";
      case fs::file_type::not_found: return "nothing (broken)";
      default: return "an unknown kind of file";
    }
  };
  if (fs::is_symlink(own)) return "a symbolic link to " + kind(target.type());
  return kind(own.type());
}

class local_source final : public tree_source {
 public:
  local_source(std::string dir, skipped_fn skipped) : root_(std::move(dir)), skipped_(std::move(skipped)) {
    if (!root_.empty() && root_.back() != '/') root_ += '/';
  }

  boost::asio::awaitable<result<bool>> next(tree_entry& out) override { co_return walk(out); }

 private:
  // The walk itself: nothing in it waits, so a plain function, and never
  // inlined into the coroutine above. clang 14 at -O1 with ASan + UBSan
  // (scripts/test's ASan run) miscompiled this loop in a coroutine: a
  // `co_return true` inside it went on with the loop, every entry was
  // skipped and `cp -r` copied nothing, exit 0. Inlined, it did the same.
  [[gnu::noinline]] result<bool> walk(tree_entry& out) {
    if (!started_) {
      started_ = true;
      struct ::stat st {};
      if (::stat(root_.c_str(), &st) != 0) return system_error_of(errno, "reading " + root_);
      auto opened = open_level("", st);
      if (!opened) return opened.error();
    }
    while (!levels_.empty()) {
      auto& lv = levels_.back();
      if (lv.at == lv.names.size()) {
        levels_.pop_back();
        continue;
      }
      auto const& item = lv.names[lv.at++];
      std::string rel = lv.rel + item.name;
      std::string const path = root_ + rel;
      if (item.directory) {
        struct ::stat st {};
        if (::stat(path.c_str(), &st) != 0) return system_error_of(errno, "reading " + path);
        if (on_the_way(st)) {
          skip({path, std::move(rel), "a symbolic link to a directory that holds it (a loop)", true});
          continue;
        }
        auto opened = open_level(rel + "/", st);
        if (!opened) return opened.error();
        continue;
      }
      std::error_code ec;
      auto const own = fs::symlink_status(path, ec);
      auto const target = fs::status(path, ec);
      struct ::stat st {};
      if (!fs::is_regular_file(target) || ::stat(path.c_str(), &st) != 0) {
        skip({path, std::move(rel), not_regular_reason(own, target), false});
        continue;
      }
      if (auto why = order_.misplaced(rel); !why.empty())
        return error(errc::malformed_reply, "reading " + root_ + ": '" + rel + "' " + why + "; stopped there");
      out.rel = std::move(rel);
      out.size = static_cast<std::uint64_t>(st.st_size);
      out.mtime = static_cast<std::int64_t>(st.st_mtim.tv_sec);
      out.etag.clear();
      return true;
    }
    return false;
  }

  struct name {
    std::string name;
    bool directory = false;  // or a link to one
    // What orders it: a directory sorts as "name/", so that "a.txt" comes
    // before everything in "a/" as "a.txt" < "a/b" in a listing.
    std::string order;
  };
  struct level {
    std::string rel;  // "" or "sub/dir/"
    std::vector<name> names;
    std::size_t at = 0;
    dev_t dev = 0;  // the directory itself, where a link
    ino_t ino = 0;  // may lead back to it
  };

  // Whether the directory `st` is one the walk is in (a link to it loops).
  bool on_the_way(struct ::stat const& st) const {
    return std::any_of(levels_.begin(), levels_.end(),
                       [&](level const& lv) { return lv.dev == st.st_dev && lv.ino == st.st_ino; });
  }

  void skip(skipped_entry e) {
    if (skipped_) skipped_(e);
  }

  result<void> open_level(std::string rel, struct ::stat const& st) {
    level lv;
    lv.rel = std::move(rel);
    lv.dev = st.st_dev;
    lv.ino = st.st_ino;
    std::string const dir = root_ + lv.rel;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      name n;
      n.name = it->path().filename().string();
      std::error_code sec;
      n.directory = fs::is_directory(it->status(sec));  // a link to a directory is walked too
      n.order = n.directory ? n.name + "/" : n.name;
      lv.names.push_back(std::move(n));
    }
    if (ec) return system_error_of(ec.value(), "reading " + dir);
    std::sort(lv.names.begin(), lv.names.end(), [](name const& a, name const& b) { return a.order < b.order; });
    levels_.push_back(std::move(lv));
    return {};
  }

  std::string root_;
  skipped_fn skipped_;
  std::vector<level> levels_;
  order_check order_;
  bool started_ = false;
};

}  // namespace

std::unique_ptr<tree_source> s3_tree(context& x, std::string bucket, std::string prefix) {
  return std::make_unique<s3_source>(x, std::move(bucket), std::move(prefix));
}

std::unique_ptr<tree_source> local_tree(std::string dir, skipped_fn skipped) {
  return std::make_unique<local_source>(std::move(dir), std::move(skipped));
}

std::string local_path_of(std::string const& dir, std::string const& rel) {
  if (dir.empty()) return rel;
  if (dir.back() == '/') return dir + rel;
  return dir + "/" + rel;
}

}  // namespace floe::cli
