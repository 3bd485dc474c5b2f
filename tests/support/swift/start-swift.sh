#!/usr/bin/env bash
# start-swift.sh — bring up a throw-away OpenStack Swift 2.30 (Debian 12's) on 127.0.0.1:
# memcached, one account, one container and one object server (one device that is a plain
# directory, one replica) and the proxy with the s3api middleware in front of tempauth, so
# that S3 clients (SigV4, path style, region us-east-1) can talk to it. All under one dir.
#
# usage: start-swift.sh [PORT]            (the S3 endpoint; default 8080, or $SWIFT_PORT)
# env:   SWIFT_LAB_DIR    state dir (default /tmp/swift-lab/store): wiped on every start
#        SWIFT_ACCOUNT_PORT / SWIFT_CONTAINER_PORT / SWIFT_OBJECT_PORT / SWIFT_MEMCACHED_PORT
#                         (default 6212 / 6211 / 6210 / 11311, 127.0.0.1 only)
# Installs the Debian packages it lacks (root). Each server is one process (workers = 0),
# started in its own session, its pid in $SWIFT_LAB_DIR/run/NAME.pid and its output in
# $SWIFT_LAB_DIR/log/NAME.log. Ready when a container and an object can be written and
# removed through the proxy. Prints SWIFT_ENDPOINT=, SWIFT_ACCESS_KEY=, SWIFT_SECRET_KEY=,
# SWIFT_REGION= on stdout; everything else goes to stderr. Stop it with stop-swift.sh.
set -euo pipefail

PORT=${1:-${SWIFT_PORT:-8080}}
DIR=${SWIFT_LAB_DIR:-/tmp/swift-lab/store}
ACCOUNT_PORT=${SWIFT_ACCOUNT_PORT:-6212}
CONTAINER_PORT=${SWIFT_CONTAINER_PORT:-6211}
OBJECT_PORT=${SWIFT_OBJECT_PORT:-6210}
MEMCACHED_PORT=${SWIFT_MEMCACHED_PORT:-11311}
# Fixed test credentials: tempauth's account "floe", user "tester"; s3api's access key
# is "account:user" and its secret the tempauth key.
SWIFT_ACCOUNT=floe
SWIFT_USER=tester
SECRET=floe-swift-test-secret
REGION=us-east-1
ENDPOINT="http://127.0.0.1:${PORT}"
HERE=$(cd "$(dirname "$0")" && pwd)
SYSPY=/usr/bin/python3   # Debian's python: the one python3-swift is installed for
log() { echo "[start-swift $(date +%T)] $*" >&2; }
die() { log "$*"; exit 1; }
T0=$(date +%s%N)

