"""The proxy against a real moto (and small local servers), with boto3 and raw sockets."""
import base64
import hashlib
import http.client
import http.server
import json
import os
import random
import resource
import socket
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

import botocore.exceptions
from botocore import UNSIGNED

import common
from proxy.certs import make_certs
from proxy.connect_proxy import ForwardProxyThread
from proxy.server import ProxyThread

_bucket_seq = [0]


def new_bucket(s3):
    _bucket_seq[0] += 1
    name = f"px-{os.getpid()}-{_bucket_seq[0]}"
    s3.create_bucket(Bucket=name)
    return name


def error_code(exc):
    return exc.response["Error"]["Code"]


class ProxyCase(unittest.TestCase):
    """One proxy (plain + TLS listener) in front of moto for the whole class."""

    @classmethod
    def setUpClass(cls):
        cls.upstream = common.moto_url()
        cls.tmp = tempfile.mkdtemp(prefix="floe-proxy-test-")
        cls.certs = make_certs(os.path.join(cls.tmp, "ca"))
        cls.log_path = os.path.join(cls.tmp, "proxy.log")
        cls.px = ProxyThread(cls.upstream, tls_cert=cls.certs["cert"], tls_key=cls.certs["key"],
                             log_path=cls.log_path).start()
        cls.port = cls.px.proxy.port

    @classmethod
    def tearDownClass(cls):
        cls.px.stop()

    def setUp(self):
        self.px.reset(all=True)
        self.s3 = common.client("s3", self.px.endpoint)

    def bucket(self):
        return new_bucket(self.s3)

    def add(self, rule):
        return self.px.add_rule(rule)

    def raw(self, method, path, headers=(), body=b"", sign=False):
        """A request as bytes; with sign=True signed by botocore for common.AKID."""
        headers = list(headers)
        if sign:
            from botocore.auth import S3SigV4Auth
            from botocore.awsrequest import AWSRequest
            from botocore.credentials import Credentials
            req = AWSRequest(method=method, url=f"http://127.0.0.1:{self.port}{path}",
                             headers=dict(headers), data=body)
            req.headers["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
            S3SigV4Auth(Credentials(common.AKID, common.SECRET), "s3",
                        common.REGION).add_auth(req)
            headers = list(req.headers.items())
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers]
        if body or method in ("PUT", "POST"):
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Forwarding(ProxyCase):
    def test_keep_alive_one_connection_for_many_requests(self):
        b = self.bucket()
        for i in range(5):
            self.s3.put_object(Bucket=b, Key=f"k{i}", Body=b"v")
        st = self.px.stats()
        self.assertEqual(st["connections"], 1)
        self.assertEqual(st["requests"], 6)
        self.assertEqual(st["by_service"], {"s3": 6})

    def test_new_client_connections_are_counted(self):
        for _ in range(3):
            common.raw_exchange(self.port, self.raw("GET", "/", [("Connection", "close")]))
        self.assertEqual(self.px.stats()["connections"], 3)

    def test_object_roundtrip_with_odd_keys_and_verifier_on(self):
        self.px.verify(enabled=True, secrets={common.AKID: common.SECRET})
        b = self.bucket()
        rng = random.Random(7)
        chars = "ab /+%=~!*'():é😀"
        for i in range(40):
            key = ("/" if i % 5 == 0 else "") + "".join(rng.choice(chars) for _ in range(12)) + "//x"
            self.s3.put_object(Bucket=b, Key=key, Body=key.encode())
            self.assertEqual(self.s3.get_object(Bucket=b, Key=key)["Body"].read(), key.encode())
        self.assertEqual(self.px.stats()["signature_failures"], 0)

    def test_large_put_streams_without_buffering(self):
        sink = SinkServer().start()
        try:
            with ProxyThread(sink.url) as px:
                size = 100 * 1024 * 1024
                piece = bytes(range(256)) * 4096   # 1 MiB
                before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                conn = http.client.HTTPConnection("127.0.0.1", px.proxy.port, timeout=60)
                conn.putrequest("PUT", "/big")
                conn.putheader("Content-Length", str(size))
                conn.endheaders()
                h = hashlib.sha256()
                for _ in range(size // len(piece)):
                    conn.send(piece)
                    h.update(piece)
                r = conn.getresponse()
                got = json.loads(r.read())
                conn.close()
                after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            self.assertEqual(got, {"length": size, "sha256": h.hexdigest()})
            self.assertLess((after - before) * 1024, 40 * 1024 * 1024,
                            "peak memory grew by more than 40 MiB for a 100 MiB body")
        finally:
            sink.stop()

    def test_chunked_and_unframed_replies_are_relayed(self):
        srv = SinkServer().start()
        try:
            with ProxyThread(srv.url) as px:
                conn = http.client.HTTPConnection("127.0.0.1", px.proxy.port, timeout=10)
                conn.request("GET", "/chunked")
                r = conn.getresponse()
                self.assertEqual(r.getheader("Transfer-Encoding"), "chunked")
                self.assertEqual(r.read(), b"hello chunked world" * 100)
                conn.request("GET", "/chunked")           # same connection: still in step
                self.assertEqual(conn.getresponse().read(), b"hello chunked world" * 100)
                conn.close()
                data, eof = common.raw_exchange(px.proxy.port,
                                                b"GET /nolength HTTP/1.1\r\nHost: x\r\n\r\n")
                self.assertTrue(eof)
                self.assertTrue(data.endswith(b"until close" * 50))
                self.assertEqual(px.stats()["connections"], 2)
        finally:
            srv.stop()

    def test_host_header_is_forwarded_as_sent(self):
        srv = SinkServer().start()
        try:
            with ProxyThread(srv.url) as px:
                conn = http.client.HTTPConnection("127.0.0.1", px.proxy.port, timeout=10)
                conn.request("GET", "/echo-host", headers={"Host": "bucket.s3.example:1234"})
                self.assertEqual(conn.getresponse().read(), b"bucket.s3.example:1234")
                conn.close()
        finally:
            srv.stop()


class Expect100(ProxyCase):
    def test_forwarded_100_continue_then_body(self):
        b = self.bucket()
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(self.raw("PUT", f"/{b}/e", [("Expect", "100-continue"),
                                                  ("Content-Length", "5")])[:-4]
                      .replace(b"\r\nContent-Length: 0", b"") + b"\r\n\r\n")
            first = s.recv(4096)
            self.assertTrue(first.startswith(b"HTTP/1.1 100"), first)
            s.sendall(b"hello")
            head, _body, _ = common.recv_reply(s)
            self.assertIn(b" 200 ", head.split(b"\r\n")[0])
        self.assertEqual(self.s3.get_object(Bucket=b, Key="e")["Body"].read(), b"hello")

    def test_rule_answers_before_forwarding_without_reading_the_body(self):
        b = self.bucket()
        self.add({"match": {"method": "PUT", "path": f"^/{b}/"},
                  "action": {"type": "reply", "status": 403, "body": "<Error/>"}})
        req = (f"PUT /{b}/x HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
               f"Content-Length: 1000\r\n\r\n").encode()
        data, eof = common.raw_exchange(self.port, req)
        self.assertTrue(data.startswith(b"HTTP/1.1 403"), data)
        self.assertNotIn(b"100 Continue", data)
        self.assertTrue(eof, "the proxy must close after answering an unread 100-continue body")
        head = data.split(b"\r\n\r\n", 1)[0].lower()
        self.assertIn(b"\r\nconnection: close", head, "a client must not reuse the connection it closes")
        with self.assertRaises(botocore.exceptions.ClientError):
            self.s3.head_object(Bucket=b, Key="x")

    def test_verifier_rejection_with_expect_closes_without_the_body(self):
        self.px.verify(enabled=True, secrets={})
        req = (b"PUT /bkt/x HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
               b"Authorization: AWS4-HMAC-SHA256 Credential=AKIDNOPE/20260101/us-east-1/s3/"
               b"aws4_request, SignedHeaders=host;x-amz-date, Signature=00\r\n"
               b"x-amz-date: 20260101T000000Z\r\nx-amz-content-sha256: UNSIGNED-PAYLOAD\r\n"
               b"Content-Length: 1000\r\n\r\n")
        data, eof = common.raw_exchange(self.port, req)
        self.assertTrue(data.startswith(b"HTTP/1.1 403"), data)
        self.assertIn(b"<Code>InvalidAccessKeyId</Code>", data)
        self.assertTrue(eof)


class Actions(ProxyCase):
    def test_reply_before_status_body(self):
        b = self.bucket()
        rid = self.add({"match": {"method": "PUT", "path": f"^/{b}/"}, "trigger": {"nth": [1]},
                        "action": {"type": "reply", "status": 503, "headers":
                                   {"Content-Type": "application/xml"}, "body":
                                   "<Error><Code>SlowDown</Code><Message>m</Message></Error>"}})
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            self.s3.put_object(Bucket=b, Key="k", Body=b"v")
        self.assertEqual(error_code(cm.exception), "SlowDown")
        self.s3.put_object(Bucket=b, Key="k", Body=b"v")      # 2nd match: forwarded
        r = self.px.rule(rid)
        self.assertEqual((r["matched"], r["fired"]), (2, 1))

    def test_slowdown_then_success_with_retries(self):
        b = self.bucket()
        self.add({"match": {"method": "PUT", "path": f"^/{b}/"}, "trigger": {"first": 2},
                  "action": {"type": "reply", "status": 503, "body":
                             "<Error><Code>SlowDown</Code><Message>m</Message></Error>"}})
        s3 = common.client("s3", self.px.endpoint, retries=3)
        s3.put_object(Bucket=b, Key="k", Body=b"v")
        self.assertEqual(self.px.rules()[0]["fired"], 2)

    def test_reply_raw_vector_bytes_verbatim(self):
        b = self.bucket()
        path = os.path.join(common.vectors_dir("errors"), "moto-412-precondition.http")
        with open(path, "rb") as fh:
            raw = fh.read()
        self.add({"match": {"method": "PUT", "headers_present": ["If-None-Match"]},
                  "action": {"type": "reply", "raw_b64": base64.b64encode(raw).decode()}})
        data, eof = common.raw_exchange(self.port, self.raw(
            "PUT", f"/{b}/k", [("If-None-Match", "*")], b"abc"))
        self.assertEqual(data, raw)
        self.assertTrue(eof)            # the vector says Connection: close
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            self.s3.put_object(Bucket=b, Key="k", Body=b"v", IfNoneMatch="*")
        self.assertEqual(error_code(cm.exception), "PreconditionFailed")

    def test_reply_raw_fix_length(self):
        raw = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 999\r\n\r\n<Error/>"
        self.add({"match": {"method": "GET"}, "action": {
            "type": "reply", "raw_b64": base64.b64encode(raw).decode(), "fix_length": True}})
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(self.raw("GET", "/a") + self.raw("GET", "/b"))
            h1, b1, rest = common.recv_reply(s)
            self.assertIn(b"Content-Length: 8", h1)
            self.assertEqual(b1, b"<Error/>")
            _h2, b2, _ = common.recv_reply(s, rest)
            self.assertEqual(b2, b"<Error/>")     # kept alive: the second reply came too

    def test_reply_after_forwards_then_replaces(self):
        b = self.bucket()
        self.add({"match": {"method": "PUT", "path": f"^/{b}/"},
                  "action": {"type": "reply", "when": "after", "status": 500, "body": "x"}})
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            self.s3.put_object(Bucket=b, Key="k", Body=b"took effect")
        self.assertEqual(cm.exception.response["ResponseMetadata"]["HTTPStatusCode"], 500)
        self.assertEqual(self.s3.get_object(Bucket=b, Key="k")["Body"].read(), b"took effect")

    def test_delay(self):
        self.add({"match": {"method": "GET", "path": "^/$"}, "action": {"type": "delay", "ms": 300}})
        t0 = time.monotonic()
        self.s3.list_buckets()
        self.assertGreaterEqual(time.monotonic() - t0, 0.3)

    def test_reply_before_after_a_wait(self):
        rid = self.add({"match": {"method": "GET", "path": "^/waited$"},
                        "action": {"type": "reply", "ms": 300, "status": 200, "body": "late"}})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        t0 = time.monotonic()
        conn.request("GET", "/waited")
        r = conn.getresponse()
        self.assertEqual((r.status, r.read()), (200, b"late"))
        self.assertGreaterEqual(time.monotonic() - t0, 0.3)
        conn.close()
        self.assertEqual(self.px.rule(rid)["fired"], 1)
        self.assertEqual(self.px.stats()["forwarded"], 0)

    def test_stall_never_answers(self):
        rid = self.add({"match": {"method": "GET"}, "action": {"type": "stall"}})
        data, eof = common.raw_exchange(self.port, self.raw("GET", "/"), timeout=0.5)
        self.assertEqual((data, eof), (b"", False))
        self.assertEqual(self.px.rule(rid)["fired"], 1)
        s3 = common.client("s3", self.px.endpoint, read_timeout=1)
        with self.assertRaises(botocore.exceptions.ReadTimeoutError):
            s3.list_buckets()

    def test_stall_body_after_bytes(self):
        b = self.bucket()
        self.s3.put_object(Bucket=b, Key="k", Body=b"0123456789" * 100)
        self.add({"match": {"method": "GET", "path": f"^/{b}/k$"},
                  "action": {"type": "stall_body", "after_bytes": 10}})
        data, eof = common.raw_exchange(self.port, self.raw("GET", f"/{b}/k", sign=True),
                                        timeout=0.5)
        self.assertFalse(eof)
        head, _, body = data.partition(b"\r\n\r\n")
        self.assertIn(b"Content-Length: 1000", head)
        self.assertEqual(body, b"0123456789")

    def test_delay_body_sends_the_head_after_head_ms_and_the_body_later(self):
        b = self.bucket()
        self.s3.put_object(Bucket=b, Key="k", Body=b"0123456789")
        rid = self.add({"match": {"method": "GET", "path": f"^/{b}/k$"},
                        "action": {"type": "delay_body", "ms": 400, "head_ms": 300}})
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            t0 = time.monotonic()
            s.sendall(self.raw("GET", f"/{b}/k", sign=True))
            buf = b""
            while b"\r\n\r\n" not in buf:
                c = s.recv(65536)
                self.assertTrue(c, "EOF before the reply head")
                buf += c
            head, _, body = buf.partition(b"\r\n\r\n")
            self.assertIn(b"200 OK", head)
            self.assertGreaterEqual(time.monotonic() - t0, 0.3)  # head_ms
            # The body is not there yet: it comes 400 ms after the head.
            s.settimeout(0.2)
            with self.assertRaises(socket.timeout):
                body += s.recv(65536)
            s.settimeout(5)
            _, rest_body, _ = common.recv_reply(s, buf)
        self.assertEqual(rest_body, b"0123456789")
        self.assertEqual(self.px.rule(rid)["fired"], 1)

    def test_cut_before_does_not_forward(self):
        b = self.bucket()
        self.add({"match": {"method": "PUT", "path": f"^/{b}/"},
                  "action": {"type": "cut", "when": "before"}})
        data, eof = common.raw_exchange(self.port, self.raw("PUT", f"/{b}/k", body=b"v"))
        self.assertEqual((data, eof), (b"", True))
        self.px.reset()
        with self.assertRaises(botocore.exceptions.ClientError):
            self.s3.head_object(Bucket=b, Key="k")

    def test_cut_after_forwards_without_replying(self):
        b = self.bucket()
        self.add({"match": {"method": "PUT", "path": f"^/{b}/"},
                  "action": {"type": "cut", "when": "after"}})
        data, eof = common.raw_exchange(self.port, self.raw("PUT", f"/{b}/k", body=b"v"))
        self.assertEqual((data, eof), (b"", True))
        self.px.reset()
        self.assertEqual(self.s3.get_object(Bucket=b, Key="k")["Body"].read(), b"v")

    def test_cut_mid_body(self):
        b = self.bucket()
        self.s3.put_object(Bucket=b, Key="k", Body=b"x" * 1000)
        self.add({"match": {"method": "GET", "path": f"^/{b}/k$"},
                  "action": {"type": "cut", "when": "mid_body"}})
        data, eof = common.raw_exchange(self.port, self.raw("GET", f"/{b}/k", sign=True))
        self.assertTrue(eof)
        head, _, body = data.partition(b"\r\n\r\n")
        self.assertIn(b"Content-Length: 1000", head)
        self.assertEqual(body, b"x" * 500)

    def test_flip_one_reply_body_byte(self):
        b = self.bucket()
        body = bytes(range(256)) * 4
        self.s3.put_object(Bucket=b, Key="k", Body=body)
        rid = self.add({"match": {"method": "GET", "path": f"^/{b}/k$"}, "trigger": {"nth": [1]},
                        "action": {"type": "flip", "where": "reply_body", "offset": 300}})

        def get():      # raw: boto3 itself would refuse the flipped body (its CRC check)
            req = self.raw("GET", f"/{b}/k", [("Connection", "close")], sign=True)
            data, eof = common.raw_exchange(self.port, req)
            self.assertTrue(eof)
            head, _, got = data.partition(b"\r\n\r\n")
            self.assertIn(b"Content-Length: 1024", head)
            return got
        got = get()
        self.assertEqual([i for i in range(len(body)) if got[i] != body[i]], [300])
        self.assertEqual(got[300], body[300] ^ 0xFF)
        self.assertEqual(get(), body)                     # the 2nd match: not fired
        self.assertEqual(self.px.rule(rid)["fired"], 1)
        # an offset past the end of the body: relayed unchanged
        self.add({"match": {"method": "GET", "path": f"^/{b}/k$"},
                  "action": {"type": "flip", "where": "reply_body", "offset": 5000}})
        self.assertEqual(get(), body)
        for bad in ({"type": "flip", "where": "headers"}, {"type": "flip", "offset": -1},
                    {"type": "flip", "when": "after"}):
            with self.assertRaises(RuntimeError):
                self.add({"action": bad})

    def body_put(self, b, key, headers, body):
        req = self.raw("PUT", f"/{b}/{key}", headers + [("Connection", "close")], body, sign=True)
        data, _eof = common.raw_exchange(self.port, req)
        head, _, got = data.partition(b"\r\n\r\n")
        return int(head.split(b" ", 2)[1]), got

    def test_request_bodies_are_checked_as_s3_does(self):
        import base64
        import zlib
        b = self.bucket()
        body = bytes(range(256)) * 8
        md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
        crc = base64.b64encode(zlib.crc32(body).to_bytes(4, "big")).decode()
        # right values pass; the checksum header names a value of the body
        self.assertEqual(self.body_put(b, "ok", [("Content-MD5", md5), ("x-amz-checksum-crc32", crc)], body)[0], 200)
        # a wrong Content-MD5 / checksum: 400 BadDigest, nothing stored
        st, got = self.body_put(b, "md5", [("Content-MD5", base64.b64encode(b"x" * 16).decode())], body)
        self.assertEqual(st, 400)
        self.assertIn(b"<Code>BadDigest</Code>", got)
        self.assertIn(b"Content-MD5", got)
        st, got = self.body_put(b, "crc", [("x-amz-checksum-crc32", "AAAAAA==")], body)
        self.assertEqual(st, 400)
        self.assertIn(b"The CRC32 you specified did not match the calculated checksum.", got)
        st, got = self.body_put(b, "bad", [("x-amz-checksum-crc32", "notbase64")], body)
        self.assertEqual(st, 400)
        self.assertIn(b"<Code>InvalidRequest</Code>", got)
        # a byte flipped in transit (the first try only): the same refusal, then the body passes
        rid = self.add({"match": {"method": "PUT", "path": f"^/{b}/flip$"}, "trigger": {"nth": [1]},
                        "action": {"type": "flip", "where": "request_body", "offset": 1000}})
        st, got = self.body_put(b, "flip", [("x-amz-checksum-crc32", crc)], body)
        self.assertEqual(st, 400)
        self.assertIn(b"BadDigest", got)
        self.assertEqual(self.body_put(b, "flip", [("x-amz-checksum-crc32", crc)], body)[0], 200)
        self.assertEqual(self.px.rule(rid)["fired"], 1)
        keys = sorted(o["Key"] for o in self.s3.list_objects_v2(Bucket=b).get("Contents", []))
        self.assertEqual(keys, ["flip", "ok"])
        self.assertEqual(self.s3.get_object(Bucket=b, Key="flip")["Body"].read(), body)
        self.assertEqual(self.px.stats()["body_rejections"], 4)

    def test_aws_chunked_trailer_is_decoded_and_checked(self):
        import base64
        import zlib
        b = self.bucket()
        payload = b"hello aws-chunked world" * 100
        crc = base64.b64encode(zlib.crc32(payload).to_bytes(4, "big")).decode()

        def framed(value):
            return (b"%x\r\n" % len(payload) + payload + b"\r\n0\r\nx-amz-checksum-crc32:" + value.encode() +
                    b"\r\n\r\n")
        hdrs = [("Content-Encoding", "aws-chunked"), ("x-amz-decoded-content-length", str(len(payload))),
                ("x-amz-trailer", "x-amz-checksum-crc32")]

        def put(key, value):
            body = framed(value)
            req = self.raw("PUT", f"/{b}/{key}", hdrs + [("Connection", "close")], body, sign=True)
            req = req.replace(hashlib.sha256(body).hexdigest().encode(), b"STREAMING-UNSIGNED-PAYLOAD-TRAILER")
            data, _eof = common.raw_exchange(self.port, req)
            head, _, got = data.partition(b"\r\n\r\n")
            return int(head.split(b" ", 2)[1]), got
        self.px.verify(enabled=False)
        self.assertEqual(put("good", crc)[0], 200)
        self.assertEqual(self.s3.get_object(Bucket=b, Key="good")["Body"].read(), payload)
        st, got = put("bad", "AAAAAA==")
        self.assertEqual(st, 400)
        self.assertIn(b"BadDigest", got)

    def test_close_after_relays_then_closes_without_header(self):
        self.add({"match": {"method": "GET", "path": "^/$"}, "action": {"type": "close_after"}})
        data, eof = common.raw_exchange(self.port, self.raw("GET", "/") + self.raw("GET", "/"))
        self.assertTrue(eof)
        self.assertEqual(data.count(b"HTTP/1.1 200"), 1)
        self.assertNotIn(b"connection: close", data.lower())
        self.assertIn(b"ListAllMyBucketsResult", data)

    def test_hold_until_released(self):
        b = self.bucket()
        rid = self.add({"match": {"method": "GET", "path": f"^/{b}"}, "action": {"type": "hold"}})
        out = {}

        def call():
            out["r"] = self.s3.list_objects_v2(Bucket=b)
        t = threading.Thread(target=call)
        t.start()
        common.wait_until(lambda: self.px.rule(rid)["held"] == 1, "a held reply")
        self.assertNotIn("r", out)
        self.assertEqual(self.px.release(rid), 1)
        t.join(10)
        self.assertIn("r", out)
        r = self.px.rule(rid)
        self.assertEqual((r["held"], r["released"], r["fired"]), (0, 1, 1))


class Triggers(ProxyCase):
    def fire_pattern(self, trigger, n):
        self.add({"match": {"method": "GET", "path": "^/trig"}, "trigger": trigger,
                  "action": {"type": "reply", "status": 599, "body": ""}})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        out = []
        for _ in range(n):
            conn.request("GET", "/trig")
            r = conn.getresponse()
            r.read()
            out.append(r.status == 599)
        conn.close()
        return [i + 1 for i, f in enumerate(out) if f]

    def test_nth(self):
        self.assertEqual(self.fire_pattern({"nth": [1, 3]}, 5), [1, 3])

    def test_every(self):
        self.assertEqual(self.fire_pattern({"every": True}, 3), [1, 2, 3])

    def test_first(self):
        self.assertEqual(self.fire_pattern({"first": 2}, 5), [1, 2])

    def test_after(self):
        self.assertEqual(self.fire_pattern({"after": 3}, 5), [4, 5])

    def test_chance_is_seeded_and_capped(self):
        got = self.fire_pattern({"chance": 0.5, "seed": 42, "max": 4}, 30)
        rng = random.Random(42)
        want = []
        for i in range(30):
            if rng.random() < 0.5 and len(want) < 4:
                want.append(i + 1)
        self.assertEqual(got, want)
        self.assertEqual(self.px.rules()[0]["seed"], 42)
        with open(self.log_path) as fh:
            self.assertIn("seed 42", fh.read())

    def test_chance_without_seed_reports_one(self):
        rid = self.add({"match": {"method": "GET"}, "trigger": {"chance": 0.1},
                        "action": {"type": "delay", "ms": 0}})
        self.assertIsInstance(self.px.rule(rid)["seed"], int)

    def test_rules_in_id_order_first_firing_wins(self):
        a = self.add({"match": {"path": "^/ord"}, "trigger": {"nth": [2]},
                      "action": {"type": "reply", "status": 591}})
        b = self.add({"match": {"path": "^/ord"}, "action": {"type": "reply", "status": 592}})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        seen = []
        for _ in range(3):
            conn.request("GET", "/ord")
            r = conn.getresponse()
            r.read()
            seen.append(r.status)
        conn.close()
        self.assertEqual(seen, [592, 591, 592])
        self.assertEqual(self.px.rule(a)["matched"], 3)
        self.assertEqual(self.px.rule(b)["matched"], 2)

    def test_match_fields(self):
        self.add({"match": {"service": "s3", "method": "get", "query": "list-type=2",
                            "header": {"X-Amz-Date": "^2"}, "access_key": common.AKID},
                  "action": {"type": "reply", "status": 503, "body": "<Error><Code>SlowDown</Code></Error>"}})
        b = self.bucket()
        with self.assertRaises(botocore.exceptions.ClientError):
            self.s3.list_objects_v2(Bucket=b)
        other = common.client("s3", self.px.endpoint, akid="AKIDOTHER")
        other.list_objects_v2(Bucket=b)         # another key: not matched
        self.s3.list_objects(Bucket=b)          # no list-type=2: not matched
        self.assertEqual(self.px.rules()[0]["fired"], 1)


class Serialization(ProxyCase):
    def test_exchanges_on_one_object_go_one_at_a_time(self):
        b = self.bucket()
        self.s3.put_object(Bucket=b, Key="k", Body=b"old")
        self.s3.put_object(Bucket=b, Key="other", Body=b"other")
        self.assertEqual(self.px.serialize(True), {"enabled": True})
        rid = self.add({"match": {"method": "PUT", "path": f"^/{b}/k$"}, "action": {"type": "hold"}})
        out = {}
        writer_s3 = common.client("s3", self.px.endpoint)
        reader_s3 = common.client("s3", self.px.endpoint)

        def write():
            out["put"] = writer_s3.put_object(Bucket=b, Key="k", Body=b"new")

        def read():
            out["get"] = reader_s3.get_object(Bucket=b, Key="k")["Body"].read()
        w = threading.Thread(target=write)
        w.start()
        common.wait_until(lambda: self.px.rule(rid)["held"] == 1, "the held PUT")
        r = threading.Thread(target=read)
        r.start()
        common.wait_until(lambda: self.px.stats()["serialized_waits"] == 1, "the GET waiting")
        # Another object is not held up; the GET of k is.
        self.assertEqual(self.s3.get_object(Bucket=b, Key="other")["Body"].read(), b"other")
        self.assertNotIn("get", out)
        self.assertEqual(self.px.release(rid), 1)
        w.join(10)
        r.join(10)
        self.assertIn("put", out)
        self.assertEqual(out.get("get"), b"new")   # read after the write's reply, never between

    def test_off_by_default_and_after_reset_all(self):
        self.assertEqual(self.px.control("GET", "/serialize"), {"enabled": False})
        self.px.serialize(True)
        self.px.reset()
        self.assertEqual(self.px.control("GET", "/serialize"), {"enabled": True})
        self.px.reset(all=True)
        self.assertEqual(self.px.control("GET", "/serialize"), {"enabled": False})
        with self.assertRaises(Exception):
            self.px.control("POST", "/serialize", {"enabled": "yes"})


class ControlApi(ProxyCase):
    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.px.control_endpoint + path, data=data, method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def test_rules_crud_over_http(self):
        st, r = self.call("POST", "/rules", {"name": "n1", "match": {"method": "DELETE"},
                                              "action": {"type": "hold"}})
        self.assertEqual(st, 200)
        rid = r["id"]
        st, lst = self.call("GET", "/rules")
        self.assertEqual([x["id"] for x in lst], [rid])
        self.assertEqual({k: lst[0][k] for k in ("name", "matched", "fired", "held", "seed")},
                         {"name": "n1", "matched": 0, "fired": 0, "held": 0, "seed": None})
        self.assertEqual(self.call("GET", f"/rules/{rid}")[1]["id"], rid)
        self.assertEqual(self.call("POST", f"/rules/{rid}/release"), (200, {"released": 0}))
        self.assertEqual(self.call("DELETE", f"/rules/{rid}"), (200, {"deleted": 1}))
        self.assertEqual(self.call("GET", f"/rules/{rid}")[0], 404)
        self.call("POST", "/rules", {"action": {"type": "delay", "ms": 1}})
        self.call("POST", "/rules", {"action": {"type": "delay", "ms": 1}})
        self.assertEqual(self.call("DELETE", "/rules"), (200, {"deleted": 2}))

    def test_bad_rules_are_rejected(self):
        for bad in ({"match": {"pth": "x"}, "action": {"type": "stall"}},
                    {"action": {"type": "explode"}},
                    {"trigger": {"nth": [0]}, "action": {"type": "stall"}},
                    {"trigger": {"nth": [1], "every": True}, "action": {"type": "stall"}},
                    {"action": {"type": "reply", "raw_b64": "%%%"}},
                    {"action": {"type": "cut", "when": "later"}},
                    {"action": {"type": "reply", "when": "after", "ms": 5}},
                    {"match": {"path": "("}, "action": {"type": "stall"}}):
            st, r = self.call("POST", "/rules", bad)
            self.assertEqual(st, 400, bad)
            self.assertIn("error", r)
        self.assertEqual(self.call("GET", "/nope")[0], 404)

    def test_stats_and_reset(self):
        self.s3.list_buckets()
        st, s = self.call("GET", "/stats")
        self.assertEqual((s["connections"], s["requests"], s["by_service"], s["signature_failures"]),
                         (1, 1, {"s3": 1}, 0))
        self.call("POST", "/rules", {"action": {"type": "delay", "ms": 1}})
        self.assertEqual(self.call("POST", "/reset"), (200, {"ok": True}))
        self.assertEqual(self.call("GET", "/rules")[1], [])
        self.assertEqual(self.call("GET", "/stats")[1]["requests"], 0)

    def test_command_line_proxy_starts_and_answers(self):
        import subprocess
        import sys
        ready = os.path.join(self.tmp, "cli.ready")
        prog = os.path.join(common.SUPPORT, "proxy")
        p = subprocess.Popen([sys.executable, prog, "--upstream", self.upstream,
                              "--ready-file", ready, "--log", os.path.join(self.tmp, "cli.log")],
                             stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        try:
            info = json.loads(p.stdout.readline())
            with urllib.request.urlopen(f"http://127.0.0.1:{info['control_port']}/health",
                                        timeout=10) as r:
                self.assertTrue(json.loads(r.read())["ok"])
            s3 = common.client("s3", f"http://127.0.0.1:{info['port']}")
            self.assertIn("Buckets", s3.list_buckets())
        finally:
            p.terminate()
            p.wait(10)
            p.stdout.close()


class Verifier(ProxyCase):
    def setUp(self):
        super().setUp()
        self.b = self.bucket()
        self.px.verify(enabled=True, secrets={common.AKID: common.SECRET})

    def test_good_signature_passes(self):
        self.s3.put_object(Bucket=self.b, Key="a b", Body=b"1")
        self.assertEqual(self.px.stats()["signature_failures"], 0)

    def test_wrong_secret_is_signature_does_not_match(self):
        bad = common.client("s3", self.px.endpoint, secret="wrong")
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            bad.put_object(Bucket=self.b, Key="k", Body=b"1")
        self.assertEqual(error_code(cm.exception), "SignatureDoesNotMatch")
        self.assertEqual(self.px.stats()["signature_failures"], 1)
        with self.assertRaises(botocore.exceptions.ClientError):
            self.s3.head_object(Bucket=self.b, Key="k")      # it was not forwarded

    def test_unknown_key_is_invalid_access_key_id(self):
        bad = common.client("s3", self.px.endpoint, akid="AKIDUNKNOWN")
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            bad.list_buckets()
        self.assertEqual(error_code(cm.exception), "InvalidAccessKeyId")

    def test_presigned_url_valid_expired_and_tampered(self):
        self.s3.put_object(Bucket=self.b, Key="p q", Body=b"presigned")
        s3v4 = common.client("s3", self.px.endpoint, signature_version="s3v4")
        url = s3v4.generate_presigned_url("get_object", Params={"Bucket": self.b, "Key": "p q"},
                                          ExpiresIn=60)
        self.assertEqual(urllib.request.urlopen(url, timeout=10).read(), b"presigned")
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(url.replace("p%20q", "p%20r"), timeout=10)
        self.assertIn(b"SignatureDoesNotMatch", cm.exception.read())
        self.px.verify(clock_offset_s=120)
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(url, timeout=10)
        body = cm.exception.read()
        self.assertEqual(cm.exception.code, 403)
        self.assertIn(b"<Code>AccessDenied</Code><Message>Request has expired", body)

    def test_clock_skew_is_request_time_too_skewed(self):
        self.px.verify(clock_offset_s=3600)
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            self.s3.list_buckets()
        self.assertEqual(error_code(cm.exception), "RequestTimeTooSkewed")

    def test_payload_hash_mismatch_is_rejected_and_not_stored(self):
        captured = {}
        s3 = common.client("s3", self.px.endpoint)

        def grab(request, **_kw):
            captured["r"] = request
            raise KeyboardInterrupt   # stop botocore before it sends

        s3.meta.events.register("before-send", grab)
        body = b"A" * 200000
        with self.assertRaises(KeyboardInterrupt):
            s3.put_object(Bucket=self.b, Key="h", Body=body)
        req = captured["r"]
        u = urllib.parse.urlsplit(req.url)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.putrequest("PUT", u.path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", u.netloc)
        for k, v in req.headers.items():
            conn.putheader(k, v)
        conn.endheaders()
        conn.send(b"B" * len(body))         # same length, different bytes
        r = conn.getresponse()
        data = r.read()
        self.assertEqual(r.status, 400)
        self.assertIn(b"XAmzContentSHA256Mismatch", data)
        conn.close()
        with self.assertRaises(botocore.exceptions.ClientError):
            self.s3.head_object(Bucket=self.b, Key="h")

    def test_learn_from_sts_then_revoke(self):
        sts = common.client("sts", self.px.endpoint)
        c1 = sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/r",
                             RoleSessionName="one")["Credentials"]
        self.assertIn(c1["AccessKeyId"], self.px.control("GET", "/verify")["learned"])
        tmp = common.client("s3", self.px.endpoint, akid=c1["AccessKeyId"],
                            secret=c1["SecretAccessKey"], token=c1["SessionToken"])
        tmp.put_object(Bucket=self.b, Key="t", Body=b"1")
        self.assertEqual(self.px.revoke("all-issued")["revoked"], [c1["AccessKeyId"]])
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            tmp.get_object(Bucket=self.b, Key="t")
        self.assertEqual(error_code(cm.exception), "AccessDenied")
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            tmp.head_object(Bucket=self.b, Key="t")
        self.assertEqual(cm.exception.response["ResponseMetadata"]["HTTPStatusCode"], 403)
        self.s3.head_object(Bucket=self.b, Key="t")          # the static key still works
        c2 = sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/r",
                             RoleSessionName="two")["Credentials"]
        fresh = common.client("s3", self.px.endpoint, akid=c2["AccessKeyId"],
                              secret=c2["SecretAccessKey"], token=c2["SessionToken"])
        fresh.head_object(Bucket=self.b, Key="t")            # learned later: not revoked
        st = self.px.stats()
        self.assertEqual(st["revoked_rejections"], 2)
        self.assertEqual(st["by_service"]["sts"], 2)

    def test_revoke_bare_403_for_every_method(self):
        c = self._temporary_creds("bare")
        tmp = self._s3_with(c)
        tmp.put_object(Bucket=self.b, Key="b", Body=b"1")
        self.assertEqual(self.px.revoke([c["AccessKeyId"]], mode="bare")["revoked"], [c["AccessKeyId"]])
        for call in (lambda: tmp.get_object(Bucket=self.b, Key="b"),
                     lambda: tmp.put_object(Bucket=self.b, Key="b", Body=b"2"),
                     lambda: tmp.list_objects_v2(Bucket=self.b)):
            with self.assertRaises(botocore.exceptions.ClientError) as cm:
                call()
            meta = cm.exception.response["ResponseMetadata"]
            self.assertEqual(meta["HTTPStatusCode"], 403)
            self.assertEqual(meta["HTTPHeaders"].get("content-length"), "0")
        self.assertEqual(self.s3.get_object(Bucket=self.b, Key="b")["Body"].read(), b"1")  # nothing written
        with self.assertRaises(Exception):
            self.px.revoke("all-issued", mode="loud")

    def test_revoke_armed_at_zero_refuses_the_request_it_fires_on(self):
        c = self._temporary_creds("at-zero")
        tmp = self._s3_with(c)
        tmp.put_object(Bucket=self.b, Key="z", Body=b"1")
        self.px.revoke("all-issued", after_forwarded=0, match={"service": "s3", "method": "GET"})
        tmp.head_object(Bucket=self.b, Key="z")                                  # not matched: forwarded
        self.assertEqual(self.px.control("GET", "/revoke")["revoked"], [])
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            tmp.get_object(Bucket=self.b, Key="z")                               # fires, and is refused
        self.assertEqual(error_code(cm.exception), "AccessDenied")
        st = self.px.control("GET", "/revoke")
        self.assertEqual((st["armed"], st["revoked"]), ([], [c["AccessKeyId"]]))
        self.assertEqual(self.px.stats()["revoked_rejections"], 1)

    def _temporary_creds(self, name):
        sts = common.client("sts", self.px.endpoint)
        return sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/r", RoleSessionName=name)["Credentials"]

    def _s3_with(self, c):
        return common.client("s3", self.px.endpoint, akid=c["AccessKeyId"], secret=c["SecretAccessKey"],
                             token=c["SessionToken"])

    def test_revoke_after_n_forwarded_requests(self):
        c = self._temporary_creds("armed")
        tmp = self._s3_with(c)
        armed = self.px.revoke("all-issued", after_forwarded=3,
                               match={"service": "s3", "path": f"^/{self.b}/"})["armed"]
        self.assertEqual((armed["after_forwarded"], armed["forwarded"], armed["fired"]), (3, 0, False))
        tmp.put_object(Bucket=self.b, Key="one", Body=b"1")                   # forwarded 1
        self.s3.list_buckets()                                                 # not matched
        common.client("sts", self.px.endpoint).get_caller_identity()           # not matched
        tmp.put_object(Bucket=self.b, Key="two", Body=b"2")                   # forwarded 2
        self.assertEqual(self.px.control("GET", "/revoke")["armed"][0]["forwarded"], 2)
        self.assertEqual(self.px.control("GET", "/revoke")["revoked"], [])
        tmp.head_object(Bucket=self.b, Key="one")    # the 3rd: forwarded, then the keys are revoked
        st = self.px.control("GET", "/revoke")
        self.assertEqual((st["armed"], st["revoked"]), ([], [c["AccessKeyId"]]))
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            tmp.get_object(Bucket=self.b, Key="one")
        self.assertEqual(error_code(cm.exception), "AccessDenied")
        self.s3.head_object(Bucket=self.b, Key="one")                          # a static key: not issued
        self._s3_with(self._temporary_creds("later")).head_object(Bucket=self.b, Key="one")  # learned after
        self.assertEqual(self.px.stats()["revoked_rejections"], 1)

    def test_revoke_after_n_forwarded_is_atomic_with_forwarding(self):
        # Ten requests in flight at once, each delayed 300 ms by a rule after the early
        # revocation check: the forwarding decision comes after the delay and is where the
        # arm counts, so exactly three are forwarded and seven refused, however they interleave.
        c = self._temporary_creds("atomic")
        self.s3.put_object(Bucket=self.b, Key="k", Body=b"1")
        self.px.revoke("all-issued", after_forwarded=3, match={"service": "s3", "method": "GET"})
        self.add({"match": {"service": "s3", "method": "GET", "path": f"^/{self.b}/"},
                  "action": {"type": "delay", "ms": 300}})
        clients = [self._s3_with(c) for _ in range(10)]
        results = []
        lock = threading.Lock()

        def one(cl):
            try:
                cl.get_object(Bucket=self.b, Key="k")["Body"].read()
                r = "ok"
            except botocore.exceptions.ClientError as e:
                r = error_code(e)
            with lock:
                results.append(r)
        threads = [threading.Thread(target=one, args=(cl,)) for cl in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual(sorted(results), ["AccessDenied"] * 7 + ["ok"] * 3)
        self.assertEqual(self.px.stats()["revoked_rejections"], 7)
        self.assertEqual(self.px.control("GET", "/revoke")["revoked"], [c["AccessKeyId"]])

    def test_revoke_arm_is_validated_and_cleared_by_reset(self):
        for bad in ({"access_keys": "all-issued", "after_forwarded": -1},
                    {"access_keys": "all-issued", "after_forwarded": 2, "bogus": 1},
                    {"access_keys": "some", "after_forwarded": 2},
                    {"access_keys": "all-issued", "after_forwarded": 2, "match": {"nope": 1}}):
            self.assertEqual(self.px.proxy.control("POST", "/revoke", bad)[0], 400, bad)
        self.px.revoke("all-issued", after_forwarded=5)
        self.assertEqual(len(self.px.control("GET", "/revoke")["armed"]), 1)
        self.px.reset()
        self.assertEqual(self.px.control("GET", "/revoke")["armed"], [])

    def test_match_body_of_an_unsigned_sts_request(self):
        rid = self.add({"match": {"service": "sts", "body": "WebIdentityToken=token-b(&|$)"},
                        "action": {"type": "reply", "status": 400, "headers": {"Content-Type": "text/xml"},
                                   "body": "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken"
                                           "</Code><Message>no</Message></Error></ErrorResponse>"}})
        sts = common.client("sts", self.px.endpoint, signature_version=UNSIGNED)
        args = {"RoleArn": "arn:aws:iam::123456789012:role/r", "RoleSessionName": "web"}
        sts.assume_role_with_web_identity(WebIdentityToken="token-a", **args)
        with self.assertRaises(botocore.exceptions.ClientError) as cm:
            sts.assume_role_with_web_identity(WebIdentityToken="token-b", **args)
        self.assertEqual(error_code(cm.exception), "InvalidIdentityToken")
        self.assertEqual((self.px.rule(rid)["matched"], self.px.rule(rid)["fired"]), (1, 1))
        # A body the proxy did not read (a signed S3 PUT with a hash header) never matches.
        self.add({"match": {"service": "s3", "body": "."}, "action": {"type": "reply", "status": 599}})
        self.s3.put_object(Bucket=self.b, Key="p", Body=b"payload")

    def test_revoke_head_is_bare_403(self):
        self.px.revoke([common.AKID])
        data, _ = common.raw_exchange(self.port, self.raw("HEAD", f"/{self.b}/x",
                                                          [("Connection", "close")], sign=True))
        head, _, body = data.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 403"))
        self.assertEqual(body, b"")

    def test_unsigned_web_identity_passes(self):
        sts = common.client("sts", self.px.endpoint, signature_version=UNSIGNED)
        c = sts.assume_role_with_web_identity(RoleArn="arn:aws:iam::123456789012:role/r",
                                              RoleSessionName="web", WebIdentityToken="token-web")
        self.assertIn(c["Credentials"]["AccessKeyId"], self.px.control("GET", "/verify")["learned"])
        self.assertEqual(self.px.stats()["by_service"].get("sts"), 1)

    def test_log_has_no_secrets(self):
        sts = common.client("sts", self.px.endpoint)
        c = sts.get_session_token()["Credentials"]
        s3v4 = common.client("s3", self.px.endpoint, signature_version="s3v4")
        url = s3v4.generate_presigned_url("get_object", Params={"Bucket": self.b, "Key": "k"})
        sig = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["X-Amz-Signature"][0]
        try:
            urllib.request.urlopen(url, timeout=10).read()
        except urllib.error.HTTPError:
            pass
        with open(self.log_path) as fh:
            log = fh.read()
        for secret in (common.SECRET, c["SecretAccessKey"], c["SessionToken"], sig):
            self.assertNotIn(secret, log)
        self.assertIn("REDACTED", log)


class TlsAndForwardProxy(ProxyCase):
    def test_tls_listener_with_the_test_ca(self):
        s3 = common.client("s3", self.px.tls_endpoint, verify=self.certs["ca"])
        self.assertIn("Buckets", s3.list_buckets())
        s3_default = common.client("s3", self.px.tls_endpoint)
        with self.assertRaises(botocore.exceptions.SSLError):
            s3_default.list_buckets()

    def test_connect_tunnel_is_counted(self):
        with ForwardProxyThread() as fp:
            s3 = common.client("s3", self.px.tls_endpoint, verify=self.certs["ca"],
                               proxies={"https": fp.url})
            s3.list_buckets()
            s3.list_buckets()
            st = fp.stats()
        self.assertEqual(st["tunnels"], 1)
        self.assertEqual(st["targets"], [f"127.0.0.1:{self.px.proxy.tls_port}"])

    def test_absolute_uri_forwarding(self):
        with ForwardProxyThread() as fp:
            s3 = common.client("s3", self.px.endpoint, proxies={"http": fp.url})
            s3.list_buckets()
            st = fp.stats()
        self.assertEqual((st["tunnels"], st["http_requests"]), (0, 1))
        self.assertEqual(self.px.stats()["requests"], 1)

    def test_forward_proxy_refuses_non_loopback(self):
        with ForwardProxyThread() as fp:
            data, _ = common.raw_exchange(fp.proxy.port,
                                          b"CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertTrue(data.startswith(b"HTTP/1.1 403"))
            self.assertEqual(fp.stats()["refused"], 1)


class SinkServer:
    """A local HTTP/1.1 server: PUT bodies are hashed, not kept; GET /chunked, /nolength."""

    def __init__(self):
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_PUT(self):
                n = int(self.headers["Content-Length"])
                h = hashlib.sha256()
                left = n
                while left:
                    c = self.rfile.read(min(left, 1 << 20))
                    if not c:
                        break
                    h.update(c)
                    left -= len(c)
                out = json.dumps({"length": n - left, "sha256": h.hexdigest()}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def do_GET(self):
                if self.path == "/chunked":
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for _ in range(100):
                        self.wfile.write(b"13\r\nhello chunked world\r\n")
                    self.wfile.write(b"0\r\n\r\n")
                elif self.path == "/nolength":
                    self.send_response(200)
                    self.end_headers()
                    self.wfile.write(b"until close" * 50)
                    self.close_connection = True
                else:
                    out = (self.headers.get("Host") or "").encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out)
        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}"

    def start(self):
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.srv.shutdown()
        self.srv.server_close()


if __name__ == "__main__":
    unittest.main()
