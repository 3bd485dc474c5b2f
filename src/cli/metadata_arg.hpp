#pragma once
// --metadata: user metadata as typed on the command line.

#include <floe/result.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::cli {

using metadata_list = std::vector<std::pair<std::string, std::string>>;

/// Appends the entries of one --metadata value to `out`: NAME=VALUE pairs
/// separated by commas ("a=1,b=2" is two entries), or a JSON object of
/// strings ('{"a": "1,2"}') for values that hold a comma. A value may hold
/// '=' (a name ends at the first). Refused, with a message saying why: a
/// piece without '=' ("a=1,2": is "2" part of a's value or a name?), an
/// empty piece, a name that is not an HTTP token, a JSON value that is not
/// a string, and a name given twice (S3 lower-cases names, so "A" and "a"
/// are the same one).
result<void> parse_metadata_arg(std::string_view value, metadata_list& out);

}  // namespace floe::cli
