#!/usr/bin/env python3
"""Smoke test of the fully static `floe` (scripts/build-static), each command
run in an empty environment (`env -i`, plus only the variables the case
names):

  - `floe --version`;
  - against moto reached by the host name `localhost` (so through the static
    glibc's resolver and /etc/hosts): mb, put from stdin, ls, cat, and cat of
    a missing key (exit 4: the store's XML error read by the static libxml2);
  - against the test proxy's TLS listener in front of that moto, whose
    throw-away CA is given by SSL_CERT_FILE alone: ls succeeds; without
    SSL_CERT_FILE the same command fails certificate verification.

  smoke.py FLOE_BINARY

Starts its own moto and test proxy on free loopback ports and stops them at
the end. Prints one line per case and "floe-cases: N passed, M failed".
"""
import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUPPORT = os.path.join(os.path.dirname(HERE), "support")
sys.path.insert(0, SUPPORT)
import servers  # noqa: E402  (free_port, spawn, wait_http, wait_ready)
from proxy.certs import make_certs  # noqa: E402

KEYS = {"AWS_ACCESS_KEY_ID": "AKIDSTATICSMOKE", "AWS_SECRET_ACCESS_KEY": "static-smoke-secret",
        "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
passed = failed = 0


def case(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}\n{detail}")


def floe(binary, args, env=None, stdin=b""):
    """`env -i [VAR=VALUE...] floe ARGS`: nothing of this process's environment."""
    argv = ["env", "-i"] + [f"{k}={v}" for k, v in (env or {}).items()] + [binary] + args
    r = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    shown = f"$ {' '.join(argv)}\nexit {r.returncode}\nstdout: {r.stdout[:2000]!r}\nstderr: {r.stderr[:2000]!r}"
    return r, shown


def start_servers(state):
    env = dict(os.environ, AWS_EC2_METADATA_DISABLED="true")
    port = servers.free_port()
    moto = servers.spawn(state, "moto", [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], env)
    atexit.register(stop_servers, state)
    url = f"http://127.0.0.1:{port}"
    servers.wait_http(url + "/moto-api/", moto, "moto")
    certs = make_certs(os.path.join(state, "ca"))
    ready = os.path.join(state, "proxy.ready")
    proxy = servers.spawn(state, "proxy", [sys.executable, os.path.join(SUPPORT, "proxy"), "--upstream", url,
                                           "--tls-cert", certs["cert"], "--tls-key", certs["key"],
                                           "--log", os.path.join(state, "proxy.log"), "--ready-file", ready])
    info = servers.wait_ready(ready, proxy, "the test proxy")
    return port, info["tls_port"], certs["ca"]


def stop_servers(state):
    for f in os.listdir(state):
        if f.endswith(".pid"):
            try:
                os.killpg(int(open(os.path.join(state, f)).read().strip()), signal.SIGTERM)
            except (ValueError, ProcessLookupError, PermissionError):
                pass
    shutil.rmtree(state, ignore_errors=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    state = tempfile.mkdtemp(prefix="floe-static-smoke-")
    port, tls_port, ca = start_servers(state)

    r, shown = floe(binary, ["--version"])
    case("--version in an empty environment", r.returncode == 0 and r.stdout.startswith(b"floe "), shown)

    endpoint = ["--endpoint-url", f"http://localhost:{port}"]
    r, shown = floe(binary, endpoint + ["mb", "s3://static-smoke"], KEYS)
    case("mb at http://localhost (resolved by the static glibc)", r.returncode == 0, shown)
    r, shown = floe(binary, endpoint + ["put", "s3://static-smoke/hello.txt"], KEYS, stdin=b"hello, static floe\n")
    case("put from stdin", r.returncode == 0, shown)
    r, shown = floe(binary, endpoint + ["ls"], KEYS)
    case("ls lists the bucket", r.returncode == 0 and b"static-smoke" in r.stdout, shown)
    r, shown = floe(binary, endpoint + ["ls", "s3://static-smoke"], KEYS)
    case("ls s3://static-smoke lists the key (ListObjectsV2 XML)", r.returncode == 0 and b"hello.txt" in r.stdout, shown)
    r, shown = floe(binary, endpoint + ["cat", "s3://static-smoke/hello.txt"], KEYS)
    case("cat returns the bytes put", r.returncode == 0 and r.stdout == b"hello, static floe\n", shown)
    r, shown = floe(binary, endpoint + ["cat", "s3://static-smoke/missing"], KEYS)
    case("cat of a missing key exits 4 naming NoSuchKey", r.returncode == 4 and b"NoSuchKey" in r.stderr, shown)

    tls = ["--endpoint-url", f"https://localhost:{tls_port}"]
    r, shown = floe(binary, tls + ["ls", "s3://static-smoke"], KEYS | {"SSL_CERT_FILE": ca})
    case("ls over TLS with the CA from SSL_CERT_FILE", r.returncode == 0 and b"hello.txt" in r.stdout, shown)
    r, shown = floe(binary, tls + ["ls", "s3://static-smoke"], KEYS)
    case("ls over TLS without SSL_CERT_FILE fails certificate verification",
         r.returncode == 1 and b"certificate" in r.stderr, shown)

    print(f"floe-cases: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
