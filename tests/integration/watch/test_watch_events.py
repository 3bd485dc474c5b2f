#!/usr/bin/env python3
"""`floe watch` and what an event's sequencer, a removal and a version id
mean to the ledger (docs/watching.md, docs/ledger.md "Removals and
sequencers"), on moto 5.2.1 through the private verifying proxy
(watch_support.py).

moto's notifications carry no sequencer and no version id, so these tests
turn notifications off and send the S3 events themselves, in the shape S3
sends (tests/data/events/aws-s3-put.json), for objects that exist in moto:
the watcher HEADs them through the proxy as it would any. Each event is sent
once the one before it is settled (polling the ledger or /metrics), so the
order the watcher sees is the order the test means.

  test_watch_events.py PATH_TO_FLOE

Prints "floe-cases: N passed, M failed".
"""
import json
import urllib.parse

from watch_support import WatchCase, main, wait_for


class WatchEventsTest(WatchCase):
    def setUp(self):
        super().setUp()
        self.s3.put_bucket_notification_configuration(Bucket=self.bucket, NotificationConfiguration={})

    def event(self, name, key, etag="", seq="", version="", size=1):
        obj = {"key": urllib.parse.quote_plus(key), "size": size}
        if etag:
            obj["eTag"] = etag
        if version:
            obj["versionId"] = version
        if seq:
            obj["sequencer"] = seq
        self.send(json.dumps({"Records": [{
            "eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "us-east-1",
            "eventTime": "2026-12-03T10:00:00.000Z", "eventName": name,
            "s3": {"s3SchemaVersion": "1.0", "bucket": {"name": self.bucket}, "object": obj}}]}))

    def live(self):
        out = self.floe("--json", "ledger", "ls", self.ledger)
        return sorted((d["key"], d["etag"], d["version_id"]) for d in map(json.loads, out.splitlines()))

    def settled(self, w, metric, n):
        wait_for(f"{metric} = {n}", lambda: w.metric(metric) == n, timeout=60)

    def drained(self):
        wait_for("the queue drained", lambda: self.queue_counts(self.queue) == (0, 0), timeout=60)

    def test_an_event_older_than_the_ledgers_latest_for_its_key_changes_nothing(self):
        w = self.watcher()
        a = self.put("in/k.parquet", b"first")
        self.event("ObjectCreated:Put", "in/k.parquet", a, "0055AED6DCD9028200")
        wait_for("k registered", lambda: self.live() == [("in/k.parquet", a, "")])
        # Overwritten; its event is older than the one the ledger holds
        # (shorter: right-padded with zeros, 0055AED6DCD90281 < ...8200).
        b = self.put("in/k.parquet", b"second")
        self.event("ObjectCreated:Put", "in/k.parquet", b, "0055AED6DCD90281")
        self.settled(w, "floe_watch_stale_events_total", 1)
        self.drained()
        self.assertEqual(self.live(), [("in/k.parquet", a, "")])
        # A newer one for the same bytes registers them.
        self.event("ObjectCreated:Put", "in/k.parquet", b, "0055AED6DCD9028201")
        wait_for("k's second ETag registered", lambda: len(self.live()) == 2)
        self.assertEqual(w.metric("floe_watch_objects_committed_total"), 2)
        self.assertEqual(w.stop(), 0)
        summary = w.events("stopped")[-1]
        self.assertEqual((summary["committed"], summary["stale"]), ("2", "1"))
        self.assertEqual([d.get("sequencer") for d in w.registered()], ["0055AED6DCD9028200", "0055AED6DCD9028201"])

    def test_removals_before_and_after_registrations_and_recreation(self):
        w = self.watcher(extra=["--removals"])
        # After: registered, then removed.
        a = self.put("in/r1", b"same bytes")
        self.event("ObjectCreated:Put", "in/r1", a, "0010")
        wait_for("r1 registered", lambda: self.live() == [("in/r1", a, "")])
        self.s3.delete_object(Bucket=self.bucket, Key="in/r1")
        self.event("ObjectRemoved:Delete", "in/r1", seq="0020")
        self.settled(w, "floe_watch_removals_committed_total", 1)
        self.assertEqual(self.live(), [])
        # A removal older than the key's registration is ignored.
        b = self.put("in/r2", b"r2")
        self.event("ObjectCreated:Put", "in/r2", b, "0040")
        wait_for("r2 registered", lambda: self.live() == [("in/r2", b, "")])
        self.event("ObjectRemoved:Delete", "in/r2", seq="0035")
        self.settled(w, "floe_watch_stale_events_total", 1)
        self.assertEqual(self.live(), [("in/r2", b, "")])
        # Before: the removal arrives first; the creation event older than
        # it changes nothing, though the object is there to HEAD.
        c = self.put("in/r3", b"r3")
        self.event("ObjectRemoved:Delete", "in/r3", seq="0030")
        self.settled(w, "floe_watch_removals_committed_total", 2)
        self.event("ObjectCreated:Put", "in/r3", c, "0025")
        self.settled(w, "floe_watch_stale_events_total", 2)
        self.assertEqual(self.live(), [("in/r2", b, "")])
        # Created again with the same bytes: registered again.
        self.assertEqual(self.put("in/r1", b"same bytes"), a)
        self.event("ObjectCreated:Put", "in/r1", a, "0050")
        wait_for("r1 registered again", lambda: self.live() == [("in/r1", a, ""), ("in/r2", b, "")])
        self.drained()
        self.assertIn("ok:", self.floe("ledger", "verify", self.ledger))
        log = [json.loads(line) for line in self.floe("--json", "ledger", "log", self.ledger).splitlines()]
        r1 = [(e.get("removal", False), e.get("sequencer")) for c in log for e in c["entries"] if e["key"] == "in/r1"]
        self.assertEqual(r1, [(False, "0010"), (True, "0020"), (False, "0050")])
        self.assertEqual(w.metric("floe_watch_objects_committed_total"), 3)
        self.assertEqual(w.stop(), 0)
        removed = [d["key"] for d in w.registered() if d.get("removal")]
        self.assertEqual(removed, ["in/r1", "in/r3"])

    def test_without_removals_a_removal_event_is_deleted_and_changes_nothing(self):
        w = self.watcher()
        a = self.put("in/x", b"x")
        self.event("ObjectCreated:Put", "in/x", a, "0010")
        wait_for("x registered", lambda: self.live() == [("in/x", a, "")])
        self.event("ObjectRemoved:Delete", "in/x", seq="0020")
        # (the s3:TestEvent moto sent when notifications were set is ignored too)
        wait_for("the removal event ignored", lambda: w.metric("floe_watch_messages_ignored_total") -
                 w.metric("floe_watch_test_events_total") == 1, timeout=60)
        self.drained()
        self.assertEqual(self.live(), [("in/x", a, "")])
        self.assertEqual(w.metric("floe_watch_removals_committed_total"), 0)
        self.assertEqual(w.stop(), 0)

    def test_two_versions_of_one_key_each_checked_as_itself(self):
        self.s3.put_bucket_versioning(Bucket=self.bucket, VersioningConfiguration={"Status": "Enabled"})
        one = self.s3.put_object(Bucket=self.bucket, Key="in/v.parquet", Body=b"version one")
        two = self.s3.put_object(Bucket=self.bucket, Key="in/v.parquet", Body=b"version two!")
        e1, v1 = one["ETag"].strip('"'), one["VersionId"]
        e2, v2 = two["ETag"].strip('"'), two["VersionId"]
        w = self.watcher(extra=["--removals"])
        # The first version is not the current one: HEAD by its version id.
        self.event("ObjectCreated:Put", "in/v.parquet", e1, "0010", v1, 11)
        self.event("ObjectCreated:Put", "in/v.parquet", e2, "0011", v2, 12)
        want = sorted([("in/v.parquet", e1, v1), ("in/v.parquet", e2, v2)])
        wait_for("both versions registered", lambda: self.live() == want)
        self.assertEqual(w.metric("floe_watch_objects_skipped_total"), 0)
        # The first version removed: the second stays.
        self.s3.delete_object(Bucket=self.bucket, Key="in/v.parquet", VersionId=v1)
        self.event("ObjectRemoved:Delete", "in/v.parquet", seq="0012", version=v1)
        self.settled(w, "floe_watch_removals_committed_total", 1)
        self.assertEqual(self.live(), [("in/v.parquet", e2, v2)])
        self.assertEqual(w.stop(), 0)
        sizes = sorted(d["size"] for d in w.registered() if not d.get("removal"))
        self.assertEqual(sizes, [11, 12])

    def test_the_objects_checksum_is_recorded(self):
        w = self.watcher()
        r = self.s3.put_object(Bucket=self.bucket, Key="in/sum", Body=b"hello", ChecksumAlgorithm="SHA256")
        self.event("ObjectCreated:Put", "in/sum", r["ETag"].strip('"'), "00AA")
        wait_for("sum registered", lambda: len(self.live()) == 1)
        log = [json.loads(line) for line in self.floe("--json", "ledger", "log", self.ledger).splitlines()]
        entry = [e for c in log for e in c["entries"]][0]
        self.assertEqual(entry["checksum_algorithm"], "SHA256")
        self.assertEqual(entry["checksum"], r["ChecksumSHA256"])
        self.assertEqual(entry["sequencer"], "00AA")
        self.assertEqual(w.stop(), 0)


if __name__ == "__main__":
    main()