case "$DIR" in /*) ;; *) die "SWIFT_LAB_DIR must be an absolute path, not '$DIR'";; esac
for p in "$PORT" "$ACCOUNT_PORT" "$CONTAINER_PORT" "$OBJECT_PORT" "$MEMCACHED_PORT"; do
  case "$p" in ''|*[!0-9]*) die "ports must be numbers, got '$p'";; esac
done

# ---- 0. packages ---------------------------------------------------------------------
need_pkgs=()
for b in swift-proxy-server:swift-proxy swift-account-server:swift-account \
         swift-container-server:swift-container swift-object-server:swift-object \
         swift-ring-builder:swift memcached:memcached curl:curl; do
  [ -x "/usr/bin/${b%%:*}" ] || need_pkgs+=("${b#*:}")
done
"$SYSPY" -c 'import swift.common.middleware.s3api' 2>/dev/null || need_pkgs+=(python3-swift)
if ((${#need_pkgs[@]})); then
  [ "$(id -u)" = 0 ] || die "missing Debian packages (${need_pkgs[*]}); install them as root"
  log "installing: ${need_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Debian's maintainer scripts would start memcached and the Swift services with the
  # configs in /etc; a policy-rc.d that says "no" keeps them down (only if none exists).
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
    policy=/usr/sbin/policy-rc.d
  fi
  apt_install() { apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$@" >&2; }
  rc=0
  apt_install "${need_pkgs[@]}" ||
    { apt-get -o DPkg::Lock::Timeout=600 update -q >&2 && apt_install "${need_pkgs[@]}"; } || rc=$?
  [ -z "$policy" ] || rm -f "$policy"
  [ "$rc" = 0 ] || die "apt-get install ${need_pkgs[*]} failed"
fi

# Swift reads the hash path prefix/suffix and the storage policies from
# /etc/swift/swift.conf whatever swift_dir says. Debian's package ships one; write
# one only when there is none with a hash setting.
if ! grep -Eqs '^\s*swift_hash_path_(suffix|prefix)\s*=' /etc/swift/swift.conf; then
  [ "$(id -u)" = 0 ] || die "/etc/swift/swift.conf is missing (or has no swift_hash_path_*) and we are not root"
  log "writing /etc/swift/swift.conf"
  mkdir -p /etc/swift
  cat >/etc/swift/swift.conf <<EOF
[swift-hash]
swift_hash_path_suffix = floe-tests
swift_hash_path_prefix = floe-tests

[storage-policy:0]
name = Policy-0
default = yes
EOF
fi

# ---- 1. a fresh state dir (our own old servers stopped first, by pid file) ---------------
if [ -d "$DIR/run" ]; then
  SWIFT_LAB_DIR="$DIR" bash "$HERE/stop-swift.sh" >&2
fi
rm -rf "$DIR"
for p in "$PORT" "$ACCOUNT_PORT" "$CONTAINER_PORT" "$OBJECT_PORT" "$MEMCACHED_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then die "port $p on 127.0.0.1 is already in use"; fi
done
ETC=$DIR/etc
mkdir -p "$ETC" "$DIR/node/d1" "$DIR/run" "$DIR/log" "$DIR/cache"

# ---- 2. rings and configs ---------------------------------------------------------------
"$SYSPY" "$HERE/rings.py" "$ETC" "$ACCOUNT_PORT" "$CONTAINER_PORT" "$OBJECT_PORT" ||
  die "could not write the rings"

defaults() {  # PORT LOG_NAME: the [DEFAULT] section every server shares
  cat <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $1
# one process per server: no forked workers to track
workers = 0
user = $(id -un)
swift_dir = $ETC
devices = $DIR/node
# d1 is a plain directory, not a mounted disk
mount_check = false
disable_fallocate = true
recon_cache_path = $DIR/cache
log_name = $2
EOF
}

for srv in account container object; do
  case $srv in account) port=$ACCOUNT_PORT;; container) port=$CONTAINER_PORT;; object) port=$OBJECT_PORT;; esac
  {
    defaults "$port" "$srv-server"
    printf '\n[pipeline:main]\npipeline = %s-server\n\n[app:%s-server]\nuse = egg:swift#%s\n' "$srv" "$srv" "$srv"
    # The background daemons' sections must exist; they are never started.
    case $srv in
      account) printf '\n[account-replicator]\n[account-auditor]\n[account-reaper]\n';;
      container) printf '\n[container-replicator]\n[container-auditor]\n[container-updater]\n[container-sync]\n';;
      object) printf '\n[object-replicator]\n[object-auditor]\n[object-updater]\n';;
    esac
  } >"$ETC/$srv-server.conf"
done

{
  defaults "$PORT" proxy-server
  cat <<EOF

[pipeline:main]
# s3api must come before tempauth (it turns an S3 signature into a tempauth
# identity), and slo after s3api (else s3api turns multipart uploads off).
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo versioned_writes symlink proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
# the only region a SigV4 scope may name
location = $REGION
allow_multipart_uploads = true
min_segment_size = 5242880
s3_acl = false

[filter:tempauth]
use = egg:swift#tempauth
# .admin: the user owns its account (may create containers, i.e. buckets)
user_${SWIFT_ACCOUNT}_${SWIFT_USER} = $SECRET .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MEMCACHED_PORT

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo

[filter:versioned_writes]
use = egg:swift#versioned_writes
allow_versioned_writes = true
allow_object_versioning = true

[filter:symlink]
use = egg:swift#symlink
EOF
} >"$ETC/proxy-server.conf"

# ---- 3. servers --------------------------------------------------------------------------
# NAME ARGV...: started in its own session, stdin from /dev/null, output to log/NAME.log.
# The pid is recorded with the configuration path it names: stop-swift.sh signals a pid only
# while its command line still names this state dir.
start_one() {
  local name=$1; shift
  setsid "$@" </dev/null >>"$DIR/log/$name.log" 2>&1 &
  echo $! >"$DIR/run/$name.pid"
}
alive() {  # NAME: its pid exists, is no zombie and still names this state dir
  local f="$DIR/run/$1.pid" p st
  [ -f "$f" ] || return 1
  p=$(cat "$f")
  st=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null) && [ "$st" != Z ] || return 1
  tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$DIR/"
}
memcached_user=()
[ "$(id -u)" != 0 ] || memcached_user=(-u root)   # memcached refuses root without -u
# -P (a pid file memcached writes only as a daemon, -d) is there so that its command
# line names this state dir, as the Swift servers' do.
start_one memcached /usr/bin/memcached -l 127.0.0.1 -p "$MEMCACHED_PORT" -U 0 -m 32 -P "$DIR/run/memcached.self" \
  "${memcached_user[@]}"
for srv in account container object proxy; do
  # -v: log to stdout (our log file) as well as syslog
  start_one "$srv" "/usr/bin/swift-$srv-server" "$ETC/$srv-server.conf" -v
done

# ---- 4. ready: a token, a container and an object written and removed through the proxy --
probe() {
  local hdrs token url
  hdrs=$(curl -s -m 5 -o /dev/null -D - -H "X-Auth-User: $SWIFT_ACCOUNT:$SWIFT_USER" -H "X-Auth-Key: $SECRET" \
    "$ENDPOINT/auth/v1.0") || return 1
  token=$(sed -n 's/^[Xx]-[Aa]uth-[Tt]oken: *\([^[:space:]]*\).*/\1/p' <<<"$hdrs")
  url=$(sed -n 's/^[Xx]-[Ss]torage-[Uu]rl: *\([^[:space:]]*\).*/\1/p' <<<"$hdrs")
  [ -n "$token" ] && [ -n "$url" ] || return 1
  code() { curl -s -m 10 -o /dev/null -w '%{http_code}' -H "X-Auth-Token: $token" "$@"; }
  [[ $(code -X PUT "$url/floe-ready") == 20? ]] &&
    [[ $(code -X PUT --data-binary ready "$url/floe-ready/probe") == 201 ]] &&
    [[ $(code -X DELETE "$url/floe-ready/probe") == 204 ]] &&
    [[ $(code -X DELETE "$url/floe-ready") == 204 ]]
}
for i in $(seq 1 240); do
  probe && break
  for s in memcached account container object proxy; do
    alive "$s" || { tail -n 20 "$DIR/log/$s.log" >&2; die "$s exited during start-up (its log: $DIR/log/$s.log)"; }
  done
  [ "$i" != 240 ] || die "Swift did not answer on $ENDPOINT within 120 s; logs in $DIR/log"
  sleep 0.5
done
log "ready on $ENDPOINT in $(( ($(date +%s%N) - T0) / 1000000 )) ms"
echo "SWIFT_ENDPOINT=$ENDPOINT"
echo "SWIFT_ACCESS_KEY=$SWIFT_ACCOUNT:$SWIFT_USER"
echo "SWIFT_SECRET_KEY=$SECRET"
echo "SWIFT_REGION=$REGION"
