#!/usr/bin/env python3
"""`floe watch --reconcile-every` on moto 5.2.1 through the private verifying
proxy (watch_support.py): objects that never had a notification are found by
the reconcile listing and registered through the same HEAD / --exec / commit
path, once, however many passes run.

  test_watch_reconcile.py PATH_TO_FLOE

Every wait polls the ledger or /metrics with a bound (watch_support.wait_for).
Prints "floe-cases: N passed, M failed".
"""
import json
import os
import subprocess

import watch_support
from watch_support import WatchCase, main, wait_for


class WatchReconcileTest(WatchCase):
    def test_objects_without_events_are_registered_by_the_listing(self):
        # No notifications: nothing but the listing tells the watcher.
        self.s3.put_bucket_notification_configuration(Bucket=self.bucket, NotificationConfiguration={})
        keys = [f"in/{i:02d} {k}" for i, k in enumerate(["a.parquet", "b+c.parquet", "ü.parquet"])]
        keys += [f"in/deep/{i:04d}.parquet" for i in range(25)]
        for k in keys + ["in/skip.csv", "out/x.parquet"]:
            self.put(k, k.encode())
        ran = os.path.join(self.home.name, self.name + ".exec")
        w = self.watcher(f"s3://{self.bucket}/in/**/*.parquet", f"s3://{self.bucket}/in/deep/**",
                         extra=["--reconcile-every", "2s", "--exec", f'printf "%s\\n" "$FLOE_KEY" >> {ran}'])
        wait_for("the objects in the ledger", lambda: sorted(self.ledger_keys()) == sorted(keys), timeout=90)
        # More passes register nothing again.
        passes = w.metric("floe_watch_reconcile_passes_total")
        wait_for("two more reconcile passes", lambda: w.metric("floe_watch_reconcile_passes_total") >= passes + 2,
                 timeout=60)
        self.assertEqual(w.metric("floe_watch_reconciled_objects_total"), len(keys))
        self.assertEqual(w.metric("floe_watch_objects_committed_total"), len(keys))
        self.assertEqual(sorted(self.ledger_keys()), sorted(keys))
        self.assertIn("ok:", self.floe("ledger", "verify", self.ledger))
        with open(ran, encoding="utf-8") as f:
            self.assertEqual(sorted(f.read().splitlines()), sorted(keys))
        self.assertEqual(w.stop(), 0)
        self.assertEqual(sorted(d["key"] for d in w.registered()), sorted(keys))
        self.assertEqual({d["event_name"] for d in w.registered()}, {"reconcile"})

    def test_an_object_registered_from_its_event_is_not_registered_again(self):
        # The event registers it first: a watcher without reconcile passes
        # (one with them could list the object before its event is worked
        # on, and register it from the listing instead). Then a watcher
        # whose passes list it registers nothing.
        a = self.watcher()
        self.put("in/evented.parquet")
        wait_for("the object in the ledger", lambda: self.ledger_keys() == ["in/evented.parquet"], timeout=60)
        self.assertEqual(a.stop(), 0)
        self.assertEqual([d["event_name"] for d in a.registered()], ["ObjectCreated:Put"])
        w = self.watcher(extra=["--reconcile-every", "2s"])
        wait_for("two reconcile passes", lambda: (w.metric("floe_watch_reconcile_passes_total") or 0) >= 2,
                 timeout=60)
        self.assertEqual(w.metric("floe_watch_reconciled_objects_total"), 0)
        self.assertEqual(w.metric("floe_watch_objects_committed_total"), 0)
        self.assertEqual(self.ledger_keys(), ["in/evented.parquet"])
        self.assertEqual(w.stop(), 0)

    def test_replicas_reconciling_at_once_register_each_object_once(self):
        # Two watchers on one ledger, no notifications: both list the same
        # objects within the same first period; the ledger takes each once.
        self.s3.put_bucket_notification_configuration(Bucket=self.bucket, NotificationConfiguration={})
        keys = [f"in/{i:03d}.parquet" for i in range(40)]
        for k in keys:
            self.put(k, k.encode())
        ws = [self.watcher(extra=["--reconcile-every", "2s"]) for _ in range(2)]
        wait_for("the objects in the ledger", lambda: sorted(self.ledger_keys()) == keys, timeout=90)
        passes = [w.metric("floe_watch_reconcile_passes_total") for w in ws]
        wait_for("a pass of each after it",
                 lambda: all(w.metric("floe_watch_reconcile_passes_total") > p for w, p in zip(ws, passes)),
                 timeout=60)
        self.assertEqual(sum(w.metric("floe_watch_reconciled_objects_total") for w in ws), len(keys))
        self.assertEqual(sum(w.metric("floe_watch_objects_committed_total") for w in ws), len(keys))
        self.assertIn("ok:", self.floe("ledger", "verify", self.ledger))
        self.assertEqual(sorted(self.ledger_keys()), keys)
        for w in ws:
            self.assertEqual(w.stop(), 0)
        self.assertEqual(sorted(d["key"] for w in ws for d in w.registered()), keys)

    def test_one_shot_ledger_reconcile_registers_a_backfill_a_page_at_a_time(self):
        # `floe ledger reconcile`: no watcher, no queue, no notifications.
        self.s3.put_bucket_notification_configuration(Bucket=self.bucket, NotificationConfiguration={})
        keys = [f"in/{i:04d}.parquet" for i in range(1005)] + ["in/sp ace+ü.parquet"]
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda k: self.put(k, k.encode()), keys + ["in/skip.csv", "out/x.parquet"]))
        self.floe("ledger", "init", self.ledger)
        self.floe("ledger", "add", self.ledger, f"s3://{self.bucket}/in/0007.parquet")  # one registered before
        pattern = f"s3://{self.bucket}/in/**/*.parquet"
        first = json.loads(self.floe("--json", "ledger", "reconcile", self.ledger, pattern))
        self.assertEqual(first["listed"], len(keys) + 1)  # in/skip.csv is listed, not registered
        self.assertEqual(first["registered"], len(keys) - 1)
        self.assertEqual(first["failed"], 0)
        self.assertEqual(first["commits"], 2)  # one per page of 1000 keys
        self.assertTrue(first["ok"])
        self.assertEqual(sorted(self.ledger_keys()), sorted(keys))
        # Again: every object is known from the listing; nothing is HEADed
        # or written (a few requests load the ledger and list two pages, not
        # one HEAD per object).
        before = self.proxy.stats()["by_service"].get("s3", 0)
        second = json.loads(self.floe("--json", "ledger", "reconcile", self.ledger, pattern))
        self.assertEqual((second["registered"], second["already"], second["commits"]), (0, 0, 0))
        self.assertLess(self.proxy.stats()["by_service"].get("s3", 0) - before, 40)
        self.assertIn("ok:", self.floe("ledger", "verify", self.ledger))
        text = self.floe("ledger", "reconcile", self.ledger, pattern)
        self.assertIn(f"{len(keys) + 1} listed, 0 registered", text)

    def test_one_shot_ledger_reconcile_names_what_is_wrong(self):
        r = subprocess.run([watch_support.FLOE, "ledger", "reconcile", self.ledger], capture_output=True,
                           env=self.static_env, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"needs the patterns", r.stderr)
        r = subprocess.run([watch_support.FLOE, "ledger", "reconcile", self.ledger, "s3://"], capture_output=True,
                           env=self.static_env, timeout=60)
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    main()
