#!/usr/bin/env python3
"""SIGINT and SIGTERM in the middle of a transfer, against moto through the
test proxy: the proxy holds a transfer where the signal must land (its
control API says when a request reached it), so no test sleeps to
synchronise.

  test_signals.py PATH_TO_FLOE

Checks: a multipart upload interrupted by SIGINT is aborted on the store
(gone from ListMultipartUploads) and floe exits 130; a download
interrupted by SIGTERM leaves no temporary file and the destination as it
was, exit 143; the same for a recursive download of several objects at
once; a second signal exits at once while the abort is still held; with
the abort held and no second signal, floe still exits within its grace;
a signal while floe waits on a silent stdin, or spools a large one, ends
it with nothing uploaded and no spool left.

Needs FLOE_TEST_PROXY_ENDPOINT, FLOE_TEST_PROXY_CONTROL and
FLOE_TEST_MOTO_ENDPOINT (scripts/test exports them). Prints
"floe-cases: N passed, M failed".
"""
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest
import urllib.request
import uuid

import cli_support

FLOE = None
MIB = 1 << 20


def control(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(os.environ["FLOE_TEST_PROXY_CONTROL"] + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


def wait_for(what, cond, limit=60):
    """Polls an observable condition (the proxy's counters, a file) until it
    holds; fails the test after `limit` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Signals(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bucket = "floe-sig-" + uuid.uuid4().hex[:12]
        cls.rules = []
        # The proxy's verifier (shared with other tests) knows this key too.
        control("POST", "/verify", {"enabled": True, "secrets": {"AKIDFLOESIGNALS": "signals-secret"}})
        r = cls.run_floe(["mb", f"s3://{cls.bucket}"])
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        cls.run_floe(["rm", "--recursive", f"s3://{cls.bucket}"])
        cls.run_floe(["rb", f"s3://{cls.bucket}"])

    def tearDown(self):
        for rid in self.rules:
            try:
                control("DELETE", f"/rules/{rid}")  # releases what it held
            except Exception:
                pass
        self.rules = []

    @staticmethod
    def env():
        e = {k: v for k, v in os.environ.items()
             if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")}
        e.update({"AWS_EC2_METADATA_DISABLED": "true", "AWS_ACCESS_KEY_ID": "AKIDFLOESIGNALS",
                  "AWS_SECRET_ACCESS_KEY": "signals-secret", "AWS_REGION": "us-east-1",
                  "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"})
        return e

    @classmethod
    def argv(cls, args):
        return [FLOE, "--endpoint-url", os.environ["FLOE_TEST_PROXY_ENDPOINT"], "--path-style"] + args

    @classmethod
    def run_floe(cls, args):
        return subprocess.run(cls.argv(args), capture_output=True, env=cls.env(), timeout=300)

    def start(self, args, stdin=None, tmpdir=None):
        e = self.env()
        if tmpdir:
            e["TMPDIR"] = tmpdir
        return subprocess.Popen(self.argv(args), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)

    @staticmethod
    def unread(pipe):
        """Bytes written to `pipe` that its reader has not taken yet."""
        return struct.unpack("i", fcntl.ioctl(pipe.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]

    def rule(self, match, action):
        match = dict(match, path=f"/{self.bucket}/" + match.get("path", ""))
        rid = control("POST", "/rules", {"match": match, "action": action})["id"]
        self.rules.append(rid)
        return rid

    def state(self, rid):
        return control("GET", f"/rules/{rid}")

    def uploads(self, key):
        """The bucket's multipart uploads of `key`. Only this test's key: the
        abort another test held is released when that test ends and reaches
        the store whenever the proxy forwards it, so other keys' uploads may
        still be listed for a while."""
        import boto3
        s3 = boto3.client("s3", endpoint_url=os.environ["FLOE_TEST_MOTO_ENDPOINT"], region_name="us-east-1",
                          aws_access_key_id="AKIDFLOESIGNALS", aws_secret_access_key="signals-secret")
        ups = s3.list_multipart_uploads(Bucket=self.bucket, Prefix=key).get("Uploads", [])
        return [u for u in ups if u["Key"] == key]

    def big_file(self, d, size=70 * MIB):
        path = os.path.join(d, "big.bin")
        with open(path, "wb") as f:
            block = os.urandom(MIB)
            for _ in range(size // MIB):
                f.write(block)
        return path

    def finish(self, p, limit=20):
        out, err = p.communicate(timeout=limit)
        return p.returncode, err.decode()

    def test_sigint_aborts_the_multipart_upload_it_started(self):
        with tempfile.TemporaryDirectory() as d:
            src = self.big_file(d)
            held = self.rule({"method": "PUT", "query": "partNumber=", "path": "up/big"}, {"type": "hold"})
            p = self.start(["cp", "--no-progress", src, f"s3://{self.bucket}/up/big"])
            wait_for("a part upload held by the proxy", lambda: self.state(held)["held"] >= 1)
            ups = self.uploads("up/big")
            self.assertEqual([u["Key"] for u in ups], ["up/big"], ups)  # the upload the signal must abort
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            rc, err = self.finish(p)
            self.assertEqual(rc, 130, err)
            self.assertLess(time.monotonic() - t0, 10)
            self.assertIn("interrupted (SIGINT)", err)
            self.assertNotIn("internal error", err)
            self.assertEqual(self.uploads("up/big"), [])  # aborted: nothing left to bill
            self.assertEqual(self.run_floe(["stat", f"s3://{self.bucket}/up/big"]).returncode, 4)

    def test_sigint_during_create_multipart_upload_aborts_the_upload_it_creates(self):
        # The signal lands while the store has created the upload but its
        # reply (the only place its id is) is still on the way: floe must
        # take that reply and abort the upload, not leave it to be billed.
        with tempfile.TemporaryDirectory() as d:
            src = self.big_file(d)
            held = self.rule({"method": "POST", "query": "uploads", "path": "create/big"}, {"type": "hold"})
            p = self.start(["cp", "--no-progress", src, f"s3://{self.bucket}/create/big"])
            wait_for("CreateMultipartUpload's reply held by the proxy", lambda: self.state(held)["held"] >= 1)
            self.assertEqual([u["Key"] for u in self.uploads("create/big")], ["create/big"])
            p.send_signal(signal.SIGINT)
            # floe says it is cancelling once the cancellation has gone out;
            # only then does the store's reply reach it.
            line = p.stderr.readline().decode()
            self.assertIn("interrupted (SIGINT): cancelling", line)
            control("POST", f"/rules/{held}/release")
            rc, err = self.finish(p)
            self.assertEqual(rc, 130, line + err)
            self.assertEqual(self.uploads("create/big"), [])  # the upload it created was aborted
            self.assertEqual(self.run_floe(["stat", f"s3://{self.bucket}/create/big"]).returncode, 4)

    def test_sigterm_during_a_download_leaves_no_temporary_file_and_the_destination(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            with open(src, "wb") as f:
                f.write(os.urandom(8 * MIB))
            self.assertEqual(self.run_floe(["cp", src, f"s3://{self.bucket}/down/obj"]).returncode, 0)
            out = os.path.join(d, "out")
            os.mkdir(out)
            dest = os.path.join(out, "dest")
            with open(dest, "wb") as f:
                f.write(b"the old contents")
            stall = self.rule({"method": "GET", "path": "down/obj"}, {"type": "stall_body", "after_bytes": MIB})
            p = self.start(["cp", "--no-progress", f"s3://{self.bucket}/down/obj", dest])

            def partial_written():
                temps = [n for n in os.listdir(out) if n != "dest"]
                return self.state(stall)["fired"] >= 1 and temps and \
                    os.path.getsize(os.path.join(out, temps[0])) >= MIB
            wait_for("the first MiB in the temporary file", partial_written)
            p.send_signal(signal.SIGTERM)
            rc, err = self.finish(p)
            self.assertEqual(rc, 143, err)
            self.assertEqual(os.listdir(out), ["dest"])
            with open(dest, "rb") as f:
                self.assertEqual(f.read(), b"the old contents")

    def test_sigint_during_a_recursive_download_cancels_every_transfer(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            with open(src, "wb") as f:
                f.write(os.urandom(2 * MIB))
            for i in range(4):
                self.assertEqual(self.run_floe(["cp", src, f"s3://{self.bucket}/tree/o{i}"]).returncode, 0)
            out = os.path.join(d, "out")
            os.mkdir(out)
            stall = self.rule({"method": "GET", "path": "tree/o"}, {"type": "stall_body", "after_bytes": 65536})
            p = self.start(["cp", "--recursive", "--concurrency", "4", f"s3://{self.bucket}/tree/", out])
            wait_for("four downloads under way", lambda: self.state(stall)["fired"] >= 4 and
                     len(os.listdir(out)) >= 4)
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            rc, err = self.finish(p)
            self.assertEqual(rc, 130, err)
            self.assertLess(time.monotonic() - t0, 10)
            self.assertEqual(os.listdir(out), [])  # no temporary file, no partial object

    def test_sigterm_while_stdin_stays_silent(self):
        # stdin is a pipe whose writer neither writes nor closes: floe waits
        # on it, and the signal must still end it, with nothing uploaded.
        p = self.start(["cp", "-", f"s3://{self.bucket}/stdin/quiet"], stdin=subprocess.PIPE)
        p.stdin.write(b"x" * 1000)
        p.stdin.flush()
        wait_for("floe to take what was written", lambda: self.unread(p.stdin) == 0)
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 143, err)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertEqual(self.run_floe(["stat", f"s3://{self.bucket}/stdin/quiet"]).returncode, 4)

    def test_sigint_while_spooling_stdin_removes_the_spool(self):
        # Past 16 MiB stdin is spooled to a temporary file in TMPDIR.
        with tempfile.TemporaryDirectory() as tmp:
            p = self.start(["cp", "--no-progress", "-", f"s3://{self.bucket}/stdin/spooled"],
                           stdin=subprocess.PIPE, tmpdir=tmp)
            block = os.urandom(MIB)
            for _ in range(17):
                p.stdin.write(block)
            p.stdin.flush()
            wait_for("the spool to hold what was written", lambda: self.unread(p.stdin) == 0 and os.listdir(tmp) and
                     os.path.getsize(os.path.join(tmp, os.listdir(tmp)[0])) >= 17 * MIB)
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=20)
            self.assertEqual(p.returncode, 130, err)
            self.assertLess(time.monotonic() - t0, 10)
            self.assertEqual(os.listdir(tmp), [])  # the spool removed
            self.assertEqual(self.run_floe(["stat", f"s3://{self.bucket}/stdin/spooled"]).returncode, 4)

    def test_a_second_signal_exits_at_once(self):
        with tempfile.TemporaryDirectory() as d:
            src = self.big_file(d)
            parts = self.rule({"method": "PUT", "query": "partNumber=", "path": "twice/big"}, {"type": "hold"})
            abort = self.rule({"method": "DELETE", "query": "uploadId=", "path": "twice/big"}, {"type": "hold"})
            p = self.start(["cp", "--no-progress", src, f"s3://{self.bucket}/twice/big"])
            wait_for("a part upload held", lambda: self.state(parts)["held"] >= 1)
            p.send_signal(signal.SIGINT)
            wait_for("the abort held", lambda: self.state(abort)["held"] >= 1)
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            rc, err = self.finish(p)
            self.assertEqual(rc, 130, err)
            self.assertLess(time.monotonic() - t0, 2)

    def test_without_a_second_signal_the_grace_ends_it(self):
        with tempfile.TemporaryDirectory() as d:
            src = self.big_file(d)
            parts = self.rule({"method": "PUT", "query": "partNumber=", "path": "grace/big"}, {"type": "hold"})
            abort = self.rule({"method": "DELETE", "query": "uploadId=", "path": "grace/big"}, {"type": "hold"})
            p = self.start(["cp", "--no-progress", src, f"s3://{self.bucket}/grace/big"])
            wait_for("a part upload held", lambda: self.state(parts)["held"] >= 1)
            t0 = time.monotonic()
            p.send_signal(signal.SIGTERM)
            wait_for("the abort held", lambda: self.state(abort)["held"] >= 1)
            rc, err = self.finish(p, limit=30)
            self.assertEqual(rc, 143, err)
            self.assertLess(time.monotonic() - t0, 15)


def main():
    global FLOE
    if len(sys.argv) < 2:
        sys.exit("usage: test_signals.py PATH_TO_FLOE")
    FLOE = sys.argv[1]
    missing = [v for v in ("FLOE_TEST_PROXY_ENDPOINT", "FLOE_TEST_PROXY_CONTROL", "FLOE_TEST_MOTO_ENDPOINT")
               if not os.environ.get(v)]
    if missing:
        return cli_support.cannot_run(f"signal tests: {', '.join(missing)} not set. " + cli_support.START_SERVERS)
    return cli_support.run_suite(unittest.TestLoader().loadTestsFromTestCase(Signals))


if __name__ == "__main__":
    sys.exit(main())
