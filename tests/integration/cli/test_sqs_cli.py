#!/usr/bin/env python3
"""`floe sqs` against moto through a private test proxy whose SigV4
verifier checks every request (private: the healing case revokes every key
STS has issued, which must not touch other tests' keys).

  test_sqs_cli.py PATH_TO_FLOE

Cases: create / url / attrs / purge (text and --json); exit 4 for a missing
queue, by name and by URL; bodies printed exactly (unicode, newlines,
tabs, CR); send from stdin; send --lines in batches (10 a request, empty
lines skipped, a bad line named and the others sent); a slow producer's
lines sent after 200 ms of idle stdin, before it ends; receive --max,
--drain, --delete, --visibility; delete by receipt handle and a stale
receipt; usage errors; and healing: `floe sqs send --lines` fed 200 lines
with every credential revoked midway delivers all 200, with at most one
extra STS call and nothing on stderr. Prints "floe-cases: N passed, M failed".
"""
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

import cli_support

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
from proxy.server import ProxyThread  # noqa: E402

FLOE = None
AKID, SECRET = "AKIDFLOESQSCLI0001", "sqs-cli-secret/0123456789abcdefghij"
ACCOUNT = "123456789012"


class SqsCli(unittest.TestCase):
    px = None

    @classmethod
    def setUpClass(cls):
        moto = os.environ.get("FLOE_TEST_MOTO_ENDPOINT")
        assert moto, "FLOE_TEST_MOTO_ENDPOINT not set (run scripts/test, which starts moto)"
        cls.state = tempfile.TemporaryDirectory(prefix="floe-sqs-cli-")
        cls.px = ProxyThread(moto, log_path=os.path.join(cls.state.name, "proxy.log")).start()
        cls.px.verify(enabled=True, secrets={AKID: SECRET})

    @classmethod
    def tearDownClass(cls):
        cls.px.stop()
        cls.state.cleanup()

    def setUp(self):
        self.px.reset()
        self.home = tempfile.TemporaryDirectory(prefix="floe-sqs-home-")
        self.addCleanup(self.home.cleanup)

    def tearDown(self):
        # Every request floe sent in the case carried a good signature.
        self.assertEqual(self.px.stats()["signature_failures"], 0)

    def env(self, **extra):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy")}
        e.update({"HOME": self.home.name, "AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1",
                  "AWS_ACCESS_KEY_ID": AKID, "AWS_SECRET_ACCESS_KEY": SECRET})
        e.update(extra)
        return e

    def run_floe(self, *args, input=None, env=None):
        argv = [FLOE, "--endpoint-url", self.px.endpoint] + list(args)
        return subprocess.run(argv, input=input, capture_output=True, env=env or self.env(), timeout=120)

    def floe(self, *args, input=None, rc=0, env=None):
        r = self.run_floe(*args, input=input, env=env)
        self.assertEqual(r.returncode, rc, f"floe {' '.join(args)}: rc {r.returncode}\nstderr: {r.stderr!r}")
        return r

    def queue(self):
        name = "floe-cli-" + uuid.uuid4().hex[:12]
        url = self.floe("sqs", "create", name).stdout.decode().strip()
        self.addCleanup(lambda: self.run_floe("sqs", "purge", url))
        return name, url

    def receive_all(self, queue, extra=()):
        doc = json.loads(self.floe("--json", "sqs", "receive", queue, "--drain", "--delete", *extra).stdout)
        return doc["messages"]

    def count_requests(self, operation):
        """A rule that only counts (a zero delay) on requests of one operation."""
        return self.px.add_rule({"name": operation, "match": {"header": {"X-Amz-Target": f"AmazonSQS.{operation}$"}},
                                 "action": {"type": "delay", "ms": 0}})

    # ---- queues -------------------------------------------------------------

    def test_create_url_attrs_purge(self):
        name = "floe-cli-" + uuid.uuid4().hex[:12]
        url = self.floe("sqs", "create", name).stdout.decode()
        self.assertTrue(url.endswith(f"/{name}\n"), url)
        url = url.strip()
        self.assertEqual(self.floe("sqs", "create", name).stdout.decode().strip(), url)  # the same queue
        self.assertEqual(self.floe("sqs", "url", name).stdout.decode().strip(), url)
        self.assertEqual(json.loads(self.floe("--json", "sqs", "url", name).stdout), {"queue_url": url})
        attrs = self.floe("sqs", "attrs", name).stdout.decode().splitlines()
        self.assertIn(f"QueueArn=arn:aws:sqs:us-east-1:{ACCOUNT}:{name}", attrs)
        doc = json.loads(self.floe("--json", "sqs", "attrs", url).stdout)
        self.assertEqual(doc["queue_url"], url)
        self.assertEqual(doc["attributes"]["ApproximateNumberOfMessages"], "0")
        self.floe("sqs", "send", url, "to be purged")
        self.assertEqual(self.floe("sqs", "purge", name).stdout, b"")
        self.assertEqual(json.loads(self.floe("--json", "sqs", "attrs", url).stdout)["attributes"]
                         ["ApproximateNumberOfMessages"], "0")

    def test_missing_queue_exits_4(self):
        missing = "floe-cli-missing-" + uuid.uuid4().hex[:8]
        for args in (["sqs", "url", missing], ["sqs", "receive", missing], ["sqs", "send", missing, "x"],
                     ["sqs", "attrs", f"{self.px.endpoint}/{ACCOUNT}/{missing}"],
                     ["sqs", "receive", f"{self.px.endpoint}/{ACCOUNT}/{missing}"]):
            r = self.run_floe(*args)
            self.assertEqual(r.returncode, 4, (args, r.stderr))
            self.assertEqual(r.stdout, b"")
            err = r.stderr.decode()
            self.assertEqual(err.count("\n"), 1, err)
            self.assertIn("QueueDoesNotExist", err)
            self.assertIn(missing, err)
        r = self.run_floe("--json", "sqs", "url", missing)
        self.assertEqual(r.returncode, 4)
        self.assertEqual(json.loads(r.stderr)["error"]["kind"], "not_found")

    # ---- messages -----------------------------------------------------------

    BODIES = ["plain", "line one\nline two\n", "tab\there, CR\r, spaces  ", "unicode: é ü 日本語 🙂 \U0001F680",
              " leading space", "{\"json\": [1, 2, 3]}"]

    def test_bodies_exact(self):
        _, url = self.queue()
        ids = set()
        for b in self.BODIES:
            ids.add(self.floe("sqs", "send", url, b).stdout.decode().strip())
        # Without BODY, stdin is the message, byte for byte.
        ids.add(self.floe("sqs", "send", url, input="from stdin\n\nwith its newlines\n".encode()).stdout.decode().strip())
        self.assertEqual(len(ids), len(self.BODIES) + 1)
        got = self.receive_all(url)
        self.assertEqual(sorted(m["body"] for m in got), sorted(self.BODIES + ["from stdin\n\nwith its newlines\n"]))
        self.assertEqual({m["message_id"] for m in got}, ids)
        for m in got:
            self.assertEqual(m["attributes"]["ApproximateReceiveCount"], "1")

    def test_text_receive_prints_bodies_exactly(self):
        _, url = self.queue()
        body = "exact: é\n\ttwo lines"
        self.floe("sqs", "send", url, body)
        r = self.floe("sqs", "receive", url, "--delete", "--wait", "1")
        self.assertEqual(r.stdout.decode(), body + "\n")
        self.assertEqual(r.stderr, b"")
        r = self.floe("sqs", "receive", url)  # empty: no output, exit 0
        self.assertEqual(r.stdout, b"")

    def test_send_lines_batches(self):
        _, url = self.queue()
        rid = self.count_requests("SendMessageBatch")
        lines = [f"message {i} é" for i in range(1, 26)]
        stdin = ("\n".join(lines[:12]) + "\n\n\n" + "\n".join(lines[12:])).encode()  # no final newline
        doc = json.loads(self.floe("--json", "sqs", "send", url, "--lines", input=stdin).stdout)
        self.assertEqual(doc["sent"], 25)
        self.assertEqual([m["line"] for m in doc["messages"]], list(range(1, 13)) + list(range(15, 28)))
        self.assertEqual(self.px.rule(rid)["matched"], 3)  # 10 + 10 + 5
        self.assertEqual(sorted(m["body"] for m in self.receive_all(url)), sorted(lines))

    def test_send_lines_bad_line_named_others_sent(self):
        _, url = self.queue()
        stdin = b"good 1\nbad \x07 bell\n" + b"x" * (256 * 1024 + 1) + b"\ngood 2\n"
        r = self.run_floe("sqs", "send", url, "--lines", input=stdin)
        self.assertEqual(r.returncode, 1)
        err = r.stderr.decode()
        self.assertIn("line 2", err)
        self.assertIn("U+0007", err)
        self.assertIn("line 3", err)
        self.assertEqual(err.count("\n"), 2, err)
        self.assertEqual(len(r.stdout.decode().splitlines()), 2)
        self.assertEqual(sorted(m["body"] for m in self.receive_all(url)), ["good 1", "good 2"])

    def test_send_lines_slow_producer_not_held_back(self):
        _, url = self.queue()
        p = subprocess.Popen([FLOE, "--endpoint-url", self.px.endpoint, "sqs", "send", url, "--lines"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env())
        try:
            p.stdin.write(b"first\nsecond\nthird\n")
            p.stdin.flush()
            # stdin stays open: the three lines must reach the queue anyway.
            # floe prints a batch's message ids once SQS took it: wait for
            # those three (the bound only turns a hold into a failure).
            ids = self.read_lines(p.stdout, 3, within=120)
            self.assertEqual(len(ids), 3, "lines held back while stdin stayed open")
            self.assertIsNone(p.poll())
            doc = json.loads(self.floe("--json", "sqs", "attrs", url).stdout)
            self.assertEqual(doc["attributes"]["ApproximateNumberOfMessages"], "3")
            out, err = p.communicate(input=b"fourth\n", timeout=60)  # then stdin ends
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(len(out.decode().splitlines()), 1)  # the fourth's id; the first three's were read above
        self.assertEqual(sorted(m["body"] for m in self.receive_all(url)), ["first", "fourth", "second", "third"])

    @staticmethod
    def read_lines(pipe, n, within):
        """Up to `n` lines from `pipe`, as they come; fewer if `within`
        seconds pass first or the pipe ends."""
        got = b""
        fd = pipe.fileno()
        end = time.monotonic() + within
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while got.count(b"\n") < n:
                left = end - time.monotonic()
                if left <= 0 or not sel.select(left):
                    break
                piece = os.read(fd, 4096)
                if not piece:
                    break
                got += piece
        return got.decode().splitlines()[:n]

    def test_receive_max_drain_delete(self):
        name, url = self.queue()
        self.floe("sqs", "send", url, "--lines", input="".join(f"m{i}\n" for i in range(23)).encode())
        doc = json.loads(self.floe("--json", "sqs", "receive", name, "--max", "4", "--visibility", "0").stdout)
        self.assertEqual(doc["received"], 4)
        self.assertEqual(len(doc["messages"]), 4)
        self.assertNotIn("deleted", doc)
        doc = json.loads(self.floe("--json", "sqs", "receive", name, "--drain", "--delete").stdout)
        self.assertEqual(doc["received"], 23)
        self.assertEqual(doc["deleted"], 23)
        self.assertEqual(sorted(m["body"] for m in doc["messages"]), sorted(f"m{i}" for i in range(23)))
        doc = json.loads(self.floe("--json", "sqs", "receive", name, "--drain").stdout)
        self.assertEqual(doc, {"messages": [], "received": 0})

    def test_delete_by_receipt(self):
        _, url = self.queue()
        self.floe("sqs", "send", url, "one")
        self.floe("sqs", "send", url, "two")
        msgs = json.loads(self.floe("--json", "sqs", "receive", url, "--max", "2", "--wait", "1").stdout)["messages"]
        self.assertEqual(len(msgs), 2)
        r = self.floe("--json", "sqs", "delete", url, *[m["receipt_handle"] for m in msgs])
        self.assertEqual(json.loads(r.stdout), {"deleted": 2, "failed": 0})
        r = self.run_floe("sqs", "delete", url, "not-a-receipt-handle")
        self.assertEqual(r.returncode, 1)
        self.assertIn("ReceiptHandleIsInvalid", r.stderr.decode())

    def test_usage_errors_exit_2(self):
        for args in (["sqs"], ["sqs", "bogus", "q"], ["sqs", "create"], ["sqs", "create", "bad name"],
                     ["sqs", "send", "q", "body", "--lines"], ["sqs", "create", "q", "--max", "3"],
                     ["sqs", "receive", "q", "--wait", "21"], ["sqs", "receive", "q", "--max", "0"],
                     ["sqs", "receive", "q", "--visibility", "43201"], ["sqs", "send", "q", "--drain"],
                     ["sqs", "url", "q", "extra"], ["sqs", "delete", "q"]):
            r = self.run_floe(*args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
        self.assertIn("--lines", self.floe("sqs", "--help").stdout.decode())

    # ---- healing ------------------------------------------------------------

    def test_send_lines_heals_after_every_credential_is_revoked(self):
        name, url = self.queue()  # made with static keys
        token_file = os.path.join(self.home.name, "token")
        with open(token_file, "w") as fh:
            fh.write("web-identity-token-" + uuid.uuid4().hex)
        env = self.env(AWS_ENDPOINT_URL_STS=self.px.endpoint,
                       AWS_ROLE_ARN=f"arn:aws:iam::{ACCOUNT}:role/floe-sqs-heal",
                       AWS_WEB_IDENTITY_TOKEN_FILE=token_file, AWS_ROLE_SESSION_NAME="floe-sqs-heal")
        del env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]
        self.px.reset()
        # Every key STS has issued is revoked when the 8th SQS request is
        # forwarded; the requests after it meet a 403.
        self.px.revoke("all-issued", after_forwarded=8, match={"service": "sqs"})
        lines = "".join(f"healing line {i}\n" for i in range(1, 201)).encode()
        r = self.floe("sqs", "send", url, "--lines", input=lines, env=env)
        self.assertEqual(r.stderr, b"")
        self.assertEqual(len(r.stdout.decode().splitlines()), 200)
        stats = self.px.stats()
        self.assertGreater(stats["revoked_rejections"], 0, "the revocation never bit")
        self.assertLessEqual(stats["by_service"].get("sts", 0), 2)  # the first set, and one after the revocation
        got = self.receive_all(url)
        self.assertEqual(sorted(m["body"] for m in got), sorted(f"healing line {i}" for i in range(1, 201)))


def main():
    global FLOE
    if len(sys.argv) < 2:
        sys.exit("usage: test_sqs_cli.py PATH_TO_FLOE")
    FLOE = sys.argv[1]
    return cli_support.run_suite(unittest.defaultTestLoader.loadTestsFromTestCase(SqsCli))


if __name__ == "__main__":
    sys.exit(main())
