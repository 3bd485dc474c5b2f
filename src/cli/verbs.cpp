// The registry: every family of verbs, one name each.

#include "verbs.hpp"

namespace floe::cli {

namespace verbs {
// Each defined in verbs/NAME.cpp.
extern family const ls, cp, rm, stat, put, presign, bucket, whoami, sqs;
extern family const ledger, watch;
}  // namespace verbs

namespace {

// In the order `floe --help` lists them.
constexpr family const* registry[] = {
    &verbs::ls, &verbs::cp, &verbs::rm, &verbs::stat, &verbs::put, &verbs::presign, &verbs::bucket, &verbs::whoami,
    &verbs::sqs, &verbs::ledger, &verbs::watch,
};

}  // namespace

std::span<family const* const> families() { return registry; }

verb_spec const* find_verb(std::string_view name) noexcept {
  for (auto const* f : registry)
    for (auto const& v : *f)
      if (v.name == name) return &v;
  return nullptr;
}

bool is_verb(std::string_view name) noexcept { return find_verb(name) != nullptr; }

}  // namespace floe::cli
