#pragma once
// ledger::async_verify's runner: list, replay, check each checkpoint at its
// commit (the decisions are log_verifier's, verify.hpp).
#include <floe/ledger/ledger.hpp>

#include <boost/asio/use_awaitable.hpp>

namespace floe::ledger {

FLOE_DECL boost::asio::awaitable<result<verify_report>> ledger::run_verify() {
  namespace asio = boost::asio;
  log_verifier v(prefix_);
  std::vector<std::string> log_keys, checkpoint_keys;
  for (int folder = 0; folder < 2; ++folder) {
    s3::list_params lp;
    lp.prefix = folder == 0 ? log_folder(prefix_) : checkpoint_folder(prefix_);
    auto l = co_await c_.async_list_objects(bucket_, lp, asio::use_awaitable);
    if (!l) co_return failure(l.error(), "LedgerVerify");
    auto& keys = folder == 0 ? log_keys : checkpoint_keys;
    for (auto& o : l->objects) keys.push_back(std::move(o.key));
  }
  v.listed(log_keys, checkpoint_keys);
  log_keys.clear();
  checkpoint_keys.clear();

  auto hint = co_await get_optional(hint_key(prefix_));
  if (!hint) co_return failure(hint.error(), "LedgerVerify");
  if (*hint) v.set_hint(decode_hint(**hint));

  auto const& cps = v.checkpoints();
  std::size_t next_cp = 0;
  for (std::uint64_t n = 0;; ++n) {
    auto body = co_await get_optional(commit_key(prefix_, n));
    if (!body) co_return failure(body.error(), "LedgerVerify");
    if (!*body) {
      v.end_of_log(n);
      break;
    }
    if (!v.add_commit(n, **body)) break;
    while (next_cp < cps.size() && cps[next_cp] < n) ++next_cp;
    if (next_cp < cps.size() && cps[next_cp] == n) {
      ++next_cp;
      auto& reader = v.begin_checkpoint(n);
      auto r = co_await read_checkpoint(n, reader);
      if (!r && r.error().code != errc::malformed_reply) co_return failure(r.error(), "LedgerVerify");
      if (!v.end_checkpoint(r)) break;
    }
  }
  co_return v.finish();
}

}  // namespace floe::ledger
