#!/usr/bin/env python3
"""Starts and stops the servers the integration tests use, on loopback.

  servers.py start STATE_DIR   -> prints `export NAME=VALUE` lines for the shell
  servers.py stop STATE_DIR

moto (server mode) runs on a free loopback port with IAM auth off. Each
server's pid goes into STATE_DIR so `stop` ends exactly what `start` began.
"""
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, proc, what, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"servers: {what} exited with {proc.returncode} during start-up")
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except urllib.error.HTTPError:
            return  # it answered
        except OSError:
            time.sleep(0.1)  # start-up poll, not test synchronisation
    sys.exit(f"servers: {what} did not answer on {url} within {seconds}s")


def spawn(state, name, argv, env=None):
    log = open(os.path.join(state, f"{name}.log"), "wb")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    with open(os.path.join(state, f"{name}.pid"), "w") as fh:
        fh.write(str(proc.pid))
    return proc


def start(state):
    os.makedirs(state, exist_ok=True)
    try:
        import moto  # noqa: F401
    except ImportError:
        sys.exit("servers: moto is not installed; install it with: pip install 'moto[server]==5.2.1' boto3")
    env = dict(os.environ)
    env["AWS_EC2_METADATA_DISABLED"] = "true"
    env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
    port = free_port()
    moto_bin = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    proc = spawn(state, "moto", moto_bin, env)
    url = f"http://127.0.0.1:{port}"
    wait_http(url + "/moto-api/", proc, "moto")
    print(f"export FLOE_TEST_MOTO_ENDPOINT={url}")


def stop(state):
    if not os.path.isdir(state):
        return
    for f in os.listdir(state):
        if f.endswith(".pid"):
            path = os.path.join(state, f)
            try:
                pid = int(open(path).read().strip())
                os.killpg(pid, signal.SIGTERM)
            except (ValueError, ProcessLookupError, PermissionError):
                pass
            os.unlink(path)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: servers.py start|stop STATE_DIR")
    (start if sys.argv[1] == "start" else stop)(os.path.abspath(sys.argv[2]))
