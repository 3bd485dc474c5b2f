#!/usr/bin/env python3
"""Starts and stops the servers the integration tests use, on loopback.

  servers.py start STATE_DIR   -> prints `export NAME=VALUE` lines for the shell
  servers.py stop STATE_DIR

moto (server mode) runs on a free loopback port with IAM auth off. In front of
it runs the fault-injecting test proxy (tests/support/proxy, README.md there):
a plain listener, a TLS listener with a throw-away CA, its control port, and a
forward proxy for CONNECT tests. Each server's pid goes into STATE_DIR so
`stop` ends exactly what `start` began.

A real Ceph RGW 16.2.15 runs too (tests/support/rgw.py: tests/support/ceph/start-rgw.sh
on free loopback ports, its cluster under STATE_DIR/ceph), with a second
instance of the test proxy in front of it. So does a real OpenStack Swift 2.30
with s3api (tests/support/swift.py: tests/support/swift/start-swift.sh, its
servers and data under STATE_DIR/swift), also behind its own test proxy. If
either cannot start, `start` fails: the suites must never silently skip a
real store.
"""
import json
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


def wait_ready(path, proc, what, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"servers: {what} exited with {proc.returncode} during start-up "
                     f"(see its log in the state directory)")
        if os.path.exists(path):
            with open(path) as fh:
                return json.load(fh)
        time.sleep(0.05)  # start-up poll, not test synchronisation
    sys.exit(f"servers: {what} did not start within {seconds}s")


def start_proxies(state, moto_url):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    from proxy.certs import make_certs
    certs = make_certs(os.path.join(state, "proxy-ca"))
    proxy_dir = os.path.join(here, "proxy")
    ready = os.path.join(state, "proxy.ready")
    fready = os.path.join(state, "forward-proxy.ready")
    for f in (ready, fready):
        if os.path.exists(f):
            os.unlink(f)
    proc = spawn(state, "proxy", [sys.executable, proxy_dir, "--upstream", moto_url,
                                  "--tls-cert", certs["cert"], "--tls-key", certs["key"],
                                  "--log", os.path.join(state, "proxy.log"), "--ready-file", ready])
    info = wait_ready(ready, proc, "the test proxy")
    fproc = spawn(state, "forward-proxy", [sys.executable, proxy_dir, "forward",
                                           "--log", os.path.join(state, "forward-proxy.log"),
                                           "--ready-file", fready])
    finfo = wait_ready(fready, fproc, "the forward proxy")
    print(f"export FLOE_TEST_PROXY_ENDPOINT=http://127.0.0.1:{info['port']}")
    print(f"export FLOE_TEST_PROXY_CONTROL=http://127.0.0.1:{info['control_port']}")
    print(f"export FLOE_TEST_PROXY_TLS_ENDPOINT=https://127.0.0.1:{info['tls_port']}")
    print(f"export FLOE_TEST_PROXY_CA={certs['ca']}")
    print(f"export FLOE_TEST_FORWARD_PROXY=http://127.0.0.1:{finfo['port']}")
    print(f"export FLOE_TEST_FORWARD_PROXY_CONTROL=http://127.0.0.1:{finfo['control_port']}")


def start_rgw(state):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import rgw
    info = rgw.start(os.path.join(state, "ceph"), log_dir=state)
    ready = os.path.join(state, "rgw-proxy.ready")
    if os.path.exists(ready):
        os.unlink(ready)
    proc = spawn(state, "rgw-proxy", [sys.executable, os.path.join(here, "proxy"),
                                      "--upstream", info["endpoint"],
                                      "--log", os.path.join(state, "rgw-proxy.log"),
                                      "--ready-file", ready])
    pinfo = wait_ready(ready, proc, "the test proxy in front of RGW")
    print(f"export FLOE_TEST_RGW_ENDPOINT={info['endpoint']}")
    print(f"export FLOE_TEST_RGW_PROXY_ENDPOINT=http://127.0.0.1:{pinfo['port']}")
    print(f"export FLOE_TEST_RGW_PROXY_CONTROL=http://127.0.0.1:{pinfo['control_port']}")
    print(f"export FLOE_TEST_RGW_ACCESS_KEY={info['access_key']}")
    print(f"export FLOE_TEST_RGW_SECRET_KEY={info['secret_key']}")


def start_swift(state):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import swift
    info = swift.start(os.path.join(state, "swift"), log_dir=state)
    ready = os.path.join(state, "swift-test-proxy.ready")
    if os.path.exists(ready):
        os.unlink(ready)
    proc = spawn(state, "swift-test-proxy", [sys.executable, os.path.join(here, "proxy"),
                                             "--upstream", info["endpoint"],
                                             "--log", os.path.join(state, "swift-test-proxy.log"),
                                             "--ready-file", ready])
    pinfo = wait_ready(ready, proc, "the test proxy in front of Swift")
    print(f"export FLOE_TEST_SWIFT_ENDPOINT={info['endpoint']}")
    print(f"export FLOE_TEST_SWIFT_PROXY_ENDPOINT=http://127.0.0.1:{pinfo['port']}")
    print(f"export FLOE_TEST_SWIFT_PROXY_CONTROL=http://127.0.0.1:{pinfo['control_port']}")
    print(f"export FLOE_TEST_SWIFT_ACCESS_KEY={info['access_key']}")
    print(f"export FLOE_TEST_SWIFT_SECRET_KEY={info['secret_key']}")
    print(f"export FLOE_TEST_SWIFT_REGION={info['region']}")


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
    start_proxies(state, url)
    start_rgw(state)
    start_swift(state)


def stop(state):
    if not os.path.isdir(state):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import rgw
    import swift
    rgw.stop(os.path.join(state, "ceph"))
    swift.stop(os.path.join(state, "swift"))
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
