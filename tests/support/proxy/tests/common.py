"""Shared fixtures for the proxy self-tests: one moto for the run, boto3 clients, raw sockets."""
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
SUPPORT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if SUPPORT not in sys.path:
    sys.path.insert(0, SUPPORT)

AKID = "AKIDFLOETEST0001"
SECRET = "floe/test+secret=key:0001"
REGION = "us-east-1"

_moto = {"url": None, "proc": None}


def source_root():
    root = os.environ.get("FLOE_SOURCE_ROOT")
    if root:
        return root
    return os.path.dirname(os.path.dirname(SUPPORT))


def vectors_dir(name):
    return os.path.join(source_root(), "tests", "data", "vectors", name)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def moto_url():
    """FLOE_TEST_MOTO_ENDPOINT, or a moto this run starts on a free loopback port."""
    if _moto["url"]:
        return _moto["url"]
    env_url = os.environ.get("FLOE_TEST_MOTO_ENDPOINT")
    if env_url:
        _moto["url"] = env_url
        return env_url
    try:
        import moto  # noqa: F401
    except ImportError:
        raise RuntimeError("moto is not installed: pip install 'moto[server]==5.2.1' boto3") from None
    port = free_port()
    env = dict(os.environ)
    env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"moto exited with {proc.returncode} while starting")
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=1).read()
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("moto did not start within 30 s") from None
            time.sleep(0.1)  # start-up poll
    _moto.update(url=url, proc=proc)
    return url


def stop_moto():
    if _moto["proc"] is not None:
        _moto["proc"].terminate()
        _moto["proc"].wait(10)
        _moto["proc"] = None


def client(service, endpoint, akid=AKID, secret=SECRET, token=None, retries=1, **cfg):
    import boto3
    from botocore.config import Config
    verify = cfg.pop("verify", None)
    conf = Config(retries={"total_max_attempts": retries, "mode": "standard"}, connect_timeout=5,
                  read_timeout=cfg.pop("read_timeout", 20), **cfg)
    return boto3.client(service, endpoint_url=endpoint, aws_access_key_id=akid,
                        aws_secret_access_key=secret, aws_session_token=token,
                        region_name=REGION, config=conf, verify=verify)


def raw_exchange(port, data, timeout=5.0):
    """Sends bytes, returns everything received until EOF or the timeout (and whether EOF came)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        return recv_all(s)


def recv_all(s):
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out, True
            out += chunk
    except socket.timeout:
        return out, False


def recv_reply(s, buf=b""):
    """Reads exactly one reply with a Content-Length body from a socket (buf: bytes already
    received). Returns (head, body, bytes after it)."""
    while b"\r\n\r\n" not in buf:
        c = s.recv(65536)
        if not c:
            raise ConnectionError("EOF before a reply head")
        buf += c
    head, _, rest = buf.partition(b"\r\n\r\n")
    n = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
    while len(rest) < n:
        c = s.recv(65536)
        if not c:
            raise ConnectionError("EOF inside a reply body")
        rest += c
    return head, rest[:n], rest[n:]


def wait_until(cond, what, seconds=10):
    """Polls a condition with a deadline (observing state, not sleeping for it)."""
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)
