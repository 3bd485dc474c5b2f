#!/usr/bin/env python3
"""Differential test: floe's SigV4 signer against botocore.

Generates thousands of S3 requests (awkward keys, query parameters with
empty values, repeated names and reserved characters, extra headers,
session tokens, signed and unsigned payloads), signs each with botocore
(S3SigV4Auth for headers, S3SigV4QueryAuth for presigned URLs; and, for
the generic path rules, SigV4Auth for a non-S3 service) at a fixed time, has botocore_tool (floe) sign the same inputs, and requires both to
agree byte for byte on everything sent: Authorization, X-Amz-Date,
X-Amz-Security-Token, X-Amz-Content-SHA256, and the full presigned URL.

usage: botocore_diff.py TOOL [--cases N] [--seed S]
Prints "floe-cases: N passed, M failed". Never prints secrets, tokens or
signatures: on a mismatch it names the field and shows both canonical
requests with the token masked.
"""
import argparse
import datetime
import hashlib
import random
import subprocess
import sys

try:
    import botocore
    import botocore.auth
    from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth, SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
except ImportError:
    print("botocore is missing: pip install botocore")
    print("floe-cases: 0 passed, 1 failed")
    sys.exit(1)

from urllib.parse import quote

BASE_TIME = datetime.datetime(2024, 5, 17, 8, 9, 10)

KEY_PIECES = [
    "a", "photos", "2024", "x.txt", "with space", "plus+sign", "per%cent", "eq=ual", "ti~lde",
    "bang!", "star*", "quo'te", "(paren)", "co:lon", "semi;colon", "comma,", "at@", "dollar$",
    "amp&", "hash#", "q?mark", "br[ack]ets", "cur{ly}", "caret^", "back`tick", "pipe|", "lt<gt>",
    "dq\"", "back\\slash", "é", "日本語", "ключ", "😀", "tab\tx", "..", ".", "-_.", "UPPER",
]
QUERY_NAMES = [
    "versionId", "prefix", "delimiter", "list-type", "continuation-token", "start-after",
    "max-keys", "uploads", "uploadId", "partNumber", "x-id", "tagging", "acl",
    "response-content-disposition", "response-content-type", "encoding-type",
    "weird name", "a+b", "k=v", "semi;", "ü", "~tilde", "*star", "(p)",
]
QUERY_VALUES = [
    "", "", "1", "2", "1000", "photos/", "/", "a b", "a+b", "100%", "x=y", "a&b", "~", "!*'()",
    "attachment; filename=\"r\u00e9sum\u00e9.pdf\"", "text/plain; charset=utf-8", "日本",
    "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY", "a,b", ":@$", "#frag", "?q",
]
REGIONS = ["us-east-1", "eu-west-1", "ap-southeast-2", "us-gov-west-1"]
KEYS = [
    ("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
    ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("ASIAQEXAMPLE12345678", "x" * 80),  # longer than an HMAC block with "AWS4"
]
TOKENS = [None, None, "IQoJb3JpZ2luX2VjEXAMPLE/+=tokenvalue", "FwoGZXIvYXdzEB0aDEXAMPLE" * 12]
HEADER_VALUES = ["bytes=0-9", "  padded  ", "a   b\tc", "\"etag-1\"", "*", "", "text/plain",
                 "x", "inner  double  spaces ", "\tleading tab", "a,b,c", "Mixed Case Value"]


def hx(s):
    if isinstance(s, str):
        s = s.encode("utf-8")
    return s.hex()


def make_key(rng):
    parts = [rng.choice(KEY_PIECES) for _ in range(rng.randint(1, 4))]
    sep = lambda: rng.choice(["/", "/", "/", "//", " ", ""])
    key = parts[0]
    for p in parts[1:]:
        key += sep() + p
    r = rng.random()
    if r < 0.1:
        key = "/" + key            # leading slash: path "//key"
    elif r < 0.15:
        key = key + "/"
    return key


def make_case(rng, i):
    mode = "hqg"[i % 3]   # S3 header, S3 presigned, generic (non-S3) header
    method = rng.choice(["GET", "GET", "HEAD", "PUT", "DELETE", "POST"] if mode == "h" else ["GET", "PUT", "HEAD"])
    region = rng.choice(REGIONS)
    bucket = rng.choice(["my-bucket", "b", "data.lake-01"])
    if "." not in bucket and rng.random() < 0.6:
        host, prefix = f"{bucket}.s3.{region}.amazonaws.com", "/"
    else:
        host, prefix = f"s3.{region}.amazonaws.com", f"/{bucket}/"
    key = make_key(rng)
    akid, secret = rng.choice(KEYS)
    token = rng.choice(TOKENS)
    expires = rng.choice([1, 60, 900, 3600, 86400, 604800])
    # Query parameters; presigned cases have unique names (botocore keeps only
    # the first value of a repeated name when it rebuilds the URL).
    query = []
    for _ in range(rng.choice([0, 0, 1, 2, 3, 5])):
        name = rng.choice(QUERY_NAMES)
        if mode == "q" and any(n == name for n, _ in query):
            continue
        query.append((name, rng.choice(QUERY_VALUES)))
    if mode != "q" and query and rng.random() < 0.3:
        query.append((query[0][0], rng.choice(QUERY_VALUES)))  # repeated name
    headers = []
    for _ in range(rng.choice([0, 0, 1, 2, 4])):
        name = rng.choice(["Range", "If-Match", "If-None-Match", "Content-Type", "x-amz-meta-Color",
                           "X-Amz-Meta-color", "x-amz-request-payer", "Cache-Control", "x-amz-tagging"])
        headers.append((name, rng.choice(HEADER_VALUES)))
    body = b""
    if mode != "q" and method in ("PUT", "POST"):
        body = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 63, 64, 65, 1000])))
    unsigned = mode == "q" or (mode == "h" and rng.random() < 0.3)
    return dict(mode=mode, offset=rng.randrange(0, 3) * 86400 + rng.randrange(86400), method=method,
                host=host, prefix=prefix, key=key, region=region, akid=akid, secret=secret, token=token,
                expires=expires, query=query, headers=headers, body=body, unsigned=unsigned)


