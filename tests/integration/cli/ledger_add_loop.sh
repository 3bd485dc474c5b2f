#!/usr/bin/env bash
# One writer of the concurrent `floe ledger add` test (test_ledger_cli.py):
#   ledger_add_loop.sh FLOE LEDGER CHUNK URI...
# Registers the URIs, CHUNK at a time in the order given, each chunk with
# one `floe --json ledger add`, and prints each add's JSON document (one a
# line). Any failure ends the loop with the add's exit code.
set -u
floe=$1 ledger=$2 chunk=$3
shift 3
err=$(mktemp)
trap 'rm -f "$err"' EXIT
while [ "$#" -gt 0 ]; do
  n=$chunk
  [ "$n" -gt "$#" ] && n=$#
  "$floe" --json ledger add "$ledger" "${@:1:$n}" 2>"$err"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "ledger_add_loop: floe ledger add exited $rc: $(cat "$err")" >&2
    exit "$rc"
  fi
  shift "$n"
done
