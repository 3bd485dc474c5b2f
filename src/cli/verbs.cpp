// The registry: every family of verbs, one name each.

#include "verbs.hpp"

namespace floe::cli {

namespace verbs {
// Each defined in verbs/NAME.cpp.
extern family const ls, cp, mv, sync, rm, stat, put, presign, bucket, whoami;
extern family const ledger, sqs, watch;
}  // namespace verbs

namespace {

// In the order `floe --help` lists them.
// One line per family: a new one is a file under verbs/ and a line here.
constexpr family const* registry[] = {
    &verbs::ls,      //
    &verbs::cp,      // cp, cat
    &verbs::mv,      //
    &verbs::sync,    //
    &verbs::rm,      //
    &verbs::stat,    //
    &verbs::put,     //
    &verbs::presign, //
    &verbs::bucket,  // mb, rb
    &verbs::whoami,  //
    &verbs::ledger,  // ledger init|add|log|ls|verify
    &verbs::sqs,     // sqs create|url|attrs|purge|send|receive|delete
    &verbs::watch,   // watch: S3 events from SQS into a ledger
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
