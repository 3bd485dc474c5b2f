"""The servers the scenarios start for themselves on 127.0.0.1: moto (the
heal, ledger and sync scenarios) and the test proxy (tests/support/proxy) in
front of it, and the start-up poll they and the harness's nginx share. Each
started process is appended to the caller's list, which stop_all() ends."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for_url(url, failure, tries=300, pause=0.1):
    """Polls url until it answers; RuntimeError(failure) if it never does."""
    for _ in range(tries):
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            time.sleep(pause)  # start-up poll
    raise RuntimeError(failure)


def start_moto(procs, work, env, log_name):
    """moto server on a free port, its output to work/log_name; returns the
    port once moto answers."""
    port = free_port()
    log = open(os.path.join(work, log_name), "wb")
    procs.append(subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                  stdout=log, stderr=subprocess.STDOUT, env=env))
    wait_for_url(f"http://127.0.0.1:{port}/moto-api/", "moto did not start (pip install 'moto[server]')")
    return port


def start_proxy(procs, work, env, upstream_port, name, extra_args=()):
    """The test proxy in front of 127.0.0.1:upstream_port (its ready file and
    output work/name.ready and work/name.log); returns its ready file's
    contents (port, control_port) once it is up."""
    ready = os.path.join(work, name + ".ready")
    log = open(os.path.join(work, name + ".log"), "wb")
    procs.append(subprocess.Popen([sys.executable, os.path.join(REPO, "tests", "support", "proxy"),
                                   "--upstream", f"http://127.0.0.1:{upstream_port}", "--ready-file", ready,
                                   *extra_args], stdout=log, stderr=subprocess.STDOUT, env=env))
    for _ in range(300):
        if os.path.exists(ready) and os.path.getsize(ready):
            break
        time.sleep(0.05)  # start-up poll
    else:
        raise RuntimeError("the test proxy did not start")
    with open(ready) as f:
        return json.load(f)


def stop_all(procs):
    for p in procs:
        p.terminate()
        p.wait()
