#!/usr/bin/env python3
"""Shows that moto's conditional PUT is not atomic (a fact about the store,
not a test of floe).

moto 5.2.1's put_object checks If-Match (or If-None-Match: *) against the
stored object, then stores the new one, in separate steps, under werkzeug's
threaded server; the user metadata is attached after the body is stored.
Two PUTs with the same If-Match ETag can therefore both succeed, and a
concurrent GET can see the new body without its metadata. AWS and Ceph RGW
decide a conditional write atomically.

  python3 tests/support/moto_if_match_race.py [RACES] [--switch SECONDS]

Starts moto on a free loopback port, then RACES times: writes a base
object, and lets 8 threads PUT on it at once with If-Match = its ETag; prints
how many races had more than one winner. The window is a few microseconds,
so with CPython's default 5 ms thread switch interval in moto it shows
rarely (the moto torture of 16 writers once ended one short in about ten
runs); `--switch 0.000001` runs moto with a 1 µs switch interval and shows
it in a few per cent of races (3 in 100 here). Traffic goes to 127.0.0.1 only.
"""
import argparse
import os
import socket
import subprocess
import sys
import threading
import time

os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                  AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")

import boto3  # noqa: E402
import botocore.config  # noqa: E402
import botocore.exceptions  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("races", nargs="?", type=int, default=100)
    ap.add_argument("--switch", type=float, default=None,
                    help="sys.setswitchinterval for moto's interpreter (default: CPython's)")
    ap.add_argument("--writers", type=int, default=8)
    a = ap.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if a.switch is None:
        cmd = [sys.executable, "-m", "moto.server"]
    else:
        cmd = [sys.executable, "-c", f"import sys; sys.setswitchinterval({a.switch!r}); "
               "sys.argv[0] = 'moto_server'; from moto.server import main; main()"]
    srv = subprocess.Popen(cmd + ["-H", "127.0.0.1", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        cfg = botocore.config.Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"})
        clients = [boto3.client("s3", endpoint_url=url, config=cfg) for _ in range(a.writers + 1)]
        main_c = clients[-1]
        deadline = time.monotonic() + 30
        while True:
            try:
                main_c.list_buckets()
                break
            except Exception:  # noqa: BLE001 - not up yet
                if time.monotonic() > deadline:
                    raise SystemExit("moto did not start")
                time.sleep(0.05)
        main_c.create_bucket(Bucket="race-bucket")
        hist = {}
        for t in range(a.races):
            etag = main_c.put_object(Bucket="race-bucket", Key="k", Body=b"base-%d" % t)["ETag"]
            gate = threading.Barrier(a.writers)
            wins = []

            def write(i, t=t, etag=etag, gate=gate, wins=wins):
                gate.wait()
                try:
                    clients[i].put_object(Bucket="race-bucket", Key="k", Body=b"w%d-%d" % (t, i),
                                          IfMatch=etag)
                    wins.append(i)
                except botocore.exceptions.ClientError:
                    pass
            threads = [threading.Thread(target=write, args=(i,)) for i in range(a.writers)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            hist[len(wins)] = hist.get(len(wins), 0) + 1
        doubled = sum(n for w, n in hist.items() if w > 1)
        print(f"{a.races} races of {a.writers} If-Match PUTs on one ETag: winners per race "
              f"{dict(sorted(hist.items()))}; {doubled} with more than one winner")
    finally:
        srv.terminate()
        srv.wait()


if __name__ == "__main__":
    main()
