// Parsing --metadata values.

#include "metadata_arg.hpp"

#include "command_line.hpp"
#include "output.hpp"

#include <simdjson.h>

#include <algorithm>

namespace floe::cli {

namespace {

bool is_token_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= '0' && u <= '9') return true;
  if ((u | 0x20) >= 'a' && (u | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
           return lower(x) == lower(y);
         });
}

result<void> add(metadata_list& out, std::string_view name, std::string_view value) {
  if (name.empty()) return usage("--metadata: an entry has no name (NAME=VALUE)");
  if (!std::all_of(name.begin(), name.end(), is_token_char))
    return usage("--metadata: the name '" + printable(name) + "' must be letters, digits or !#$%&'*+-.^_`|~");
  for (auto const& [n, v] : out)
    if (same_name(n, name)) return usage("--metadata: '" + printable(name) + "' is given twice");
  out.emplace_back(std::string(name), std::string(value));
  return {};
}

result<void> parse_json(std::string_view value, metadata_list& out) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(value.data(), value.size());
  simdjson::dom::element doc;
  simdjson::dom::object obj;
  if (parser.parse(padded).get(doc) != simdjson::SUCCESS || doc.get(obj) != simdjson::SUCCESS)
    return usage("--metadata: not a JSON object of strings ('{\"name\": \"value\"}')");
  for (auto field : obj) {
    std::string_view v;
    if (field.value.get(v) != simdjson::SUCCESS)
      return usage("--metadata: the value of '" + printable(field.key) + "' is not a JSON string");
    auto added = add(out, field.key, v);
    if (!added) return added;
  }
  return {};
}

}  // namespace

result<void> parse_metadata_arg(std::string_view value, metadata_list& out) {
  auto const first = value.find_first_not_of(" \t");
  if (first != std::string_view::npos && value[first] == '{') return parse_json(value, out);
  if (value.empty()) return usage("--metadata takes NAME=VALUE[,NAME=VALUE...]");
  metadata_list mine;
  std::string_view rest = value;
  for (;;) {
    auto const comma = rest.find(',');
    std::string_view const piece = rest.substr(0, comma);
    auto const eq = piece.find('=');
    if (piece.empty())
      return usage("--metadata '" + printable(value) + "': an empty entry (a stray ',')");
    if (eq == std::string_view::npos)
      return usage("--metadata '" + printable(value) + "' is ambiguous: '" + printable(piece) +
                   "' has no '=' (a value cannot hold ','; for one that does, give a JSON object: "
                   "--metadata '{\"name\": \"a,b\"}')");
    auto added = add(mine, piece.substr(0, eq), piece.substr(eq + 1));
    if (!added) return added;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  for (auto& [n, v] : mine) {
    auto added = add(out, n, v);
    if (!added) return added;
  }
  return {};
}

}  // namespace floe::cli
