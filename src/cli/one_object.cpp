// SRC and DST of a one-object cp or mv.

#include "one_object.hpp"

#include "output.hpp"
#include "s3_uri.hpp"

#include <filesystem>

namespace floe::cli {

namespace fs = std::filesystem;

std::string one_object::source() const { return dir == way::upload ? local : uri_of(sbucket, skey); }

std::string one_object::destination() const { return dir == way::download ? local : uri_of(dbucket, dkey); }

result<one_object> resolve_one_object(context const& x) {
  std::string const& src = x.cl.args[0];
  std::string const& dst = x.cl.args[1];
  bool const s3_src = is_s3_uri(src), s3_dst = is_s3_uri(dst);
  if (!s3_src && !s3_dst) return usage("one of SRC and DST must be an s3:// URI");
  one_object o;
  if (s3_src) {
    auto s = parse_s3_uri(src);
    if (!s) return s.error();
    if (s->key.empty() || s->key.back() == '/') return usage("SRC names no object (use --recursive for a prefix)");
    o.sbucket = std::move(s->bucket);
    o.skey = std::move(s->key);
    if (s3_dst) {
      auto d = parse_s3_uri(dst);
      if (!d) return d.error();
      o.dir = one_object::way::copy;
      o.dbucket = std::move(d->bucket);
      o.dkey = std::move(d->key);
      if (o.dkey.empty() || o.dkey.back() == '/') o.dkey += base_name(o.skey);
      return o;
    }
    o.dir = one_object::way::download;
    o.local = dst;
    std::error_code ec;
    if (o.local != "-" && (o.local.back() == '/' || fs::is_directory(o.local, ec))) {
      if (o.local.back() != '/') o.local += '/';
      o.local += base_name(o.skey);
    }
    return o;
  }
  auto d = parse_s3_uri(dst);
  if (!d) return d.error();
  o.dir = one_object::way::upload;
  o.local = src;
  o.dbucket = std::move(d->bucket);
  o.dkey = std::move(d->key);
  if (o.dkey.empty() || o.dkey.back() == '/') {
    if (src == "-") return usage("DST must name a key when SRC is stdin");
    o.dkey += base_name(src);
  }
  if (src != "-") {
    std::error_code ec;
    if (fs::is_directory(src, ec)) return usage("'" + printable(src) + "' is a directory (use --recursive)");
  }
  return o;
}

}  // namespace floe::cli
