#!/usr/bin/env python3
"""Writes the derived seeds of the fuzz corpora (fuzz/README.md says which).

  fuzz/seed_corpora.py vectors     bodies of tests/data/vectors/errors/*.http
                                   -> corpus/error_xml/vector-*; requests of
                                   the AWS SigV4 suite -> corpus/sigv4_canonical/suite-*
  fuzz/seed_corpora.py moto        starts moto 5.2.1 on a free loopback port
                                   and saves the bodies of its S3 and STS
                                   replies -> corpus/{s3_replies,sts_replies}/moto-*
  fuzz/seed_corpora.py store URL ACCESS_KEY SECRET_KEY PREFIX
                                   the same S3 replies from another store on
                                   loopback (e.g. the Ceph RGW scripts/test
                                   starts) -> corpus/s3_replies/PREFIX-*
  fuzz/seed_corpora.py replies     the captured replies of tests/data/vectors/errors/
                                   (vector-*), the scripted server's reply shapes
                                   and hand-written framings (edge-*), each behind
                                   the target's options and split bytes
                                   -> corpus/http_reply_head/
  fuzz/seed_corpora.py ledger      commits, checkpoints and hints as the ledger
                                   writes them (the shapes of tests/unit/ledger and
                                   tests/integration/ledger: escapes, UTF-8, version
                                   ids, the genesis) and near misses -> corpus/ledger/

Only loopback endpoints are accepted. Files are written, never deleted; the
hand-written seeds beside them are kept as they are.
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


def vectors():
    errors = os.path.join(ROOT, "tests", "data", "vectors", "errors")
    for f in sorted(os.listdir(errors)):
        if not f.endswith(".http"):
            continue
        with open(os.path.join(errors, f), "rb") as fh:
            raw = fh.read()
        body = raw.partition(b"\r\n\r\n")[2]
        if body:
            write("error_xml", "vector-" + f[:-5] + ".xml", body)

    # One seed per suite case: flag byte, path as key and as wire path, a
    # bucket, the query parameters (decoded where the suite encodes them)
    # and the headers, in fuzz_sigv4_canonical's layout.
    suite = os.path.join(ROOT, "tests", "data", "vectors", "sigv4")
    for case in sorted(os.listdir(suite)):
        req_path = os.path.join(suite, case, "request.txt")
        if not os.path.isfile(req_path):
            continue
        with open(req_path, "rb") as fh:
            text = fh.read()
        head = text.split(b"\n\n", 1)[0].split(b"\n")
        line = head[0]
        target = line[line.index(b" ") + 1:line.rindex(b" HTTP/")]
        path, _, query = target.partition(b"?")
        fields = [urllib.parse.unquote_to_bytes(path), path, b"examplebucket"]
        for item in query.split(b"&") if query else []:
            name, eq, value = item.partition(b"=")
            n, v = urllib.parse.unquote_to_bytes(name), urllib.parse.unquote_to_bytes(value)
            fields.append(n + b"\x01" + v if eq else n)
        for h in head[1:]:
            if h[:1] in (b" ", b"\t") or b":" not in h:
                continue
            name, _, value = h.partition(b":")
            fields.append(b"\x02" + name + b"\x01" + value)
        flags = 1 if case.startswith("get-vanilla") else 0
        if "session-token" in case:
            flags |= 2
        write("sigv4_canonical", "suite-" + case, bytes([flags]) + b"\x00".join(fields))
        write("sigv4_canonical", "suite-presign-" + case, bytes([flags | 4]) + b"\x00".join(fields))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_only(url):
    host = urllib.parse.urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        sys.exit(f"seed_corpora: {url} is not a loopback endpoint")


def capture(client, service, target, prefix, names):
    """Saves the body of every reply `client` parses, under the operation's name."""
    seen = {}
    bodies = set()

    def keep(response_dict, operation_model, **_):
        body = response_dict.get("body") or b""
        status = response_dict.get("status_code", 0)
        if not body.strip() or status >= 300 or body in bodies:
            return
        bodies.add(body)
        n = names.get(operation_model.name, operation_model.name)
        seen[n] = seen.get(n, 0) + 1
        suffix = "" if seen[n] == 1 else f"-{seen[n]}"
        write(target, f"{prefix}-{n}{suffix}.xml", body)

    client.meta.events.register(f"before-parse.{service}.*", keep)


