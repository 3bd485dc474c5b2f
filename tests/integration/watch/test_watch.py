#!/usr/bin/env python3
"""`floe watch` against moto 5.2.1: S3 ObjectCreated notifications to an SQS
queue with a dead-letter queue, watchers registering objects in a ledger,
through a private test proxy (SigV4 verifier on, per-object serialisation on:
moto's create-only write is not atomic, see tests/support/moto_if_match_race.py).
The set-up and the watcher process: watch_support.py.

  test_watch.py PATH_TO_FLOE

Prints "floe-cases: N passed, M failed".
"""
import json
import os
import threading

import boto3

from watch_support import ODD, WatchCase, b64, event_file, main, vector, wait_for


class WatchTest(WatchCase):
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


if __name__ == "__main__":
    main()
