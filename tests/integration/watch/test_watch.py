#!/usr/bin/env python3
"""`floe watch` against moto 5.2.1: S3 ObjectCreated notifications to an SQS
queue with a dead-letter queue, watchers registering objects in a ledger,
through a private test proxy (SigV4 verifier on, per-object serialisation on:
moto's create-only write is not atomic, see tests/support/moto_if_match_race.py).

  test_watch.py PATH_TO_FLOE

Set-up (buckets, queues, notifications, uploads, inspection) uses boto3
straight against moto; every floe request goes through the proxy. The
watchers sign with credentials from moto's STS (web identity), so the proxy
can revoke every credential issued so far. Nothing here waits on a clock
for an outcome: each wait polls a count (the ledger, the queue, /metrics)
until it is reached or a deadline passes.
Prints "floe-cases: N passed, M failed".
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


class WatchTest(unittest.TestCase):
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

    # ---- one watcher, the common path ----------------------------------------

    def test_objects_registered_once_with_exec_and_jsonl(self):
        ran = os.path.join(self.home.name, self.name + ".exec")
        w = self.watcher(f"s3://{self.bucket}/in/**/*.parquet",
                         extra=["--exec", f'printf "%s\\t%s\\t%s\\n" "$FLOE_KEY" "$FLOE_ETAG" "$FLOE_SIZE" >> {ran}'])
        keys = ["in/" + k for k in ODD] + ["in/deep/er/x.parquet", "in/skip.csv", "out/y.parquet"]
        etags = {k: self.put(k, k.encode()) for k in keys}
        # A multipart upload: moto sends ObjectCreated:Put and :CompleteMultipartUpload.
        mp = self.s3.create_multipart_upload(Bucket=self.bucket, Key="in/big.parquet")
        parts = []
        for n, body in ((1, b"p" * (5 << 20)), (2, b"tail")):
            r = self.s3.upload_part(Bucket=self.bucket, Key="in/big.parquet", UploadId=mp["UploadId"],
                                    PartNumber=n, Body=body)
            parts.append({"ETag": r["ETag"], "PartNumber": n})
        self.s3.complete_multipart_upload(Bucket=self.bucket, Key="in/big.parquet", UploadId=mp["UploadId"],
                                          MultipartUpload={"Parts": parts})
        want = sorted(k for k in keys if k.startswith("in/") and k.endswith(".parquet")) + ["in/big.parquet"]
        wait_for("the objects in the ledger", lambda: sorted(self.ledger_keys()) == sorted(want))
        wait_for("an empty queue", lambda: self.queue_counts(self.queue) == (0, 0))
        with open(ran, encoding="utf-8") as f:
            exec_keys = [line.split("\t")[0] for line in f.read().splitlines()]
        self.assertEqual(sorted(exec_keys), sorted(want))
        self.assertIn("ok:", self.floe("ledger", "verify", self.ledger))
        self.assertEqual(w.metric("floe_watch_objects_committed_total"), len(want))
        self.assertEqual(w.get("/healthz"), (200, "ok\n"))
        self.assertEqual(w.stop(), 0)
        # --jsonl read once the watcher has ended: a line written just before
        # the queue emptied may not have reached the reader thread before.
        self.assertEqual(sorted(d["key"] for d in w.registered()), sorted(want))
        for d in w.registered():
            if d["key"] in etags:
                self.assertEqual(d["etag"], etags[d["key"]])
        self.assertEqual(self.queue_counts(self.dlq), (0, 0))

    def test_message_shapes_and_malformed_to_dlq(self):
        self.put("in/sns.parquet")
        self.put("in/eb.parquet")
        self.put("in/gone.parquet")
        self.s3.delete_object(Bucket=self.bucket, Key="in/gone.parquet")  # its event stays queued
        old = self.put("in/replaced.parquet", b"old")
        new = self.put("in/replaced.parquet", b"new")
        self.assertNotEqual(old, new)
        event = event_file("moto-01-ObjectCreated-Put.json")
        rec = event["Records"][0]
        rec["s3"]["bucket"]["name"] = self.bucket
        rec["s3"]["object"]["key"] = "in%2Fsns.parquet"
        rec["s3"]["object"].pop("eTag")
        self.send(json.dumps({"Type": "Notification", "MessageId": "m-1", "Message": json.dumps(event)}))
        eb = event_file("aws-eventbridge-object-created.json")
        eb["detail"]["bucket"]["name"] = self.bucket
        eb["detail"]["object"] = {"key": "in/eb.parquet", "size": 1}
        self.send(json.dumps(eb))
        self.send(json.dumps({"Service": "Amazon S3", "Event": "s3:TestEvent", "Bucket": self.bucket}))
        self.send("this is no event")
        w = self.watcher()
        want = ["in/eb.parquet", "in/replaced.parquet", "in/sns.parquet"]
        wait_for("the objects in the ledger", lambda: sorted(self.ledger_keys()) == want)
        # The malformed message: kept, received again, then in the dead-letter queue.
        wait_for("the malformed message in the dead-letter queue", lambda: self.queue_counts(self.dlq)[0] == 1)
        wait_for("an empty queue", lambda: self.queue_counts(self.queue) == (0, 0))
        # moto's own s3:TestEvent (sent when the notification was set up) and ours.
        self.assertEqual(w.metric("floe_watch_test_events_total"), 2)
        self.assertEqual(w.metric("floe_watch_objects_skipped_total"), 2)  # gone, and the old replaced one
        self.assertGreaterEqual(w.metric("floe_watch_malformed_messages_total"), 1)
        # in/sns.parquet and in/eb.parquet are each named by moto's event and
        # by our copy without an ETag: registered once, in one batch or two.
        self.assertEqual(w.metric("floe_watch_objects_committed_total"), 3)
        self.assertEqual(w.stop(), 0)
        # Its output, whole once it has ended.
        self.assertEqual(sorted(d["key"] for d in w.registered()), want)
        etag = [d["etag"] for d in w.registered() if d["key"] == "in/replaced.parquet"]
        self.assertEqual(etag, [new])
        self.assertEqual(len(w.events("malformed")), 1)

    # ---- refusals ------------------------------------------------------------

    def test_denial_that_persists_holds_messages_and_recovers(self):
        w = self.watcher(env=self.sts_env)
        rule = self.proxy.add_rule({"match": {"method": "HEAD", "path": "^/" + self.bucket + "/in/"},
                                    "action": {"type": "reply", "status": 403, "body": ""}})
        for i in range(5):
            self.put(f"in/held-{i}.parquet")
        wait_for("/healthz 503", lambda: w.get("/healthz")[0] == 503)
        status, body = w.get("/healthz")
        self.assertIn("denied", body)
        self.assertEqual(self.ledger_keys(), [])
        # Held and extended: nothing drains into the dead-letter queue while
        # the denial lasts (three back-off steps at least).
        wait_for("three denial steps", lambda: len(w.events("denied")) >= 3, timeout=60)
        self.assertEqual(self.queue_counts(self.dlq), (0, 0))
        self.proxy.delete_rule(rule)
        wait_for("the objects in the ledger", lambda: len(self.ledger_keys()) == 5)
        wait_for("/healthz 200", lambda: w.get("/healthz") == (200, "ok\n"))
        wait_for("an empty queue", lambda: self.queue_counts(self.queue) == (0, 0))
        self.assertEqual(self.queue_counts(self.dlq), (0, 0))
        self.assertEqual(w.stop(), 0)
        self.assertEqual(len(w.events("access_restored")), 1)  # its whole log: read once it has ended

    # ---- three watchers, 500 objects, revocation and Ceph's faults -----------

    def test_three_watchers_500_objects(self):
        ws = [self.watcher(env=self.sts_env) for _ in range(3)]
        sts_before = self.proxy.stats()["by_service"].get("sts", 0)
        keys = [f"in/{i:03d} {ODD[i % len(ODD)]}" for i in range(500)]

        def upload(part):
            s3 = boto3.client("s3", endpoint_url=self.moto)
            for k in part:
                s3.put_object(Bucket=self.bucket, Key=k, Body=k.encode())

        half = len(keys) // 2
        first = [threading.Thread(target=upload, args=(keys[i:half:4],)) for i in range(4)]
        for t in first:
            t.start()
        for t in first:
            t.join()
        wait_for("some objects in the ledger", lambda: len(self.ledger_keys()) >= 50)
        # Midway: every credential issued so far revoked; Ceph's 409 before
        # forwarding on 10% of ledger writes, its 500 after forwarding on some.
        commit = {"method": "PUT", "path": "^/" + self.bucket + "/ledger/_log/"}
        self.proxy.add_rule({"match": commit, "trigger": {"chance": 0.10, "seed": 1919},
                             "action": {"type": "reply", "when": "before", "raw_b64": b64(
                                 vector("ceph-409-concurrentmodification.http"))}})
        self.proxy.add_rule({"match": commit, "trigger": {"chance": 0.06, "seed": 2020},
                             "action": {"type": "reply", "when": "after", "raw_b64": b64(
                                 vector("ceph-pacific-500-unknownerror-race.http"))}})
        self.proxy.revoke("all-issued")
        second = [threading.Thread(target=upload, args=(keys[half + i::4],)) for i in range(4)]
        for t in second:
            t.start()
        for t in second:
            t.join()
        wait_for("500 objects in the ledger", lambda: len(self.ledger_keys()) == 500, timeout=300)
        wait_for("an empty queue", lambda: self.queue_counts(self.queue) == (0, 0), timeout=120)
        self.assertEqual(sorted(self.ledger_keys()), sorted(keys))
        self.assertIn("ok:", self.floe("ledger", "verify", self.ledger))
        for w in ws:
            self.assertIsNone(w.proc.poll(), "a watcher exited")
        sts_calls = self.proxy.stats()["by_service"].get("sts", 0) - sts_before
        self.assertLessEqual(sts_calls, 3 * 2, "more than two extra STS calls per watcher")
        # /metrics counts the renewals the revocation forced (counted from the
        # credentials each watcher started with, not from the first scrape).
        refreshes = sum(w.metric("floe_watch_credential_refreshes_total") or 0 for w in ws)
        self.assertGreaterEqual(refreshes, 1)
        self.assertLessEqual(refreshes, sts_calls)
        for w in ws:
            self.assertEqual(w.stop(), 0)
        self.assertEqual(self.queue_counts(self.dlq), (0, 0))


def b64(data):
    import base64
    return base64.b64encode(data).decode()


if __name__ == "__main__":
    FLOE = sys.argv.pop(1)
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors) + len(result.skipped)
    print(f"floe-cases: {result.testsRun - failed} passed, {failed} failed")
    sys.exit(0 if result.wasSuccessful() and not result.skipped else 1)