def s3_session(client, bucket):
    client.create_bucket(Bucket=bucket)
    client.create_bucket(Bucket=bucket + "-other")
    keys = ["plain.txt", "dir/a b.txt", "dir/sub/x+y=z.bin", "dir/ünï©ødé €.txt", "per%cent&amp;<x>", "dir/~tilde"]
    for k in keys:
        client.put_object(Bucket=bucket, Key=k, Body=b"v:" + k.encode())
    client.list_objects_v2(Bucket=bucket, EncodingType="url")
    client.list_objects_v2(Bucket=bucket)
    client.list_objects_v2(Bucket=bucket, EncodingType="url", Delimiter="/")
    client.list_objects_v2(Bucket=bucket, EncodingType="url", MaxKeys=2)
    client.list_objects_v2(Bucket=bucket, Prefix="nothing-here/")
    client.list_buckets()
    up = client.create_multipart_upload(Bucket=bucket, Key="big")
    part = client.upload_part(Bucket=bucket, Key="big", UploadId=up["UploadId"], PartNumber=1, Body=b"x" * (5 << 20))
    copied = client.upload_part_copy(Bucket=bucket, Key="big", UploadId=up["UploadId"], PartNumber=2,
                                     CopySource={"Bucket": bucket, "Key": "plain.txt"})
    client.complete_multipart_upload(Bucket=bucket, Key="big", UploadId=up["UploadId"], MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": part["ETag"]},
                  {"PartNumber": 2, "ETag": copied["CopyPartResult"]["ETag"]}]})
    client.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "plain.txt"})
    client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys] + [{"Key": "missing"}]})
    client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "big"}, {"Key": "copy"}], "Quiet": False})


S3_NAMES = {"ListObjectsV2": "list-objects-v2", "ListBuckets": "list-buckets", "CreateMultipartUpload": "initiate",
            "UploadPartCopy": "copy-part", "CompleteMultipartUpload": "complete", "CopyObject": "copy-object",
            "DeleteObjects": "delete-objects"}


