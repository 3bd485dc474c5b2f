"""The verifier against the AWS SigV4 suite and against requests botocore signs."""
import hashlib
import json
import os
import random
import unittest
import urllib.parse

import common
from proxy import http1, sigv4

BASE_CHARS = "abcXYZ019 +%=~!*'():/@$&,;?#[]\"<>^`{|}-_.é日本ü€😀"
TAMPER_OK = object()


def load_suite():
    root = common.vectors_dir("sigv4")
    if not os.path.isdir(root):
        raise AssertionError(f"the AWS SigV4 suite is missing: expected it at {root} "
                             "(FLOE_SOURCE_ROOT/tests/data/vectors/sigv4)")
    cases = []
    for d in sorted(os.listdir(root)):
        p = os.path.join(root, d)
        if os.path.isdir(p) and os.path.exists(os.path.join(p, "context.json")):
            with open(os.path.join(p, "context.json")) as fh:
                cases.append((d, p, json.load(fh)))
    return cases


def parse_vector_request(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    head_bytes, _, body = raw.partition(b"\n\n")
    return http1.parse_head(head_bytes + b"\n", True), body


def read(path):
    with open(path) as fh:
        return fh.read()


class AwsSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cases = load_suite()

    def test_suite_has_enough_cases(self):
        self.assertGreaterEqual(len(self.cases), 38, "fewer than 38 SigV4 suite cases found")

    def check_style(self, style):
        checked = 0
        for name, p, ctx in self.cases:
            f = os.path.join(p, f"{style}-signed-request.txt")
            if not os.path.exists(f):
                continue
            with self.subTest(case=name, style=style):
                head, body = parse_vector_request(f)
                info = sigv4.parse_auth(head)
                self.assertEqual(info.kind, style)
                ph = sigv4.payload_hash_for(head, info, body)
                # post-sts-header-after: the token is added to the query after signing
                drop = style == "query" and name == "post-sts-header-after"
                creq = sigv4.canonical_request(head, info, ph, ctx["normalize"], drop_token=drop)
                self.assertEqual(creq, read(os.path.join(p, f"{style}-canonical-request.txt")))
                self.assertEqual(sigv4.string_to_sign(info, creq),
                                 read(os.path.join(p, f"{style}-string-to-sign.txt")))
                secret = ctx["credentials"]["secret_access_key"]
                self.assertEqual(sigv4.compute_signature(info, secret, creq),
                                 read(os.path.join(p, f"{style}-signature.txt")).strip())
                sigv4.verify(head, info, secret, ph, ctx["normalize"])
                with self.assertRaises(sigv4.VerifyError):
                    sigv4.verify(head, info, secret + "x", ph, ctx["normalize"])
                # a tampered header value (or method when nothing else is signed) must fail
                bad = http1.parse_head(head.raw.replace(b"example.amazonaws.com",
                                                        b"examplf.amazonaws.com"), True)
                with self.assertRaises(sigv4.VerifyError):
                    sigv4.verify(bad, sigv4.parse_auth(bad), secret, ph, ctx["normalize"])
                checked += 1
        return checked

    def test_header_signed_requests(self):
        self.assertGreaterEqual(self.check_style("header"), 38)

    def test_presigned_requests(self):
        self.assertGreaterEqual(self.check_style("query"), 30)


class _Captured(Exception):
    pass


class BotocoreSigned(unittest.TestCase):
    """Requests signed by botocore (never sent) must verify; tampered copies must not."""

    ENDPOINT = "http://127.0.0.1:9"     # never contacted: requests are captured before sending

    @classmethod
    def setUpClass(cls):
        cls.rng = random.Random(20261129)
        cls.captured = []

        def grab(request, **_kw):
            cls.captured.append(request)
            raise _Captured()
        cls.clients = {}
        for svc in ("s3", "sts", "sqs", "iam"):
            c = common.client(svc, cls.ENDPOINT)
            c.meta.events.register("before-send", grab)
            cls.clients[svc] = c

    def rand_text(self, n_min=1, n_max=24):
        n = self.rng.randint(n_min, n_max)
        s = "".join(self.rng.choice(BASE_CHARS) for _ in range(n))
        r = self.rng.random()
        if r < 0.15:
            s = "/" + s
        elif r < 0.3:
            s = s + "//" + s
        return s

    def capture(self, fn, **kw):
        self.captured.clear()
        with self.assertRaises(_Captured):
            fn(**kw)
        return self.captured[-1]

    @staticmethod
    def to_head(req):
        u = urllib.parse.urlsplit(req.url)
        target = u.path + ("?" + u.query if u.query else "")
        lines = [f"{req.method} {target} HTTP/1.1", f"Host: {u.netloc}"]
        for k, v in req.headers.items():
            if isinstance(v, bytes):
                v = v.decode("latin-1")
            lines.append(f"{k}: {v}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")
        body = req.body or b""
        if hasattr(body, "read"):
            body = body.read()
        if isinstance(body, str):
            body = body.encode()
        return http1.parse_head(raw, True), body

    def verify(self, head, body, secret=common.SECRET):
        info = sigv4.parse_auth(head)
        self.assertIsNotNone(info.kind, head.raw[:200])
        ph = sigv4.payload_hash_for(head, info, body)
        sigv4.verify(head, info, secret, ph)
        if sigv4.is_hash(ph):
            self.assertEqual(hashlib.sha256(body).hexdigest(), ph)
        return info, ph

    def fails(self, head, body, secret=common.SECRET):
        try:
            info = sigv4.parse_auth(head)
            ph = sigv4.payload_hash_for(head, info, body)
            sigv4.verify(head, info, secret, ph)
            if sigv4.is_hash(ph) and hashlib.sha256(body).hexdigest() != ph:
                return True
        except sigv4.VerifyError:
            return True
        return False

    def tamper(self, head, body):
        """Variants of a signed request that the signature must reject."""
        raw = head.raw
        first, _, rest = raw.partition(b"\r\n")
        method, target, ver = first.split(b" ")
        out = []
        path, q, query = target.partition(b"?")
        out.append(b" ".join([method, path + b"x" + q + query, ver]) + b"\r\n" + rest)
        out.append(b" ".join([method, target + (b"&" if q else b"?") + b"extra=1", ver]) + b"\r\n" + rest)
        if len(path) > 1:
            i = self.rng.randrange(1, len(path))
            mutated = path[:i] + (b"A" if path[i:i + 1] != b"A" else b"B") + path[i + 1:]
            out.append(b" ".join([method, mutated + q + query, ver]) + b"\r\n" + rest)
        out.append(raw.replace(b"Host: 127.0.0.1:9", b"Host: 127.0.0.1:8"))
        return [http1.parse_head(r, True) for r in out]

    def run_many(self, n, make):
        ok = 0
        for _ in range(n):
            req = make()
            head, body = self.to_head(req)
            try:
                self.verify(head, body)
            except sigv4.VerifyError as e:
                self.fail(f"{e} for {head.raw[:300]!r}")
            with self.assertRaises(sigv4.VerifyError):
                sigv4.verify(head, sigv4.parse_auth(head),
                             common.SECRET + "x", sigv4.payload_hash_for(head, sigv4.parse_auth(head), body))
            for bad in self.tamper(head, body):
                self.assertTrue(self.fails(bad, body), f"tampered request verified: {bad.raw[:300]!r}")
            if body:
                self.assertTrue(self.fails(head, body + b"!"), "tampered body verified")
            ok += 1
        return ok

    def test_s3_object_keys(self):
        s3 = self.clients["s3"]
        ops = [
            lambda k: self.capture(s3.put_object, Bucket="bkt", Key=k, Body=k.encode()),
            lambda k: self.capture(s3.get_object, Bucket="bkt", Key=k, Range="bytes=0-3"),
            lambda k: self.capture(s3.head_object, Bucket="bkt", Key=k, IfMatch='"abc"'),
            lambda k: self.capture(s3.delete_object, Bucket="bkt", Key=k),
            lambda k: self.capture(s3.list_objects_v2, Bucket="bkt", Prefix=k, Delimiter="/",
                                   StartAfter=self.rand_text()),
            lambda k: self.capture(s3.get_object, Bucket="bkt", Key=k,
                                   ResponseContentDisposition=self.rand_text()),
            lambda k: self.capture(s3.copy_object, Bucket="bkt", Key=k,
                                   CopySource={"Bucket": "bkt", "Key": self.rand_text()}),
            lambda k: self.capture(s3.put_object, Bucket="bkt", Key=k, Body=b"x" * 10,
                                   Metadata={"m": self.rand_text().replace("\n", "")
                                             .encode("ascii", "replace").decode()}),
        ]
        n = self.run_many(2400, lambda: self.rng.choice(ops)(self.rand_text()))
        self.assertEqual(n, 2400)

    def test_s3_presigned(self):
        from botocore.config import Config
        import boto3
        s3 = boto3.client("s3", endpoint_url=self.ENDPOINT, aws_access_key_id=common.AKID,
                          aws_secret_access_key=common.SECRET, region_name=common.REGION,
                          config=Config(signature_version="s3v4"))
        count = 0
        for _ in range(600):
            key = self.rand_text()
            method = self.rng.choice(["get_object", "put_object", "head_object"])
            params = {"Bucket": "bkt", "Key": key}
            if method == "get_object" and self.rng.random() < 0.5:
                params["ResponseContentType"] = self.rand_text()
            url = s3.generate_presigned_url(method, Params=params, ExpiresIn=900)
            u = urllib.parse.urlsplit(url)
            verb = {"get_object": "GET", "put_object": "PUT", "head_object": "HEAD"}[method]
            raw = f"{verb} {u.path}?{u.query} HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode()
            head = http1.parse_head(raw, True)
            info = sigv4.parse_auth(head)
            self.assertEqual(info.kind, "query")
            sigv4.verify(head, info, common.SECRET, sigv4.payload_hash_for(head, info, b""))
            for bad in self.tamper(head, b""):
                self.assertTrue(self.fails(bad, b""), f"tampered presigned URL verified: {bad.raw[:200]!r}")
            count += 1
        self.assertEqual(count, 600)

    def test_query_protocol_services(self):
        sts, iam, sqs = self.clients["sts"], self.clients["iam"], self.clients["sqs"]
        ops = [
            lambda t: self.capture(sts.assume_role, RoleArn="arn:aws:iam::123456789012:role/r",
                                   RoleSessionName="s-" + str(self.rng.randrange(10**6)),
                                   Policy=json.dumps({"x": t})),
            lambda t: self.capture(sts.get_session_token, DurationSeconds=900),
            lambda t: self.capture(iam.get_user, UserName="u" + str(self.rng.randrange(10**6))),
            lambda t: self.capture(sqs.send_message, QueueUrl="http://127.0.0.1:9/123/q",
                                   MessageBody=t),
        ]
        n = self.run_many(600, lambda: self.rng.choice(ops)(self.rand_text()))
        self.assertEqual(n, 600)


class Canonical(unittest.TestCase):
    def test_query_reencoding(self):
        self.assertEqual(sigv4.canonical_query("b=2&a=%7e&c=a+b&d&a=1"), "a=1&a=~&b=2&c=a%2Bb&d=")

    def test_s3_path_is_not_normalised(self):
        self.assertEqual(sigv4.canonical_uri("/bkt//a/./b/../%2F", True), "/bkt//a/./b/../%2F")

    def test_other_services_normalise_and_encode(self):
        self.assertEqual(sigv4.canonical_uri("/a//b/./c/../d e", False), "/a/b/d%20e")

    def test_header_values_trimmed_and_folded(self):
        self.assertEqual(sigv4.canonical_header_value(["  a   b\t c ", "d"]), "a b c,d")


if __name__ == "__main__":
    unittest.main()
