#pragma once
// Gathers the ledger implementation files for <floe/src.hpp> and libfloe's units (src/lib/). One line per header.
#include <floe/ledger/impl/entry.ipp>
#include <floe/ledger/impl/format.ipp>
#include <floe/ledger/impl/commit_machine.ipp>
#include <floe/ledger/impl/verify.ipp>
#include <floe/ledger/impl/ledger.ipp>
#include <floe/ledger/impl/ledger_commit.ipp>
#include <floe/ledger/impl/ledger_verify.ipp>
