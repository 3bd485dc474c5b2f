#!/usr/bin/env python3
"""A real OpenStack Swift 2.30 with s3api (Debian 12's) for the integration tests.

  swift.py start SWIFT_DIR   -> prints SWIFT_ENDPOINT=..., SWIFT_ACCESS_KEY=..., SWIFT_SECRET_KEY=...,
                                SWIFT_REGION=...
  swift.py stop SWIFT_DIR

Runs tests/support/swift/start-swift.sh with SWIFT_LAB_DIR=SWIFT_DIR and free
loopback ports for the proxy (the S3 endpoint), the account, container and
object servers and memcached, so that it never touches a Swift someone else
started. The first run installs the Debian packages it needs. Any failure
raises SystemExit with the reason and the end of the start-up log: a test run
must not go on without the real store.
"""
import os
import subprocess
import sys

import launcher

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "swift")
PORT_NAMES = ("SWIFT_ACCOUNT_PORT", "SWIFT_CONTAINER_PORT", "SWIFT_OBJECT_PORT", "SWIFT_MEMCACHED_PORT")








def start(swift_dir, log_dir=None, attempts=2):
    """Starts a fresh Swift under swift_dir; returns endpoint, access_key, secret_key, region."""
    script = launcher.script(SCRIPTS, "start-swift.sh")
    log_dir = log_dir or os.path.dirname(os.path.abspath(swift_dir))
    os.makedirs(log_dir, exist_ok=True)
    out_path = os.path.join(log_dir, "swift-start.out")
    err_path = os.path.join(log_dir, "swift-start.log")
    last = ""
    for attempt in range(1, attempts + 1):
        port, *others = launcher.free_ports(1 + len(PORT_NAMES))
        env = dict(os.environ)
        env.update(zip(PORT_NAMES, map(str, others)))
        env["SWIFT_LAB_DIR"] = os.path.abspath(swift_dir)
        rc, values = launcher.run_start_script(script, [str(port)], env, out_path, err_path)
        keys = ("SWIFT_ENDPOINT", "SWIFT_ACCESS_KEY", "SWIFT_SECRET_KEY", "SWIFT_REGION")
        if rc == 0 and all(values.get(k) for k in keys):
            return {"endpoint": values["SWIFT_ENDPOINT"], "access_key": values["SWIFT_ACCESS_KEY"],
                    "secret_key": values["SWIFT_SECRET_KEY"], "region": values["SWIFT_REGION"]}
        last = f"start-swift.sh exited with {rc} (attempt {attempt})"
        stop(swift_dir)  # whatever half-started, before trying again on other ports
    raise SystemExit(f"servers: OpenStack Swift did not start: {last}.\n"
                     f"It needs the Debian packages swift swift-proxy swift-account swift-container swift-object "
                     f"python3-swift memcached (start-swift.sh installs them with apt-get as root). "
                     f"End of {err_path}:\n{launcher.tail(err_path)}")


def _own_servers(swift_dir):
    """Pids named in swift_dir/run/*.pid whose command line still names swift_dir."""
    run = os.path.join(swift_dir, "run")
    found = []
    if not os.path.isdir(run):
        return found
    mark = os.path.abspath(swift_dir) + "/"
    for f in os.listdir(run):
        if not f.endswith(".pid"):
            continue
        try:
            pid = int(open(os.path.join(run, f)).read().strip())
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        if mark in cmdline:
            found.append(pid)
    return found


def stop(swift_dir):
    """Stops the Swift in swift_dir (only the servers its pid files name) and removes the dir."""
    if not os.path.isdir(swift_dir):
        return
    env = dict(os.environ)
    env["SWIFT_LAB_DIR"] = os.path.abspath(swift_dir)
    script = os.path.join(SCRIPTS, "stop-swift.sh")
    if os.path.isfile(script):
        subprocess.run(["bash", script, "--wipe"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, timeout=120)
    for pid in _own_servers(swift_dir):  # the script was missing or left one behind
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    if os.path.isdir(swift_dir):
        subprocess.run(["rm", "-rf", swift_dir], check=False)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: swift.py start|stop SWIFT_DIR")
    if sys.argv[1] == "start":
        i = start(sys.argv[2])
        print(f"SWIFT_ENDPOINT={i['endpoint']}\nSWIFT_ACCESS_KEY={i['access_key']}\n"
              f"SWIFT_SECRET_KEY={i['secret_key']}\nSWIFT_REGION={i['region']}")
    else:
        stop(sys.argv[2])
