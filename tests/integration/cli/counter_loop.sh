#!/usr/bin/env bash
# One writer of the shell-loop counter test (test_shell_loops.py):
#   counter_loop.sh FLOE URI INCREMENTS
# Each increment: `floe stat` reads the counter (user metadata "count") and
# the ETag of the same version from one HeadObject; `floe put --if-match`
# writes count+1 (the body is the count too, so no two versions share an
# ETag); exit 3 (another writer won, or the reply was ambiguous and this
# write is not there) means read again. Any other failure ends the loop.
# Prints a line per attempt ("wrote N", or "lost N" on exit 3; the test
# bounds each attempt, not the whole loop) and "retries N" at the end.
set -u
floe=$1 uri=$2 increments=$3
err=$(mktemp)
trap 'rm -f "$err"' EXIT
done_=0 retries=0
while [ "$done_" -lt "$increments" ]; do
  if ! out=$("$floe" stat "$uri" 2>"$err"); then
    echo "counter_loop: floe stat failed: $(cat "$err")" >&2
    exit 1
  fi
  etag=$(printf '%s\n' "$out" | sed -n 's/^etag: *//p')
  count=$(printf '%s\n' "$out" | sed -n 's/^meta count: *//p')
  if [ -z "$etag" ] || [ -z "$count" ]; then
    echo "counter_loop: no etag/count in: $out" >&2
    exit 1
  fi
  next=$((count + 1))
  printf '%s' "$next" | "$floe" put "$uri" --if-match "$etag" --metadata "count=$next" >/dev/null 2>"$err"
  rc=$?
  case $rc in
    0) done_=$((done_ + 1)); echo "wrote $next" ;;
    3) retries=$((retries + 1)); echo "lost $next" ;;
    *) echo "counter_loop: floe put exited $rc: $(cat "$err")" >&2; exit 1 ;;
  esac
done
echo "retries $retries"
