// Command-line parsing. Pure: strings in, a command_line or a usage message
// out. What there is to parse comes from the global options (options.cpp)
// and the registered verbs (verbs.cpp).

#include "parse.hpp"

#include "output.hpp"
#include "verbs.hpp"

#include <optional>

namespace floe::cli {

namespace {

// The verbs that take an option of that name, space-separated.
std::string verbs_taking(auto const& named) {
  std::string out;
  for (auto const* f : families())
    for (auto const& v : *f)
      for (auto const* o : v.options)
        if (named(*o)) {
          if (!out.empty()) out += ' ';
          out += v.name;
          break;
        }
  return out;
}

}  // namespace

result<command_line> parse_command_line(std::vector<std::string_view> const& argv) {
  command_line cl;
  verb_spec const* verb = nullptr;
  bool options_done = false;
  // The verb is the first positional; options seen before it must be global.
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    bool const looks_like_option = !options_done && a.size() > 1 && a[0] == '-';
    if (!looks_like_option) {
      if (verb == nullptr) {
        verb = find_verb(a);
        if (verb == nullptr) return usage("unknown command '" + printable(a) + "'");
        cl.verb = std::string(a);
      } else {
        cl.args.emplace_back(a);
      }
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    option_spec const* spec = nullptr;
    std::optional<std::string_view> inline_value;
    std::string shown(a);
    std::string_view long_name;  // empty: a short option (-x)
    if (a.starts_with("--")) {
      long_name = a.substr(2);
      auto eq = long_name.find('=');
      if (eq != std::string_view::npos) {
        inline_value = long_name.substr(eq + 1);
        long_name = long_name.substr(0, eq);
        shown = "--" + std::string(long_name);
      }
    }
    auto named = [&](option_spec const& o) {
      if (!long_name.empty()) return o.long_name == long_name;
      return a.size() == 2 && o.short_name != 0 && o.short_name == a[1];
    };
    // The verb's own entry first (its help differs), else the global one;
    // another verb's option is "does not apply", not unknown.
    if (verb != nullptr)
      for (auto const* o : verb->options)
        if (spec == nullptr && named(*o)) spec = o;
    for (auto const* o : global_option_specs())
      if (spec == nullptr && named(*o)) spec = o;
    if (spec == nullptr) {
      auto const takers = verbs_taking(named);
      if (takers.empty()) return usage("unknown option '" + printable(shown) + "'");
      if (verb == nullptr) return usage("option '" + shown + "' comes after a command (" + takers + ")");
      return usage("option '" + shown + "' does not apply to 'floe " + cl.verb + "'");
    }
    std::string_view value;
    if (!spec->value_name.empty()) {
      if (inline_value) {
        value = *inline_value;
      } else {
        if (i + 1 >= argv.size()) return usage("option '" + shown + "' needs a value");
        value = argv[++i];
      }
    } else if (inline_value) {
      return usage("option '" + shown + "' takes no value");
    }
    auto applied = spec->apply(cl, value);
    if (!applied) return applied.error();
  }
  if (cl.help || cl.version) return cl;
  if (verb == nullptr) return usage("no command given");
  if (cl.args.size() < verb->min_args) return usage("missing argument");
  if (cl.args.size() > verb->max_args) return usage("too many arguments");
  if (verb->check != nullptr) {
    auto checked = verb->check(cl);
    if (!checked) return checked.error();
  }
  return cl;
}

}  // namespace floe::cli
