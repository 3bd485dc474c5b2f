#!/usr/bin/env python3
"""`floe watch`'s lag and backlog on /metrics, on moto 5.2.1 through the
private verifying proxy (watch_support.py): the event lag histogram (event
time to commit), the oldest unregistered event's age, and the queue's
visible and in-flight messages (GetQueueAttributes, polled every 15 s).

  test_watch_lag.py PATH_TO_FLOE

Every wait polls /metrics or the ledger with a bound (watch_support.wait_for);
the --exec below waits for a file the test creates, which is the work being
held, not the test's synchronisation.
Prints "floe-cases: N passed, M failed".
"""
import os

from watch_support import WatchCase, main, wait_for

VISIBLE = 'floe_watch_queue_messages{state="visible"}'
IN_FLIGHT = 'floe_watch_queue_messages{state="in_flight"}'
AGE = "floe_watch_oldest_unregistered_age_seconds"


class WatchLagTest(WatchCase):
    def hold_first(self, more_cases=""):
        """An --exec that holds the object named *first* until release() (the
        work being held, not the test's synchronisation); `more_cases` adds
        case branches. Returns (the script, its started flag, its go flag)."""
        started = os.path.join(self.home.name, self.name + ".started")
        go = os.path.join(self.home.name, self.name + ".go")
        script = (f'case "$FLOE_KEY" in *first*) touch {started}; '
                  f'while [ ! -e {go} ]; do sleep 0.05; done;;{more_cases} esac')
        return script, started, go

    def release(self, w, go, want):
        """Lets the held --exec finish, waits for `want` (sorted keys) in the
        ledger, stops the watcher; returns each registered key's commit."""
        open(go, "w").close()
        wait_for("the objects in the ledger", lambda: sorted(self.ledger_keys()) == want, timeout=60)
        self.assertEqual(w.stop(), 0)
        return {d["key"]: d["commit"] for d in w.registered()}

    def test_lag_backlog_and_the_oldest_unregistered_age(self):
        hold_first, started, go = self.hold_first()
        # --receive-ahead 0: the three later messages wait in the queue (the
        # next case has them received ahead).
        w = self.watcher(extra=["--exec", hold_first, "--receive-ahead", "0"])
        # The first poll is made when the watcher starts.
        wait_for("the queue gauges", lambda: w.metric(VISIBLE) is not None and w.metric(IN_FLIGHT) is not None,
                 timeout=30)
        self.assertEqual(w.metric(AGE), 0)
        self.put("in/first.parquet")
        wait_for("the held --exec to start", lambda: os.path.exists(started), timeout=60)
        # Held, unregistered: its event's age grows.
        wait_for("an oldest unregistered age of a second", lambda: w.metric(AGE) >= 1.0, timeout=30)
        # Nothing is received while a batch is in work: these wait in the queue.
        later = [f"in/later-{i}.parquet" for i in range(3)]
        for k in later:
            self.put(k)
        wait_for("3 visible and 1 in flight", lambda: (w.metric(VISIBLE), w.metric(IN_FLIGHT)) == (3, 1), timeout=45)
        open(go, "w").close()
        want = sorted(["in/first.parquet"] + later)
        wait_for("the objects in the ledger", lambda: sorted(self.ledger_keys()) == want, timeout=60)
        wait_for("an oldest unregistered age of 0", lambda: w.metric(AGE) == 0, timeout=30)
        wait_for("an empty queue on the gauges", lambda: (w.metric(VISIBLE), w.metric(IN_FLIGHT)) == (0, 0),
                 timeout=45)
        # One lag per object registered; the held one's was a second at least.
        self.assertEqual(w.metric("floe_watch_event_lag_seconds_count"), 4)
        self.assertEqual(w.metric('floe_watch_event_lag_seconds_bucket{le="+Inf"}'), 4)
        self.assertLess(w.metric('floe_watch_event_lag_seconds_bucket{le="0.5"}'), 4)
        self.assertGreaterEqual(w.metric("floe_watch_event_lag_seconds_sum"), 1.0)
        self.assertLess(w.metric("floe_watch_event_lag_seconds_sum"), 4 * 300)
        self.assertEqual(w.stop(), 0)

    def test_messages_received_ahead_while_a_batch_is_held_are_the_next_batch(self):
        hold_first, started, go = self.hold_first()
        w = self.watcher(extra=["--exec", hold_first])  # --receive-ahead: its default, 30
        wait_for("the queue gauges", lambda: w.metric(IN_FLIGHT) is not None, timeout=30)
        self.put("in/first.parquet")
        wait_for("the held --exec to start", lambda: os.path.exists(started), timeout=60)
        later = [f"in/later-{i}.parquet" for i in range(3)]
        for k in later:
            self.put(k)
        # Received while the first batch is in work: held (their visibility
        # kept up), none left visible in the queue.
        wait_for("4 messages held", lambda: w.metric("floe_watch_messages_held") == 4, timeout=45)
        wait_for("0 visible and 4 in flight", lambda: (w.metric(VISIBLE), w.metric(IN_FLIGHT)) == (0, 4), timeout=45)
        self.assertEqual(self.ledger_keys(), [])
        want = sorted(["in/first.parquet"] + later)
        commits = self.release(w, go, want)
        self.assertEqual(sorted(commits), want)
        # The three received ahead are one batch: one commit, after the first's.
        self.assertEqual(len({commits[k] for k in later}), 1, commits)
        self.assertGreater(commits[later[0]], commits["in/first.parquet"])

    def test_a_failed_objects_place_is_received_for_while_the_batch_is_in_work(self):
        # --receive-ahead 10: ten more messages are held while a batch is in
        # work, plus the place of each of its objects that failed, so a
        # failing message does not cost the next batch a healthy one.
        work, started, go = self.hold_first(" *bad*) exit 3;;")
        # Both queued before the watcher starts: its first receive has them.
        self.put("in/first.parquet")
        self.put("in/bad.parquet")
        w = self.watcher(extra=["--exec", work, "--receive-ahead", "10"])
        wait_for("the held --exec to start", lambda: os.path.exists(started), timeout=60)
        wait_for("the bad object's --exec to fail in the same batch", lambda: len(w.events("exec_failed")) == 1,
                 timeout=60)
        later = [f"in/later-{i:02}.parquet" for i in range(11)]
        for k in later:
            self.put(k)
        # 2 in the batch, 10 ahead and 1 more for the failed object's place:
        # none left visible (without the given-back place: 12 held, 1 visible).
        wait_for("13 messages held and none visible",
                 lambda: (w.metric("floe_watch_messages_held"), self.queue_counts(self.queue)[0]) == (13, 0),
                 timeout=45)
        self.assertEqual(self.ledger_keys(), [])
        commits = self.release(w, go, sorted(["in/first.parquet"] + later))
        # The eleven received while the first batch was held are one batch.
        self.assertEqual(len({commits[k] for k in later}), 1, commits)


if __name__ == "__main__":
    main()
