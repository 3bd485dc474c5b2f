#pragma once
// The INI dialect of ~/.aws/credentials and ~/.aws/config, read the way
// botocore (and so the AWS CLI) reads it: Python's configparser in its
// default, strict mode, plus botocore's nested sub-sections. Pure: bytes in.
//
// The rules, as botocore applies them:
// - Lines end in "\n", "\r\n" or a lone "\r". A UTF-8 byte order mark at the
//   start is skipped (botocore would fail on it; nothing is gained by that).
// - A line whose first non-blank character is '#' or ';' is a comment.
//   There are no inline comments: in "key = v # x" the value is "v # x".
// - "[name]" starts a section; the name is everything between the first '['
//   and the last ']', kept as written (case and inner spaces included:
//   "[ default ]" is not "[default]"). Text after the last ']' is ignored.
// - "key = value" or "key: value": the key is the text before the first '='
//   or ':', blanks trimmed and lower-cased (configparser's optionxform);
//   the value is the rest, blanks trimmed.
// - A line indented deeper than the setting above it continues that
//   setting's value. "key =" followed by indented "k = v" lines is a nested
//   sub-section (botocore: `s3 =\n  addressing_style = path`); nested keys
//   keep their case and are split at the first '='. Blank lines inside a
//   continued value are kept; comment lines are skipped.
// - Errors (the whole file is refused, as botocore refuses it): a setting
//   before any section, a line that is neither a section, a setting nor a
//   comment, an empty key, a section or a key given twice in one file, a
//   nested line without '='. Messages name the file and line and never
//   quote a value (it may be a secret).
// - The section "[DEFAULT]" (upper case) is configparser's defaults section:
//   its settings apply to every other section that lacks them, and it is not
//   itself a section.

#include <floe/config.hpp>
#include <floe/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace floe::credentials {

/// One `key = value` setting.
struct ini_entry {
  std::string key;    // lower-cased at the top level; as written when nested
  std::string value;  // blanks trimmed; continuation lines joined with '\n'
  std::size_t line = 0;  // 1-based line of the key
  /// Set when the value is a nested sub-section (`key =` then indented
  /// `k = v` lines); `value` then holds the raw text.
  std::vector<ini_entry> nested;
  bool is_nested() const noexcept { return !nested.empty(); }
  /// A nested setting by key (exact match), or nullptr.
  FLOE_DECL ini_entry const* find(std::string_view nested_key) const noexcept;
};

struct ini_section {
  std::string name;  // between the brackets, as written
  std::size_t line = 0;
  std::vector<ini_entry> entries;  // in file order
  /// A setting by key (compared lower-cased), or nullptr.
  FLOE_DECL ini_entry const* find(std::string_view key) const noexcept;
};

struct ini_document {
  std::string file;  // the name used in messages
  std::vector<ini_section> sections;  // in file order; [DEFAULT] folded in
  /// A section by exact name, or nullptr.
  FLOE_DECL ini_section const* find(std::string_view name) const noexcept;
};

/// Parses `text`; `file` only names the source in error messages.
/// Errors are errc::invalid_argument with "<file>:<line>: <reason>".
FLOE_DECL result<ini_document> parse_ini(std::string_view text, std::string_view file);

}  // namespace floe::credentials

#if defined(FLOE_HEADER_ONLY)
#include <floe/credentials/impl/ini.ipp>
#endif
