#!/usr/bin/env bash
# stop-swift.sh — stop the servers start-swift.sh started. Signals only the pids named in
# $SWIFT_LAB_DIR/run/*.pid, and only while /proc/PID/cmdline still names that state dir
# (a reused pid is never hit).
# usage: stop-swift.sh [--wipe]     env: SWIFT_LAB_DIR (default /tmp/swift-lab/store)
#   SIGTERM to the proxy first, then the storage servers, then memcached; SIGKILL after 5 s.
#   --wipe: then remove the state dir (data, configs, logs).
set -uo pipefail
DIR=${SWIFT_LAB_DIR:-/tmp/swift-lab/store}
# "running" = exists and is not a zombie (PID 1 here may reap orphans late, or never)
running() { local st; st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) && [ "$st" != Z ]; }
ours() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$DIR/"; }
for n in proxy object container account memcached; do
  f="$DIR/run/$n.pid"; [ -f "$f" ] || continue
  p=$(cat "$f")
  if [[ "$p" =~ ^[0-9]+$ ]] && running "$p" && ours "$p"; then
    kill -TERM "$p" 2>/dev/null
    for _ in $(seq 1 100); do running "$p" || break; sleep 0.05; done
    if running "$p"; then kill -KILL "$p" 2>/dev/null; echo "killed $n ($p) after 5 s"; else echo "stopped $n ($p)"; fi
  fi
  rm -f "$f"
done
if [ "${1:-}" = --wipe ] && [ -d "$DIR" ]; then rm -rf "$DIR" && echo "wiped $DIR"; fi
exit 0
