#!/usr/bin/env python3
"""A real Ceph RGW (16.2.15, Debian 12's) for the integration tests.

  rgw.py start CEPH_DIR   -> prints RGW_ENDPOINT=..., RGW_ACCESS_KEY=..., RGW_SECRET_KEY=...
  rgw.py stop CEPH_DIR

Runs tests/support/ceph/start-rgw.sh with CEPH_LAB_DIR=CEPH_DIR and free
loopback ports for radosgw and both monitor ports, so that it never touches a
cluster someone else started (another engineer's, or one on the default ports).
The first run installs the Debian packages it needs (about 67 MB). Any failure
raises SystemExit with the reason and the end of the start-up log: a test run
must not go on without the real store.
"""
import os
import subprocess
import sys

import launcher

HERE = os.path.dirname(os.path.abspath(__file__))




CEPH_SCRIPTS = os.path.join(HERE, "ceph")






def start(ceph_dir, log_dir=None, attempts=2):
    """Starts a fresh cluster under ceph_dir; returns endpoint, access_key, secret_key, conf."""
    script = launcher.script(CEPH_SCRIPTS, "start-rgw.sh")
    log_dir = log_dir or os.path.dirname(os.path.abspath(ceph_dir))
    os.makedirs(log_dir, exist_ok=True)
    out_path = os.path.join(log_dir, "rgw-start.out")
    err_path = os.path.join(log_dir, "rgw-start.log")
    last = ""
    for attempt in range(1, attempts + 1):
        port, mon, mon_v1 = launcher.free_ports(3)
        env = dict(os.environ)
        env.update(CEPH_LAB_DIR=os.path.abspath(ceph_dir), MON_PORT=str(mon), MON_V1_PORT=str(mon_v1),
                   CEPH_FRESH="1")
        rc, values = launcher.run_start_script(script, [str(port)], env, out_path, err_path)
        if rc == 0 and values.get("RGW_ENDPOINT") and values.get("RGW_ACCESS_KEY") and values.get("RGW_SECRET_KEY"):
            return {"endpoint": values["RGW_ENDPOINT"], "access_key": values["RGW_ACCESS_KEY"],
                    "secret_key": values["RGW_SECRET_KEY"], "conf": values.get("CEPH_CONF", "")}
        last = f"start-rgw.sh exited with {rc} (attempt {attempt})"
        stop(ceph_dir)  # whatever half-started, before trying again on other ports
    raise SystemExit(f"servers: Ceph RGW did not start: {last}.\n"
                     f"It needs the Debian packages ceph-mon ceph-osd radosgw ceph-common (start-rgw.sh "
                     f"installs them with apt-get as root). End of {err_path}:\n{launcher.tail(err_path)}")


def _own_daemons(ceph_dir):
    """(pid, name) of the daemons whose pid files are in ceph_dir/run and still ours."""
    want = {"mon": "ceph-mon", "osd": "ceph-osd", "client": "radosgw"}
    run = os.path.join(ceph_dir, "run")
    found = []
    if not os.path.isdir(run):
        return found
    for f in os.listdir(run):
        if not f.endswith(".pid"):
            continue
        try:
            pid = int(open(os.path.join(run, f)).read().strip())
            comm = open(f"/proc/{pid}/comm").read().strip()
        except (OSError, ValueError):
            continue
        if comm == want.get(f.split(".")[0]):
            found.append((pid, f[:-4]))
    return found


def stop(ceph_dir):
    """Stops the cluster in ceph_dir (only the daemons its pid files name) and removes the dir."""
    if not os.path.isdir(ceph_dir):
        return
    env = dict(os.environ)
    env["CEPH_LAB_DIR"] = os.path.abspath(ceph_dir)
    script = os.path.join(CEPH_SCRIPTS, "stop-rgw.sh")
    if os.path.isfile(script):
        subprocess.run(["bash", script, "--wipe"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, timeout=120)
    for pid, _name in _own_daemons(ceph_dir):  # the script was missing or left one behind
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    if os.path.isdir(ceph_dir):
        subprocess.run(["rm", "-rf", ceph_dir], check=False)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: rgw.py start|stop CEPH_DIR")
    if sys.argv[1] == "start":
        i = start(sys.argv[2])
        print(f"RGW_ENDPOINT={i['endpoint']}\nRGW_ACCESS_KEY={i['access_key']}\nRGW_SECRET_KEY={i['secret_key']}")
    else:
        stop(sys.argv[2])
