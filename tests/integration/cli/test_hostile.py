#!/usr/bin/env python3
"""The `floe` command against scripted loopback servers that misbehave one
way each (tests/support/scripted_s3.py): truncated and spliced downloads,
listings that loop or trickle, keys outside the prefix, C1 controls in
keys, reply heads trickled a byte at a time, slow bodies, and what the
final error line says. (sync --delete against such listings:
test_hostile_sync.py.)

  test_hostile.py PATH_TO_FLOE

Needs no external server. Prints "floe-cases: N passed, M failed".
"""
import hashlib
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import cli_support

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
from scripted_s3 import CloseConnection, ScriptedS3, list_page, reply  # noqa: E402

FLOE = None
SIZE = 200_000
BODY = hashlib.sha256(b"floe").digest() * (SIZE // 32) + b"x" * (SIZE % 32)
# A multipart upload's ETag (not an MD5 of any bytes): the scripted objects'
# bodies differ from case to case, and these cases are about resumes and
# listings, not integrity, which floe checks against a plain-MD5 ETag
# (test_cli_transfers.py and tests/integration/s3/test_checksums.cpp do).
ETAG = '"0123456789abcdef0123456789abcdef-2"'


def env():
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
    e.update({"AWS_EC2_METADATA_DISABLED": "true", "AWS_ACCESS_KEY_ID": "AKIDSCRIPTED",
              "AWS_SECRET_ACCESS_KEY": "scripted-secret", "AWS_REGION": "us-east-1",
              "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"})
    return e


def floe(server_or_endpoint, *args, timeout=120, input=None):
    ep = server_or_endpoint if isinstance(server_or_endpoint, str) else server_or_endpoint.endpoint
    return subprocess.run([FLOE, "--endpoint-url", ep, "--path-style", *args], capture_output=True, env=env(),
                          timeout=timeout, input=input)


def reset(conn):
    """Closes with a TCP reset (RST), not a FIN."""
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.sock.close()
    raise CloseConnection()


def object_script(resume, first=None):
    """GET of any key: a 200 cut after half the body (ETag given, so floe
    resumes), then `resume(conn, req, start)` answers every ranged GET."""
    def script(conn, req):
        if req.method != "GET":
            reply(conn, 405, b"")
            return
        rng = req.header("Range")
        if not rng:
            if first is not None:
                return first(conn, req)
            reply_head = (f"HTTP/1.1 200 OK\r\nContent-Length: {SIZE}\r\nETag: {ETAG}\r\n"
                          "x-amz-request-id: SCRIPTED\r\n\r\n").encode()
            conn.write(reply_head + BODY[:SIZE // 2])
            raise CloseConnection()
        start = int(re.match(r"bytes=(\d+)-", rng).group(1))
        resume(conn, req, start)
    return script


class Downloads(unittest.TestCase):
    """Item 1: a download succeeds only with every byte of the object."""

    def check_refused(self, script, needle):
        with tempfile.TemporaryDirectory() as d:
            dest = os.path.join(d, "dest")
            with open(dest, "wb") as f:
                f.write(b"the old contents")
            with ScriptedS3(script) as s3:
                r = floe(s3, "cp", "s3://b/k", dest)
                self.assertNotEqual(r.returncode, 0, r.stderr)
                self.assertIn(needle, r.stderr.decode())
                with open(dest, "rb") as f:
                    self.assertEqual(f.read(), b"the old contents")  # the destination as it was
                self.assertEqual(sorted(os.listdir(d)), ["dest"])  # no temporary file left
                j = floe(s3, "--json", "cp", "s3://b/k", dest)
                self.assertNotEqual(j.returncode, 0)
                self.assertEqual(j.stdout, b"")  # no success document with a size
                c = floe(s3, "cat", "s3://b/k")
                self.assertNotEqual(c.returncode, 0, "cat exits non-zero")
                self.assertLess(len(c.stdout), SIZE)

    def test_resumed_206_with_an_empty_body(self):
        def resume(conn, req, start):
            reply(conn, 206, b"", {"Content-Range": f"bytes {start}-{SIZE - 1}/{SIZE}", "ETag": ETAG,
                                   "Content-Length": "0"})
        self.check_refused(object_script(resume), "does not match its Content-Range")

    def test_resumed_206_chunked_and_empty(self):
        def resume(conn, req, start):
            conn.write(f"HTTP/1.1 206 X\r\nContent-Range: bytes {start}-{SIZE - 1}/{SIZE}\r\nETag: {ETAG}\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        self.check_refused(object_script(resume), f"the download ended after {SIZE // 2} of {SIZE} bytes")

    def test_resumed_empty_200(self):
        self.check_refused(object_script(lambda conn, req, start: reply(conn, 200, b"", {"ETag": ETAG})),
                           "the reply was 200")

    def test_resumed_204(self):
        self.check_refused(object_script(lambda conn, req, start: reply(conn, 204, b"", {"ETag": ETAG})),
                           "the reply was 204")

    def test_resumed_206_whose_total_shrank(self):
        short = SIZE - 1000

        def resume(conn, req, start):
            reply(conn, 206, BODY[start:short], {"Content-Range": f"bytes {start}-{short - 1}/{short}",
                                                 "ETag": ETAG})
        self.check_refused(object_script(resume), f"first {SIZE} bytes, now {short}")

    def test_206_to_a_get_without_range(self):
        def first(conn, req):
            reply(conn, 206, BODY[:5], {"Content-Range": "bytes 0-4/100000", "ETag": ETAG})
        self.check_refused(object_script(lambda *a: None, first=first), "asked for no range")

    def test_a_whole_resumed_download_succeeds(self):
        def resume(conn, req, start):
            reply(conn, 206, BODY[start:], {"Content-Range": f"bytes {start}-{SIZE - 1}/{SIZE}", "ETag": ETAG})
        with tempfile.TemporaryDirectory() as d, ScriptedS3(object_script(resume)) as s3:
            dest = os.path.join(d, "dest")
            r = floe(s3, "cp", "s3://b/k", dest)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(dest, "rb") as f:
                self.assertEqual(f.read(), BODY)
            self.assertEqual(floe(s3, "cat", "s3://b/k").stdout, BODY)
            resumes = [r for r in s3.requests if r.header("Range")]
            self.assertEqual(len(resumes), 2)
            self.assertTrue(all(r.header("If-Match") == ETAG for r in resumes))  # pinned to the version first seen


class Listings(unittest.TestCase):
    """Items 2 and 3: pagination that never ends; listings a page at a time."""

    def test_alternating_tokens_end_with_an_error_naming_the_loop(self):
        def script(conn, req):
            if req.method == "POST":  # rm's DeleteObjects
                reply(conn, 200, b'<?xml version="1.0"?><DeleteResult></DeleteResult>')
                return
            token = {"": "A", "A": "B", "B": "A"}[req.query.get("continuation-token", "")]
            reply(conn, 200, list_page([f"p/{token}-{i}" for i in range(3)], truncated=True, token=token))
        with ScriptedS3(script) as s3:
            for args in (["ls", "--recursive", "s3://b/p/"], ["rm", "--recursive", "s3://b/p/"]):
                r = floe(s3, *args, timeout=60)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("continuation token seen before in this listing", r.stderr.decode())
            self.assertLessEqual(s3.count("GET"), 6)
            # --json: the pages printed before the loop was seen still make
            # one whole document; the exit code and stderr say it is not all.
            j = floe(s3, "--json", "ls", "--recursive", "s3://b/p/", timeout=60)
            self.assertEqual(j.returncode, 1, j.stderr)
            doc = json.loads(j.stdout)
            self.assertEqual([o["key"] for o in doc["objects"]],
                             [f"p/{t}-{i}" for t in ("A", "B") for i in range(3)])
            self.assertIn("continuation token seen before", json.loads(j.stderr)["error"]["message"])

    def test_empty_pages_with_new_tokens_end_after_a_bound(self):
        def script(conn, req):
            n = int(req.query.get("continuation-token", "0") or 0)
            reply(conn, 200, list_page([], truncated=True, token=str(n + 1)))
        with ScriptedS3(script) as s3:
            r = floe(s3, "ls", "--recursive", "s3://b/", timeout=120)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("100 pages in a row held no entry", r.stderr.decode())
            self.assertEqual(s3.count("GET"), 100)

    def two_pages(self, gate):
        """Page 1 (p/a0..p/a2), then page 2 (p/b0..p/b2) once gate() says so
        (or 30 s pass); released[0] says which."""
        released = [None]

        def script(conn, req):
            if req.method == "POST":
                reply(conn, 200, b'<?xml version="1.0"?><DeleteResult></DeleteResult>')
            elif req.query.get("list-type") == "2" and not req.query.get("continuation-token"):
                reply(conn, 200, list_page([f"p/a{i}" for i in range(3)], truncated=True, token="T2"))
            elif req.query.get("list-type") == "2":
                deadline = time.monotonic() + 30
                while not gate() and time.monotonic() < deadline:
                    time.sleep(0.01)
                released[0] = gate()
                reply(conn, 200, list_page([f"p/b{i}" for i in range(3)]))
            else:
                reply(conn, 200, b"data", {"ETag": ETAG})
        return script, released

    def test_ls_prints_the_first_page_before_the_second_is_sent(self):
        seen = threading.Event()
        script, released = self.two_pages(seen.is_set)
        with ScriptedS3(script) as s3:
            p = subprocess.Popen([FLOE, "--endpoint-url", s3.endpoint, "--path-style", "ls", "--recursive",
                                  "s3://b/p/"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
            lines = [p.stdout.readline() for _ in range(3)]
            seen.set()
            rest, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err)
            self.assertTrue(all(b"p/a" in line for line in lines), lines)
            self.assertTrue(released[0], "page 2 was asked for before page 1 was printed")
            self.assertEqual(rest.count(b"p/b"), 3)

    def test_cp_and_rm_recursive_work_while_listing(self):
        with tempfile.TemporaryDirectory() as d:
            holder = {}
            script, released = self.two_pages(
                lambda: holder["s3"].count_where(lambda r: r.path.startswith("/b/p/a")) >= 3)
            with ScriptedS3(script) as s3:
                holder["s3"] = s3
                r = floe(s3, "cp", "--recursive", "s3://b/p/", d)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertTrue(released[0], "page 2 was served before page 1's objects were fetched")
                self.assertEqual(sorted(os.listdir(d)), ["a0", "a1", "a2", "b0", "b1", "b2"])
        script, released = self.two_pages(lambda: holder["s3"].count("POST") >= 1)
        with ScriptedS3(script) as s3:
            holder["s3"] = s3
            r = floe(s3, "rm", "--recursive", "s3://b/p/")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(released[0], "page 2 was served before page 1 was deleted")
            self.assertEqual(s3.count("POST"), 2)

    def test_a_key_outside_the_prefix_is_refused_by_name_and_the_rest_copied(self):
        def script(conn, req):
            if req.query.get("list-type") == "2":
                reply(conn, 200, list_page(["p/a", "other/evil", "p/b"]))
            else:
                reply(conn, 200, req.path.encode(), {"ETag": ETAG})
        with tempfile.TemporaryDirectory() as d, ScriptedS3(script) as s3:
            r = floe(s3, "cp", "--recursive", "s3://b/p/", d)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, err)
            self.assertNotIn("internal error", err)
            self.assertIn("refusing key 'other/evil'", err)
            self.assertEqual(sorted(os.listdir(d)), ["a", "b"])
            with open(os.path.join(d, "a"), "rb") as f:
                self.assertEqual(f.read(), b"/b/p/a")

    def test_c1_controls_in_keys_are_neutralised_on_the_terminal(self):
        key = "p/x\u009b2J\u0085y\u00e9"

        def script(conn, req):
            reply(conn, 200, list_page([key]))
        with ScriptedS3(script) as s3:
            r = floe(s3, "ls", "--recursive", "s3://b/p/")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(b"p/x\\xc2\\x9b2J\\xc2\\x85y\xc3\xa9", r.stdout)
            self.assertNotIn(b"\xc2\x9b", r.stdout)
            self.assertNotIn(b"\x9b2J", r.stdout.replace(b"\\xc2\\x9b", b""))
            j = floe(s3, "--json", "ls", "--recursive", "s3://b/p/")
            self.assertIn(key, j.stdout.decode())  # --json stays exact


class Timeouts(unittest.TestCase):
    """Item 5: bounded reply heads, the low-speed limit, and what errors say."""

    def test_a_trickled_reply_head_times_out_within_the_read_timeout(self):
        head = f"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nETag: {ETAG}\r\n" + "X-Pad: " + "p" * 200 + "\r\n\r\ndata"

        # The head bytes each connection was sent before floe closed it (the
        # next write or two then fails), or the whole head.
        sent = []
        ended = threading.Condition()

        def script(conn, req):
            n = 0
            try:
                for ch in head:
                    conn.write(ch)
                    n += 1
                    time.sleep(0.05)  # the hostile server's pace, not synchronisation
            finally:
                with ended:
                    sent.append(n)
                    ended.notify_all()
        with ScriptedS3(script) as s3:
            r = floe(s3, "--read-timeout", "1", "cat", "s3://b/k", timeout=60)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, err)
            self.assertIn("timed out: the reply head took longer than 1 s", err)
            self.assertIn("after 3 attempts", err)
            # floe has exited, so its three connections are closed: each
            # server thread finds that out at its next write or two.
            with ended:
                self.assertTrue(ended.wait_for(lambda: len(sent) == 3, timeout=60), sent)
            # Each attempt was given up about a second into its head (20
            # bytes a second), never when the head was whole (12 s on).
            # Measured by the server, per connection: not by a clock around
            # the whole process, whose start-up and jittered back-off vary
            # with the machine (3 to 9 s here, with and without ASan).
            self.assertTrue(all(n < len(head) // 2 for n in sent), (sent, len(head)))

    def test_a_body_below_the_low_speed_limit_is_resumed(self):
        def first(conn, req):
            conn.write(f"HTTP/1.1 200 OK\r\nContent-Length: {SIZE}\r\nETag: {ETAG}\r\n\r\n".encode() + BODY[:1000])
            for i in range(1000, SIZE, 50):
                conn.write(BODY[i:i + 50])
                time.sleep(0.1)  # 500 bytes/s

        def resume(conn, req, start):
            reply(conn, 206, BODY[start:], {"Content-Range": f"bytes {start}-{SIZE - 1}/{SIZE}", "ETag": ETAG})
        with tempfile.TemporaryDirectory() as d, ScriptedS3(object_script(resume, first=first)) as s3:
            dest = os.path.join(d, "dest")
            r = floe(s3, "--low-speed-limit", "5000", "--low-speed-time", "1", "cp", "s3://b/k", dest, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(dest, "rb") as f:
                self.assertEqual(f.read(), BODY)
            self.assertEqual(s3.count("GET"), 2)
            self.assertTrue(s3.requests[1].header("Range").startswith("bytes="))

    def test_a_resumed_download_that_times_out_says_so(self):
        def resume(conn, req, start):
            conn.write(f"HTTP/1.1 206 X\r\nContent-Range: bytes {start}-{SIZE - 1}/{SIZE}\r\nETag: {ETAG}\r\n"
                       f"Content-Length: {SIZE - start}\r\n\r\n".encode() + BODY[start:start + 10])
            time.sleep(30)  # stalls mid-body
            raise CloseConnection()
        with ScriptedS3(object_script(resume)) as s3:
            r = floe(s3, "--read-timeout", "1", "cat", "s3://b/k", timeout=90)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, err)
            self.assertIn("GetObject b/k: timed out after 1 s", err)
            self.assertIn("the download was resumed 5 times", err)
            self.assertIn("after 6 attempts", err)
            self.assertNotIn("cannot be replayed", err)
            self.assertEqual(err.count("GetObject"), 1)

    def test_a_reset_says_connection_reset(self):
        with ScriptedS3(object_script(lambda conn, req, start: reset(conn))) as s3:
            r = floe(s3, "cat", "s3://b/k", timeout=90)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, err)
            self.assertIn("connection reset by peer", err.lower())
            self.assertNotIn("cannot be replayed", err)

    def test_the_resource_is_named_bucket_slash_key(self):
        # A port bound but not listening refuses connections, and stays
        # ours for the whole test: closed, another program could listen
        # there (or floe's own socket take it as its source port and
        # connect to itself) before floe connects.
        s = socket.socket()
        self.addCleanup(s.close)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        ep = f"http://127.0.0.1:{port}"
        r = floe(ep, "--connect-timeout", "2", "ls", "s3://b/p/", timeout=60)
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 1, err)
        self.assertIn("ListObjectsV2 b/p/: connecting to 127.0.0.1", err)
        self.assertIn("connection refused (after 3 attempts)", err)
        self.assertNotIn("list-type", err)
        r = floe(ep, "cat", "s3://b/dir/k", timeout=60)
        err = r.stderr.decode()
        self.assertIn("floe: error: GetObject b/dir/k: connecting", err)
        self.assertNotIn(" /b/", err)

    def test_timeout_options_are_checked(self):
        for args in (["--read-timeout", "x"], ["--connect-timeout", "-1"], ["--low-speed-limit", "0"],
                     ["--low-speed-time", "1.2345"]):
            r = floe("http://127.0.0.1:9", *args, "ls", "s3://b/")
            self.assertEqual(r.returncode, 2, (args, r.stderr))


def main():
    global FLOE
    if len(sys.argv) < 2:
        sys.exit("usage: test_hostile.py PATH_TO_FLOE")
    FLOE = sys.argv[1]
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for cls in (Downloads, Listings, Timeouts):
        suite.addTests(loader.loadTestsFromTestCase(cls))
    return cli_support.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
