#!/usr/bin/env python3
"""What the `floe watch` tests share: a watcher process (Watcher), polling
with a bound (wait_for), and WatchCase, a test case with moto, a private
verifying proxy, a bucket with ObjectCreated notifications to a queue with a
dead-letter queue, and helpers to inspect them. Used by the test_watch*.py
scripts (run by meson with the floe binary as argument).

Set-up (buckets, queues, notifications, uploads, inspection) uses boto3
straight against moto; every floe request goes through the proxy. The
watchers sign with credentials from moto's STS (web identity), so the proxy
can revoke every credential issued so far. Nothing here waits on a clock
for an outcome: each wait polls a count (the ledger, the queue, /metrics)
until it is reached or a deadline passes.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
import uuid

FLOE = None
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
DATA = os.path.join(HERE, "..", "..", "data")

os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                  AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
import boto3  # noqa: E402

AKID, SECRET = "AKIDFLOEWATCHTEST01", "watch-test-secret/0123456789"
ODD = ["a b.parquet", "1+1=2.parquet", "100% done.parquet", "ünïcødé ☃.parquet"]
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def vector(name):
    """A store's exact reply from the repository's error vectors (never a
    path outside the checkout: CI's clean clone has nothing beside it)."""
    with open(os.path.join(DATA, "vectors", "errors", name), "rb") as f:
        return f.read()


def event_file(name):
    with open(os.path.join(DATA, "events", name), encoding="utf-8") as f:
        return json.load(f)


def wait_for(what, predicate, timeout=120, interval=0.2):
    """Polls `predicate` until it returns a true value; fails naming `what`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)  # polling a count, not waiting for an outcome
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class Watcher:
    """One `floe watch` process: stdout (--jsonl) and stderr (json log) read
    by threads; the metrics address taken from its "metrics" log line, and
    returned once it logged "started" (queue resolved, ledger created)."""

    def __init__(self, env, args):
        self.proc = subprocess.Popen([FLOE, "watch", "--jsonl", "--log-format", "json", "--metrics", "127.0.0.1:0",
                                      "--visibility-timeout", "10"] + args,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines, self.logs = [], []
        self.lock = threading.Lock()
        self.readers = [threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True),
                        threading.Thread(target=self._read, args=(self.proc.stderr, self.logs), daemon=True)]
        for t in self.readers:
            t.start()
        started = wait_for("the watcher's metrics address", lambda: self.events("metrics"), timeout=60)
        self.metrics_url = "http://" + started[0]["address"]
        # The metrics server listens before the watcher has resolved its
        # queue and created its ledger: a test that reads the ledger must
        # not race that ("started" is logged once both are done).
        wait_for("the watcher's started line", lambda: self.events("started") or self.proc.poll() is not None,
                 timeout=60)
        assert self.proc.poll() is None, f"floe watch exited {self.proc.returncode} before it started: {self.logs}"

    def _read(self, stream, into):
        for raw in stream:
            try:
                doc = json.loads(raw)
            except ValueError:
                doc = {"unparsed": raw.decode("utf-8", "replace")}
            with self.lock:
                into.append(doc)

    def events(self, name):
        with self.lock:
            return [e for e in self.logs if e.get("event") == name]

    def registered(self):
        with self.lock:
            return list(self.lines)

    def get(self, path):
        try:
            with NO_PROXY.open(self.metrics_url + path, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def metric(self, name):
        status, text = self.get("/metrics")
        assert status == 200, (status, text)
        m = re.search(r"^" + re.escape(name) + r" (\S+)$", text, re.M)
        return float(m.group(1)) if m else None

    def stop(self):
        """SIGTERM; returns the exit code (within 10 s, as the issue asks).
        Afterwards lines and logs hold everything the watcher wrote: its
        pipes reached their end and the readers are done."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=10)
        for t in self.readers:
            t.join(timeout=5)
            assert not t.is_alive(), "the watcher's output did not end with it"
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class WatchCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        moto = os.environ.get("FLOE_TEST_MOTO_ENDPOINT")
        if not moto:
            raise RuntimeError("FLOE_TEST_MOTO_ENDPOINT not set: run scripts/test, or start the servers with\n"
                               "  eval \"$(python3 tests/support/servers.py start build/test-servers)\"")
        cls.moto = moto
        cls.home = tempfile.TemporaryDirectory(prefix="floe-watch-")
        from proxy.server import ProxyThread
        cls.proxy = ProxyThread(moto, log_path=os.path.join(cls.home.name, "proxy.log")).start()
        cls.proxy.verify(enabled=True, secrets={AKID: SECRET})
        assert cls.proxy.serialize(True) == {"enabled": True}
        cls.s3 = boto3.client("s3", endpoint_url=moto)
        cls.sqs = boto3.client("sqs", endpoint_url=moto)
        token = os.path.join(cls.home.name, "token")
        with open(token, "w") as f:
            f.write("eyJhbGciOiJub25lIn0.eyJzdWIiOiJmbG9lLXdhdGNoIn0.")
        base = {k: v for k, v in os.environ.items()
                if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy")}
        base.update({"HOME": cls.home.name, "AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1",
                     "AWS_ENDPOINT_URL": cls.proxy.endpoint})
        cls.static_env = dict(base, AWS_ACCESS_KEY_ID=AKID, AWS_SECRET_ACCESS_KEY=SECRET)
        cls.sts_env = dict(base, AWS_ROLE_ARN="arn:aws:iam::123456789012:role/floe-watch",
                           AWS_WEB_IDENTITY_TOKEN_FILE=token, AWS_ROLE_SESSION_NAME="floe-watch")

    @classmethod
    def tearDownClass(cls):
        stats = cls.proxy.stats()
        cls.proxy.stop()
        cls.home.cleanup()
        assert stats["signature_failures"] == 0, stats

    def setUp(self):
        self.watchers = []
        self.name = "fw-" + uuid.uuid4().hex[:10]
        self.bucket = self.name
        self.s3.create_bucket(Bucket=self.bucket)
        self.dlq = self.sqs.create_queue(QueueName=self.name + "-dlq")["QueueUrl"]
        dlq_arn = self.arn(self.dlq)
        self.queue = self.sqs.create_queue(QueueName=self.name, Attributes={
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"})})["QueueUrl"]
        self.s3.put_bucket_notification_configuration(Bucket=self.bucket, NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": self.arn(self.queue), "Events": ["s3:ObjectCreated:*"]}]})
        self.ledger = f"s3://{self.bucket}/ledger"

    def tearDown(self):
        for w in self.watchers:
            w.kill()
        self.proxy.reset()

    def arn(self, url):
        return self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def watcher(self, *patterns, env=None, extra=()):
        w = Watcher(env or self.static_env, ["--queue", self.name, "--ledger", self.ledger] + list(extra) +
                    list(patterns or [f"s3://{self.bucket}/in/**"]))
        self.watchers.append(w)
        return w

    def floe(self, *args, rc=0):
        r = subprocess.run([FLOE] + list(args), capture_output=True, env=self.static_env, timeout=120)
        self.assertEqual(r.returncode, rc, f"floe {' '.join(args)}: {r.stderr!r}")
        return r.stdout.decode()

    def ledger_keys(self):
        out = self.floe("--json", "ledger", "ls", self.ledger)
        return [json.loads(line)["key"] for line in out.splitlines()]

    def queue_counts(self, url):
        a = self.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
        return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])

    def put(self, key, body=b"x"):
        return self.s3.put_object(Bucket=self.bucket, Key=key, Body=body)["ETag"].strip('"')

    def send(self, body):
        self.sqs.send_message(QueueUrl=self.queue, MessageBody=body)


def b64(data):
    import base64
    return base64.b64encode(data).decode()


def main():
    """Runs the calling script's test cases: argv[1] is the floe binary.
    Prints "floe-cases: N passed, M failed"."""
    global FLOE
    FLOE = sys.argv.pop(1)
    result = unittest.main(module="__main__", exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors) + len(result.skipped)
    print(f"floe-cases: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(0 if result.wasSuccessful() and not result.skipped else 1)
