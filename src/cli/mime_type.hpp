#pragma once
// The Content-Type an upload gets from its file name when none is given.

#include <string_view>

namespace floe::cli {

/// The media type for the extension of `path`'s last segment (case
/// ignored: "A.JSON" is JSON), or "" when the table has none: the store then
/// applies its own default (S3: binary/octet-stream). Only the last
/// extension counts: "logs.tar.gz" is gzip.
std::string_view guess_content_type(std::string_view path) noexcept;

}  // namespace floe::cli