def tool_line(c):
    f = [c["mode"], str(c["offset"]), hx(c["method"]), hx(c["host"]), hx(c["prefix"]), hx(c["key"]),
         hx(c["region"]), hx(c["akid"]), hx(c["secret"]), hx(c["token"] or ""), str(c["expires"]),
         "U" if c["unsigned"] else "B" + c["body"].hex(), str(len(c["query"]))]
    for n, v in c["query"]:
        f += [hx(n), hx(v)]
    f.append(str(len(c["headers"])))
    for n, v in c["headers"]:
        f += [hx(n), hx(v)]
    return "\t".join(f)


class _S3Config:
    def __init__(self, sign):
        self.s3 = {"payload_signing_enabled": sign}


def botocore_sign(c):
    """Returns (dict of what is sent, canonical request)."""
    path = c["prefix"] + quote(c["key"], safe="/~")
    url = f"https://{c['host']}{path}"
    if c["query"]:
        url += "?" + "&".join(f"{quote(n, safe='-_.~')}={quote(v, safe='-_.~')}" for n, v in c["query"])
    req = AWSRequest(method=c["method"], url=url, data=c["body"] or None)
    req.headers["User-Agent"] = "botocore-diff"   # not signed: on botocore's blacklist
    for n, v in c["headers"]:
        req.headers[n] = v                          # appends: duplicates kept in order
    if c["mode"] == "h" and c["unsigned"]:
        req.context["client_config"] = _S3Config(False)
    now = BASE_TIME + datetime.timedelta(seconds=c["offset"])
    botocore.auth.get_current_datetime = lambda *a, **k: now
    creds = Credentials(c["akid"], c["secret"], c["token"])
    seen = {}
    if c["mode"] == "h":
        class Rec(S3SigV4Auth):
            def canonical_request(self, r):
                seen["cr"] = super().canonical_request(r)
                return seen["cr"]
        Rec(creds, "s3", c["region"]).add_auth(req)
        out = {
            "authorization": req.headers["Authorization"],
            "x-amz-date": req.headers["X-Amz-Date"],
            "x-amz-security-token": req.headers.get("X-Amz-Security-Token", ""),
            "x-amz-content-sha256": req.headers["X-Amz-Content-SHA256"],
        }
    elif c["mode"] == "g":
        class RecG(SigV4Auth):
            def canonical_request(self, r):
                seen["cr"] = super().canonical_request(r)
                return seen["cr"]
        RecG(creds, "sqs", c["region"]).add_auth(req)
        out = {
            "authorization": req.headers["Authorization"],
            "x-amz-date": req.headers["X-Amz-Date"],
            "x-amz-security-token": req.headers.get("X-Amz-Security-Token", ""),
            "x-amz-content-sha256": req.headers.get("X-Amz-Content-SHA256", ""),
        }
    else:
        class RecQ(S3SigV4QueryAuth):
            def canonical_request(self, r):
                seen["cr"] = super().canonical_request(r)
                return seen["cr"]
        RecQ(creds, "s3", c["region"], expires=c["expires"]).add_auth(req)
        out = {"url": req.url}
    return out, seen.get("cr", "")


def unhx(s):
    return bytes.fromhex(s).decode("utf-8")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--cases", type=int, default=4500)
    ap.add_argument("--seed", type=int, default=20240517)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = [make_case(rng, i) for i in range(a.cases)]
    # Session tokens in the tool input are test values, but keep them out of
    # any output regardless.
    proc = subprocess.run([a.tool], input="\n".join(tool_line(c) for c in cases) + "\n",
                          capture_output=True, text=True, timeout=600)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) != len(cases):
        print(f"botocore_tool failed: exit {proc.returncode}, {len(lines)} lines for {len(cases)} cases")
        print(proc.stderr[-2000:])
        print(f"floe-cases: 0 passed, {len(cases)} failed")
        return 1
    passed = failed = 0
    shown = 0
    for i, (c, line) in enumerate(zip(cases, lines)):
        want, want_cr = botocore_sign(c)
        if line.startswith("error "):
            got, got_cr = {}, ""
            why = line
        else:
            f = line.split("\t")
            if c["mode"] != "q":
                got = dict(zip(["authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"],
                               map(unhx, f[:4])))
            else:
                got = {"url": unhx(f[0])}
            got_cr = unhx(f[-1])
            why = ", ".join(k for k in want if want[k] != got.get(k)) or ""
        if not why:
            passed += 1
            continue
        failed += 1
        if shown < 5:
            shown += 1
            mask = lambda s: s.replace(c["token"], "<token>").replace(quote(c["token"], safe="-_.~"), "<token>") \
                if c["token"] else s
            print(f"MISMATCH case {i} ({ {'h': 's3 header', 'q': 's3 presigned', 'g': 'generic header'}[c['mode']] }): {why}")
            print(f"  key={c['key']!r} query={c['query']!r} headers={c['headers']!r}")
            print("  botocore canonical request:\n    " + mask(want_cr).replace("\n", "\n    "))
            print("  floe canonical request:\n    " + mask(got_cr).replace("\n", "\n    "))
    print(f"botocore {botocore.__version__}, seed {a.seed}")
    print(f"floe-cases: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