def s3_client(url, access_key, secret_key):
    import boto3
    from botocore.config import Config
    return boto3.client("s3", endpoint_url=url, region_name="us-east-1", aws_access_key_id=access_key,
                        aws_secret_access_key=secret_key,
                        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


def store(url, access_key, secret_key, prefix):
    loopback_only(url)
    c = s3_client(url, access_key, secret_key)
    capture(c, "s3", "s3_replies", prefix, S3_NAMES)
    s3_session(c, f"floe-seeds-{int(time.time())}")


def moto():
    import boto3
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/moto-api/", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    sys.exit("seed_corpora: moto did not start")
                time.sleep(0.1)  # start-up poll
        c = s3_client(url, "AKIDSEEDS", "seed/secret+key")
        capture(c, "s3", "s3_replies", "moto", S3_NAMES)
        s3_session(c, "floe-seeds")

        sts = boto3.client("sts", endpoint_url=url, region_name="us-east-1", aws_access_key_id="AKIDSEEDS",
                           aws_secret_access_key="seed/secret+key")
        capture(sts, "sts", "sts_replies", "moto", {"AssumeRole": "assume-role",
                                                     "AssumeRoleWithWebIdentity": "assume-role-web-identity",
                                                     "GetCallerIdentity": "caller-identity"})
        role = "arn:aws:iam::123456789012:role/floe-seeds"
        sts.assume_role(RoleArn=role, RoleSessionName="seeds", DurationSeconds=900, ExternalId="ext-1")
        sts.assume_role_with_web_identity(RoleArn=role, RoleSessionName="seeds-wi",
                                          WebIdentityToken="eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWVkcyJ9.c2ln")
        sts.get_caller_identity()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def framed(options, split, wire):
    """An http_reply_head input: its options byte, its split byte, the bytes."""
    return bytes([options, split]) + wire


def replies():
    src = os.path.join(ROOT, "tests", "data", "vectors", "errors")
    for name in sorted(os.listdir(src)):
        if not name.endswith(".http"):
            continue
        with open(os.path.join(src, name), "rb") as fh:
            wire = fh.read()
        base = name[:-5]
        write("http_reply_head", "vector-" + base, framed(0, 7, wire))
        write("http_reply_head", "vector-" + base + "-head", framed(1, 3, wire))          # as a reply to HEAD
        write("http_reply_head", "vector-" + base + "-limits", framed(0xd4, 11, wire))    # 1 KiB head, 0/16-byte bodies
    ok = b"HTTP/1.1 200 OK\r\n"
    cases = {
        # the scripted server's shapes (tests/support/scripted_s3.py)
        "scripted-200-length": b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 5\r\n\r\nhello",
        "scripted-503-slowdown": b"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: 98\r\n\r\n"
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code><Message>Reduce</Message></Error>\n",
        "scripted-close": ok + b"Connection: close\r\n\r\nuntil the close",
        "edge-chunked": ok + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
        "edge-chunked-ext-trailer": ok + b"Transfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: t\r\n\r\n",
        "edge-chunked-bad-size": ok + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
        "edge-chunked-huge-size": ok + b"Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nx\r\n",
        "edge-gzip-chunked": ok + b"Transfer-Encoding: gzip, chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
        "edge-te-twice": ok + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "edge-length-and-te": ok + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "edge-length-twice-same": ok + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\nok",
        "edge-length-twice-other": ok + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "edge-length-list": ok + b"Content-Length: 2, 2\r\n\r\nok",
        "edge-length-huge": ok + b"Content-Length: 18446744073709551616\r\n\r\n",
        "edge-length-short": ok + b"Content-Length: 1234\r\n\r\nHTTP/1.1 200 OK",
        "edge-length-then-next": ok + b"Content-Length: 5\r\n\r\nhelloHTTP/1.1 204 No Content\r\n\r\n",
        "edge-100-then-201": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        "edge-103-100-200": b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
        "edge-204-length": b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK",
        "edge-304-etag": b"HTTP/1.1 304 Not Modified\r\nETag: \"e\"\r\nContent-Length: 10\r\n\r\n",
        "edge-http10": b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
        "edge-http09": b"HTTP/0.9 200 OK\r\n\r\n",
        "edge-http2": b"HTTP/2 200\r\n\r\n",
        "edge-status-low": b"HTTP/1.1 099 Low\r\n\r\n",
        "edge-status-four": b"HTTP/1.1 2000 OK\r\n\r\n",
        "edge-empty-reason": b"HTTP/1.1 503 \r\nContent-Length: 0\r\n\r\n",
        "edge-obs-fold": ok + b"X-A: one\r\n\t two\r\n  three\r\nContent-Length: 0\r\n\r\n",
        "edge-lone-cr": ok + b"X-A: a\rInjected: b\r\n\r\n",
        "edge-bare-lf": b"HTTP/1.1 200 OK\nContent-Length: 0\n\n",
        "edge-nul": ok + b"X-A: a\x00b\r\n\r\n",
        "edge-bad-name": ok + b"Bad Name: x\r\n: empty\r\n\r\n",
        "edge-control-reason": b"HTTP/1.1 200 O\x01K\r\n\r\n",
        "edge-utf8-value": ok + b"X-Amz-Meta-Name: \xc3\xa9t\xc3\xa9\r\nContent-Length: 0\r\n\r\n",
        "edge-request-line": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        "edge-partial-head": ok + b"Content-",
        "edge-empty": b"",
    }
    for name, wire in cases.items():
        write("http_reply_head", name, framed(0, 5, wire))
    big = ok + b"X-Filler: " + b"f" * 300 + b"\r\nContent-Length: 0\r\n\r\n"
    write("http_reply_head", "edge-header-limit-256", framed(0x04, 9, big))
    write("http_reply_head", "edge-header-limit-40", framed(0x0c, 1, b"HTTP/1.1 200 " + b"r" * 60 + b"\r\n\r\n"))
    write("http_reply_head", "edge-body-limit-16", framed(0x20, 2, ok + b"Content-Length: 20\r\n\r\n" + b"0123456789" * 2))
    write("http_reply_head", "edge-error-body-limit-16",
          framed(0x80, 4, b"HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nabcdefghi\r\n9\r\njklmnopqr\r\n0\r\n\r\n"))
    write("http_reply_head", "edge-head-request-length", framed(0x01, 6, ok + b"Content-Length: 1234\r\n\r\n"))
    write("http_reply_head", "edge-interim-wanted", framed(0x02, 8, b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"))


def ledger():
    def j(v):
        return json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode()

    def commit(n, entries, write_id="abc123.7", writer="host-1/pid 42 \u2603", time_="2025-01-02T03:04:05Z"):
        return j({"floe_ledger": 1, "kind": "commit", "commit": n, "write_id": write_id, "writer": writer,
                  "time": time_, "entries": entries})

    sample = [["lake", "raw/a.parquet", "0bbc18cdea1c4aaa17777d441214774a", 10],
              ["lake", "in/day 1/a+b%c \u00e9\u2603.parquet", "ad75efb1f93d0873aa6555e8c351656d-2", 5242884],
              ["other", "q\"uote\\back\nline", "e", 0, "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY"]]
    w = lambda name, data: write("ledger", name, data)
    w("commit-sample", commit(7, sample))
    w("commit-genesis", commit(0, [], write_id="g.0", writer="", time_="1970-01-01T00:00:00Z"))
    w("commit-ascii-escaped", json.dumps({"floe_ledger": 1, "kind": "commit", "commit": 3, "write_id": "w",
                                          "writer": "x\u0001", "time": "t", "entries": sample}).encode())
    w("commit-future-member", commit(3, [], write_id="w", writer="x", time_="t")[:-1] + b',"future_member":{"x":1}}')
    w("commit-max-number", commit(18446744073709551615, [["b", "k", "e", 18446744073709551615]]))
    w("commit-long-key", commit(5, [["b", "k" * 1024, "e" * 1024, 1, "v" * 1024]]))
    w("near-commit-key-too-long", commit(5, [["b", "k" * 1025, "e", 1]]))
    w("near-commit-genesis-entries", commit(0, [["b", "k", "e", 1]]))
    w("near-commit-version-3", commit(1, [])[:-1].replace(b'"floe_ledger":1', b'"floe_ledger":3') + b"}")
    w("near-commit-three-members", commit(3, [["b", "k", "e"]]))
    w("near-commit-negative-size", commit(3, [["b", "k", "e", -1]]))
    w("near-commit-empty-version", commit(3, [["b", "k", "e", 1, ""]]))
    w("near-commit-empty-etag", commit(3, [["b", "k", "", 1]]))
    w("near-commit-quote-etag", commit(3, [["b", "k", "e\"", 1]]))
    w("near-commit-slash-bucket", commit(3, [["a/b", "k", "e", 1]]))
    w("near-commit-lone-surrogate", commit(3, [])[:-13] + b'"entries":[["b","\\ud800","e",1]]}')
    w("near-commit-truncated", commit(7, sample)[:-9])
    w("near-commit-not-object", b"[]")
    w("near-commit-bad-write-id", commit(3, [], write_id="", writer="x"))
    lines = [j({"floe_ledger": 1, "kind": "checkpoint", "commit": 100, "entries": len(sample)})] + [j(e) for e in sample]
    w("checkpoint-sample", b"\n".join(lines) + b"\n")
    w("checkpoint-empty", j({"floe_ledger": 1, "kind": "checkpoint", "commit": 0, "entries": 0}) + b"\n")
    w("near-checkpoint-no-last-newline", b"\n".join(lines))
    w("near-checkpoint-fewer", b"\n".join(lines[:-1]) + b"\n")
    w("near-checkpoint-twice", b"\n".join(lines + [lines[1]]).replace(b'"entries":3', b'"entries":4') + b"\n")
    w("near-checkpoint-blank-line", b"\n".join(lines[:2] + [b""] + lines[2:]) + b"\n")
    w("near-checkpoint-crlf", b"\r\n".join(lines) + b"\r\n")
    w("hint", j({"floe_ledger": 1, "kind": "hint", "checkpoint": 100}))
    w("near-hint-string", j({"floe_ledger": 1, "kind": "hint", "checkpoint": "100"}))
    w("name-commit", b"00000000000000000007.json")
    w("name-checkpoint", b"00000000000000000100.ndjson")
    w("name-max", b"18446744073709551615.json")
    w("near-name-overflow", b"18446744073709551616.json")
    w("near-name-sign", b"+0000000000000000007.json")
    # Format 2: sequencers, checksums, removals (docs/ledger.md).
    v2 = [["lake", "raw/a.parquet", "0bbc18cdea1c4aaa17777d441214774a", 10,
           {"sequencer": "0055AED6DCD90281E5", "checksum": {"algorithm": "CRC32C", "value": "yZRlqg=="}}],
          ["lake", "raw/b.parquet", "e", 5, {"version_id": "3HL4kqtJ", "sequencer": "0055AED6DCD90281E6"}],
          {"removal": ["lake", "raw/c.parquet"], "sequencer": "0055AED6DCD9028200"},
          {"removal": ["lake", "raw/b.parquet"], "version_id": "3HL4kqtJ", "sequencer": "0055AED6DCD9028201"},
          ["lake", "raw/c.parquet", "e2", 7, "v.plain"]]
    commit2 = lambda n, entries: commit(n, entries).replace(b'"floe_ledger":1', b'"floe_ledger":2', 1)
    w("commit-v2-sample", commit2(8, v2))
    w("near-commit-v2-removal-in-v1", commit(8, v2))
    w("near-commit-v2-removal-etag", commit2(8, [{"removal": ["lake", "k", "e"]}]))
    w("near-commit-v2-lower-sequencer", commit2(8, [["b", "k", "e", 1, {"sequencer": "00ab"}]]))
    w("near-commit-v2-unknown-checksum", commit2(8, [["b", "k", "e", 1, {"checksum": {"algorithm": "MD5", "value": "x"}}]]))
    lines2 = [j({"floe_ledger": 2, "kind": "checkpoint", "commit": 200, "entries": len(v2)})] + [j(e) for e in v2]
    w("checkpoint-v2-sample", b"\n".join(lines2) + b"\n")
    w("near-checkpoint-v2-twice", b"\n".join(lines2 + [lines2[1]]).replace(b'"entries":5', b'"entries":6') + b"\n")
    w("prefix", b"/tables/events/")
    w("near-prefix-double-slash", b"tables//events")


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "vectors":
        vectors()
    elif len(sys.argv) >= 2 and sys.argv[1] == "moto":
        moto()
    elif len(sys.argv) >= 2 and sys.argv[1] == "replies":
        replies()
    elif len(sys.argv) >= 2 and sys.argv[1] == "ledger":
        ledger()
    elif len(sys.argv) == 6 and sys.argv[1] == "store":
        store(*sys.argv[2:])
    else:
        sys.exit(__doc__)
