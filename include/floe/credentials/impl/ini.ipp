#pragma once
#include <floe/credentials/credentials.hpp>
#include <floe/credentials/ini.hpp>

#include <optional>
#include <utility>

namespace floe::credentials {

namespace detail {

inline bool ini_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

inline std::string_view ini_trim(std::string_view s) noexcept {
  while (!s.empty() && ini_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && ini_blank(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string ini_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

inline bool ini_iequal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

inline error ini_error(std::string_view file, std::size_t line, std::string_view reason) {
  std::string m = printable(file, 512);
  m += ':';
  m += std::to_string(line);
  m += ": ";
  m += reason;
  return error(errc::invalid_argument, std::move(m));
}

// A setting while its value may still grow by continuation lines.
struct ini_pending {
  ini_entry entry;
  std::vector<std::pair<std::string, std::size_t>> pieces;  // (text, line)
};

// configparser joins the pieces with '\n' and trims trailing blank lines;
// botocore then treats a value whose first piece is empty as a nested block.
inline result<ini_entry> ini_finish(ini_pending&& p, std::string_view file) {
  while (p.pieces.size() > 1 && p.pieces.back().first.empty()) p.pieces.pop_back();
  ini_entry e = std::move(p.entry);
  e.value.clear();
  for (std::size_t i = 0; i < p.pieces.size(); ++i) {
    if (i) e.value += '\n';
    e.value += p.pieces[i].first;
  }
  if (p.pieces.size() > 1 && p.pieces.front().first.empty()) {
    for (std::size_t i = 1; i < p.pieces.size(); ++i) {
      auto const& [text, line] = p.pieces[i];
      if (text.empty()) continue;
      auto eq = text.find('=');
      if (eq == std::string::npos)
        return ini_error(file, line,
                         "line inside the nested setting '" + printable(e.key) + "' has no '='");
      ini_entry n;
      n.key = std::string(ini_trim(std::string_view(text).substr(0, eq)));
      n.value = std::string(ini_trim(std::string_view(text).substr(eq + 1)));
      n.line = line;
      if (n.key.empty())
        return ini_error(file, line, "line inside the nested setting '" + printable(e.key) + "' has an empty key");
      // botocore builds a dict: a repeated nested key keeps the last value.
      bool replaced = false;
      for (auto& old : e.nested)
        if (old.key == n.key) {
          old = n;
          replaced = true;
        }
      if (!replaced) e.nested.push_back(std::move(n));
    }
  }
  return e;
}

}  // namespace detail

FLOE_DECL ini_entry const* ini_entry::find(std::string_view nested_key) const noexcept {
  for (auto const& e : nested)
    if (e.key == nested_key) return &e;
  return nullptr;
}

FLOE_DECL ini_section const* ini_document::find(std::string_view name) const noexcept {
  for (auto const& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

FLOE_DECL ini_entry const* ini_section::find(std::string_view key) const noexcept {
  for (auto const& e : entries)
    if (detail::ini_iequal(e.key, key)) return &e;
  return nullptr;
}

FLOE_DECL result<ini_document> parse_ini(std::string_view text, std::string_view file) {
  using namespace detail;
  ini_document doc;
  doc.file = std::string(file);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);

  std::optional<ini_section> defaults;   // [DEFAULT]
  ini_section* current = nullptr;        // into doc.sections or &*defaults
  std::optional<ini_pending> pending;    // the setting continuation lines extend
  std::size_t indent_level = 0;

  auto flush = [&]() -> result<void> {
    if (!pending) return {};
    auto e = ini_finish(std::move(*pending), file);
    pending.reset();
    if (!e) return e.error();
    current->entries.push_back(std::move(*e));
    return {};
  };

  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find_first_of("\r\n", pos);
    std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (end == std::string_view::npos) {
      pos = text.size();
    } else {
      pos = end + 1;
      if (text[end] == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
    }
    ++line_no;

    std::string_view value = ini_trim(line);
    if (!value.empty() && (value.front() == '#' || value.front() == ';')) continue;  // comment
    if (value.empty()) {
      // configparser keeps blank lines inside a value being continued.
      if (pending) pending->pieces.emplace_back(std::string(), line_no);
      continue;
    }
    std::size_t indent = 0;
    while (indent < line.size() && ini_blank(line[indent])) ++indent;

    if (pending && indent > indent_level) {  // continuation line
      pending->pieces.emplace_back(std::string(value), line_no);
      continue;
    }
    indent_level = indent;
    if (auto r = flush(); !r) return r.error();

    // A section header: '[' ... last ']'.
    if (value.front() == '[') {
      auto close = value.rfind(']');
      if (close != std::string_view::npos && close > 1) {
        std::string name(value.substr(1, close - 1));
        if (name == "DEFAULT") {
          if (!defaults) {
            defaults.emplace();
            defaults->name = name;
            defaults->line = line_no;
          }
          current = &*defaults;
          continue;
        }
        for (auto const& s : doc.sections)
          if (s.name == name)
            return ini_error(file, line_no,
                             "section [" + printable(name) + "] appears twice (first on line " +
                                 std::to_string(s.line) + ")");
        doc.sections.emplace_back();
        doc.sections.back().name = std::move(name);
        doc.sections.back().line = line_no;
        current = &doc.sections.back();
        continue;
      }
    }
    if (!current) return ini_error(file, line_no, "setting before the first [section]");

    auto delim = value.find_first_of("=:");
    if (delim == std::string_view::npos)
      return ini_error(file, line_no, "neither a [section], a 'key = value' setting nor a comment");
    std::string_view key = ini_trim(value.substr(0, delim));
    if (key.empty()) return ini_error(file, line_no, "setting with an empty key");
    std::string lkey = ini_lower(key);
    for (auto const& e : current->entries)
      if (e.key == lkey)
        return ini_error(file, line_no,
                         "'" + printable(lkey) + "' is set twice in [" + printable(current->name) +
                             "] (first on line " + std::to_string(e.line) + ")");
    pending.emplace();
    pending->entry.key = std::move(lkey);
    pending->entry.line = line_no;
    pending->pieces.emplace_back(std::string(ini_trim(value.substr(delim + 1))), line_no);
  }
  if (current)
    if (auto r = flush(); !r) return r.error();

  if (defaults) {
    for (auto& s : doc.sections)
      for (auto const& d : defaults->entries)
        if (!s.find(d.key)) s.entries.push_back(d);
  }
  return doc;
}

}  // namespace floe::credentials
