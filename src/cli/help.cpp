// The help texts, made from the option and verb descriptions the parser
// uses (options.hpp, verbs.hpp).

#include "help.hpp"

#include "verbs.hpp"

namespace floe::cli {

namespace {

// "  -r, --recursive      help" with the help at column 23 (on the next line
// when the name is longer), continuation lines indented to it.
void append_option_lines(std::string& s, option_spec const& o) {
  std::string name = "  ";
  if (o.short_name != 0) {
    name += '-';
    name += o.short_name;
    name += ", ";
  }
  name += "--";
  name += o.long_name;
  if (!o.value_name.empty()) {
    name += ' ';
    name += o.value_name;
  }
  constexpr std::size_t column = 23;
  if (name.size() + 1 > column) {
    name += '\n';
    name.append(column, ' ');
  } else {
    name.append(column - name.size(), ' ');
  }
  s += name;
  std::string_view rest = o.help;
  while (true) {
    auto nl = rest.find('\n');
    s += rest.substr(0, nl);
    s += '\n';
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
    s.append(column, ' ');
  }
}

std::string synopsis(verb_spec const& v) {
  std::string s = "floe ";
  s += v.name;
  if (!v.operands.empty()) {
    s += ' ';
    s += v.operands;
  }
  for (auto const* o : v.options) {
    s += " [--";
    s += o->long_name;
    if (!o->value_name.empty()) {
      s += ' ';
      s += o->value_name;
    }
    s += ']';
  }
  return s;
}

std::string global_help() {
  std::string s = "Global options (anywhere on the line):\n";
  for (auto const* o : global_option_specs()) append_option_lines(s, *o);
  return s;
}

std::string verb_help(verb_spec const& v) {
  std::string s = "usage: " + synopsis(v) + "\n\n";
  s += v.description;
  if (!v.options.empty()) s += "\nOptions:\n";
  for (auto const* o : v.options) append_option_lines(s, *o);
  s += "\n";
  s += global_help();
  return s;
}

}  // namespace

std::string help_text(std::string_view verb) {
  if (auto const* v = find_verb(verb)) return verb_help(*v);
  std::string s = "usage: floe [GLOBAL OPTIONS] COMMAND [ARGS]\n\nCommands:\n";
  for (auto const* f : families()) {
    for (auto const& v : *f) {
      std::string name = "  " + std::string(v.name);
      name.resize(11, ' ');
      s += name + std::string(v.summary) + "\n";
      // The synopsis, wrapped before an option at 79 columns.
      std::string const syn = synopsis(v);
      std::string line(11, ' ');
      std::size_t from = 0;
      while (from < syn.size()) {
        auto next = syn.find(" [--", from + 1);
        auto piece = std::string_view(syn).substr(from, next == std::string::npos ? std::string::npos : next - from);
        if (line.size() + piece.size() > 79 && line.size() > 13) {
          s += line + "\n";
          line = std::string(12, ' ');
        }
        line += piece;
        from = next == std::string::npos ? syn.size() : next;
      }
      s += line + "\n";
    }
  }
  s += "\n"
       "Keys are taken literally from the URL: no percent-decoding.\n\n"
       "Exit codes: 0 success, 1 error, 2 usage, 3 condition not met (precondition\n"
       "failed, conflict, not modified), 4 not found.\n\n";
  s += global_help();
  return s;
}

}  // namespace floe::cli
