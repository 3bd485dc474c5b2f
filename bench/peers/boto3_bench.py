#!/usr/bin/env python3
"""boto3 on bench/run's scenarios. Prints one JSON line.

  boto3_bench.py sign N
  boto3_bench.py get  ENDPOINT KEY N CONCURRENCY
  boto3_bench.py put  ENDPOINT PREFIX N CONCURRENCY     (keys PREFIX/0 .. N-1)
  boto3_bench.py big-get ENDPOINT KEY DEST              (DEST /dev/null: streamed; else download_file)
  boto3_bench.py big-put ENDPOINT FILE KEY              (upload_file: multipart)
  boto3_bench.py tail ENDPOINT BUCKET KEY N            (sequential GETs, each timed: p50/p99/p99.9; boto3's defaults)

Fairness: path style, keep-alive (urllib3 pool sized to the concurrency),
checksum extras off (request/response checksums only when required), one
attempt, no retries. Concurrency is boto3's own way: threads sharing one
client. CPU is getrusage of the timed part only; the harness adds peak RSS.
"""
import json
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import boto3
import botocore
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from boto3.s3.transfer import TransferConfig

BUCKET = "bench"


def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def client(endpoint, pool=10):
    cfg = Config(
        region_name="us-east-1",
        s3={"addressing_style": "path"},
        retries={"max_attempts": 1, "mode": "standard"},
        max_pool_connections=max(pool, 1),
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        tcp_keepalive=True,
    )
    return boto3.session.Session().client("s3", endpoint_url=endpoint, config=cfg)


def emit(**kw):
    kw.setdefault("tool", "boto3")
    kw.setdefault("version", f"boto3 {boto3.__version__}, botocore {botocore.__version__}")
    print(json.dumps(kw))


def sign(n):
    creds = Credentials("AKIDEXAMPLEEXAMPLE12", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    auth = S3SigV4Auth(creds, "s3", "eu-west-1")
    url = "https://my-bucket.s3.eu-west-1.amazonaws.com/logs/2024/05/17/part-0001.parquet"

    def one():
        r = AWSRequest(method="GET", url=url, headers={"Range": "bytes=0-1048575"})
        auth.add_auth(r)

    for _ in range(200):
        one()
    t0 = time.perf_counter()
    for _ in range(n):
        one()
    dt = time.perf_counter() - t0
    emit(op="sign", us_per_sig=dt * 1e6 / n, n=n)


def small(op, endpoint, key, n, conc):
    s3 = client(endpoint, conc)
    body = bytes((ord("a") + i % 26) for i in range(1024))

    def get(_i):
        r = s3.get_object(Bucket=BUCKET, Key=key)
        if len(r["Body"].read()) != 1024:
            raise RuntimeError("short body")

    def put(i):
        s3.put_object(Bucket=BUCKET, Key=f"{key}/{i}", Body=body)

    def warm(i):
        if op == "get":
            get(i)
        else:
            s3.put_object(Bucket=BUCKET, Key=f"{key}.warm/{i}", Body=body)

    fn = get if op == "get" else put
    with ThreadPoolExecutor(conc) if conc > 1 else _Inline() as pool:
        list(pool.map(warm, range(max(conc, 20))))
        c0, t0 = cpu(), time.perf_counter()
        list(pool.map(fn, range(n)))
        dt, dc = time.perf_counter() - t0, cpu() - c0
    emit(op=op, inflight=conc, requests=n, rps=n / dt, cpu_us_per_req=dc * 1e6 / n)


class _Inline:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def map(self, fn, it):
        return map(fn, it)


def big_get(endpoint, key, dest):
    s3 = client(endpoint)
    t0 = time.perf_counter()
    if dest == "/dev/null":
        r = s3.get_object(Bucket=BUCKET, Key=key)
        size = 0
        for chunk in r["Body"].iter_chunks(1 << 20):
            size += len(chunk)
    else:
        s3.download_file(BUCKET, key, dest, Config=TransferConfig())
        import os
        size = os.path.getsize(dest)
    dt = time.perf_counter() - t0
    emit(op="big-get", bytes=size, mb_per_s=size / dt / 1e6)


def big_put(endpoint, path, key):
    import os
    s3 = client(endpoint)
    size = os.path.getsize(path)
    t0 = time.perf_counter()
    s3.upload_file(path, BUCKET, key, Config=TransferConfig(multipart_chunksize=16 << 20))
    dt = time.perf_counter() - t0
    emit(op="big-put", bytes=size, mb_per_s=size / dt / 1e6)


def tail(endpoint, bucket, key, n):
    """The tail scenario (bench/scenarios/tail.py): n sequential GETs of one
    small object, each timed, boto3's own defaults but path style."""
    s3 = boto3.session.Session().client(
        "s3", endpoint_url=endpoint, config=Config(region_name="us-east-1", s3={"addressing_style": "path"}))
    s3.get_object(Bucket=bucket, Key=key)["Body"].read()  # a connection open, the signer ready
    ms = []
    c0 = cpu()
    for _ in range(n):
        t0 = time.perf_counter()
        s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        ms.append((time.perf_counter() - t0) * 1e3)
    c = cpu() - c0
    ms.sort()

    def pct(q):
        return ms[min(len(ms), max(1, int(q * len(ms) + 0.999999))) - 1]
    emit(op="tail", requests=n, p50_ms=pct(0.5), p99_ms=pct(0.99), p999_ms=pct(0.999), cpu_us_per_get=c * 1e6 / n)


def main(a):
    if a[0] == "sign":
        sign(int(a[1]))
    elif a[0] in ("get", "put"):
        small(a[0], a[1], a[2], int(a[3]), int(a[4]))
    elif a[0] == "big-get":
        big_get(a[1], a[2], a[3])
    elif a[0] == "big-put":
        big_put(a[1], a[2], a[3])
    elif a[0] == "tail":
        tail(a[1], a[2], a[3], int(a[4]))
    elif a[0] == "version":
        emit(op="version")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
