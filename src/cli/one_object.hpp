#pragma once
// What SRC and DST of a one-object cp or mv name: which way it goes, the
// key or file on each side (a DST ending in '/', or an existing directory,
// gets the source's base name), or the usage error.

#include "context.hpp"

#include <string>

namespace floe::cli {

struct one_object {
  enum class way { upload, download, copy } dir = way::upload;
  std::string sbucket, skey;  // S3 source
  std::string dbucket, dkey;  // S3 destination
  std::string local;          // the local side ("-": stdin or stdout)
  std::string source() const;       // as typed in lines: path or URI
  std::string destination() const;
};

/// From x.cl.args[0] and [1]; a usage message when they name no object.
result<one_object> resolve_one_object(context const& x);

}  // namespace floe::cli
