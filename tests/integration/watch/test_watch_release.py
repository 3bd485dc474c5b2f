#!/usr/bin/env python3
"""`floe watch` giving messages back to the queue, on moto 5.2.1 through the
private verifying proxy (watch_support.py): on SIGTERM every message it
holds and has not deleted is made visible again at once (so another replica
takes it without waiting for the visibility timeout), and a message whose
object fails gets a visibility timeout that doubles with its receive count
while the healthy objects flow.

  test_watch_release.py PATH_TO_FLOE

Every wait polls a condition with a bound (watch_support.wait_for); the
--exec commands below wait for files the test creates, which is the work
being held, not the test's synchronisation.
Prints "floe-cases: N passed, M failed".
"""
import json
import os
import signal
import time
import urllib.parse

from watch_support import WatchCase, main, wait_for

# What SQS would otherwise wait before handing a held message out again.
LONG = ["--visibility-timeout", "120"]


class WatchReleaseTest(WatchCase):
    def flag(self, name):
        return os.path.join(self.home.name, f"{self.name}.{name}")

    def blocking_exec(self, then):
        """An --exec that says it started, waits for the 'go' file, then runs `then`."""
        started, go = self.flag("started"), self.flag("go")
        return f'touch {started}; while [ ! -e {go} ]; do sleep 0.05; done; {then}'

    def receive_within(self, seconds):
        """Receives the queue's messages (boto3, straight to moto) until one
        comes or `seconds` pass; returns them."""
        deadline = time.monotonic() + seconds
        while True:
            got = self.sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10, WaitTimeSeconds=0,
                                           AttributeNames=["ApproximateReceiveCount"]).get("Messages", [])
            got = [m for m in got if "s3:TestEvent" not in m["Body"]]
            if got or time.monotonic() >= deadline:
                return got
            time.sleep(0.05)  # polling the queue, with the bound above

    def keys_of(self, message):
        return [urllib.parse.unquote_plus(r["s3"]["object"]["key"]) for r in json.loads(message["Body"])["Records"]]

    # ---- hand-back on stop ---------------------------------------------------

    def more_receives(self):
        """Room for the receives a test makes (setUp's queue sends a message
        to the dead-letter queue after 2)."""
        self.sqs.set_queue_attributes(QueueUrl=self.queue, Attributes={"RedrivePolicy": json.dumps(
            {"deadLetterTargetArn": self.arn(self.dlq), "maxReceiveCount": "10"})})

    def test_sigterm_hands_back_the_messages_received_ahead_too(self):
        # One object's work is held; two more messages are received ahead of
        # it (held, not in work). On SIGTERM all three are visible again at once.
        self.more_receives()
        w = self.watcher(extra=LONG + ["--exec", self.blocking_exec("exit 0")])
        self.put("in/held.parquet")
        wait_for("the --exec to start", lambda: os.path.exists(self.flag("started")), timeout=60)
        self.put("in/ahead-0.parquet")
        self.put("in/ahead-1.parquet")
        wait_for("3 messages held", lambda: w.metric("floe_watch_messages_held") == 3, timeout=45)
        self.assertEqual(w.stop(), 0)
        got = self.receive_within(1.0)
        while len(got) < 3:
            more = self.receive_within(0.5)
            if not more:
                break
            got += more
        self.assertEqual(sorted(k for m in got for k in self.keys_of(m)),
                         ["in/ahead-0.parquet", "in/ahead-1.parquet", "in/held.parquet"],
                         f"the held messages are not visible again within a second of the exit: {w.logs}")
        self.assertEqual(sorted(e["messages"] for e in w.events("handed_back")), ["1", "2"])
        self.assertEqual(len(w.events("abandoned")), 1)
        self.assertEqual(self.ledger_keys(), [])

    def test_sigterm_hands_back_a_message_whose_work_is_held(self):
        # The object's --exec never finishes by itself: the stop grace (8 s)
        # ends the batch, its message is handed back, and the process exits 0.
        self.more_receives()
        w = self.watcher(extra=LONG + ["--exec", self.blocking_exec("exit 0")])
        self.put("in/held.parquet")
        wait_for("the --exec to start", lambda: os.path.exists(self.flag("started")), timeout=60)
        self.assertEqual(w.stop(), 0)
        got = self.receive_within(1.0)
        self.assertEqual([self.keys_of(m) for m in got], [["in/held.parquet"]],
                         "the held message is not visible again within a second of the exit")
        self.assertEqual(got[0]["Attributes"]["ApproximateReceiveCount"], "2")
        self.assertEqual(len(w.events("abandoned")), 1)
        self.assertEqual([e["messages"] for e in w.events("handed_back")], ["1"])
        self.assertEqual(self.ledger_keys(), [])
        # Another replica takes it at once (the receive above made it
        # invisible again: handed back the same way).
        self.sqs.change_message_visibility(QueueUrl=self.queue, ReceiptHandle=got[0]["ReceiptHandle"],
                                           VisibilityTimeout=0)
        self.watcher(extra=LONG)
        wait_for("the object in the ledger", lambda: self.ledger_keys() == ["in/held.parquet"], timeout=30)

    def test_sigterm_during_a_failing_object_hands_it_back_when_the_batch_ends(self):
        # The batch in work finishes within the grace: its object fails after
        # the stop, and its message is handed back, not backed off.
        w = self.watcher(extra=LONG + ["--exec", self.blocking_exec("exit 3")])
        self.put("in/fails.parquet")
        wait_for("the --exec to start", lambda: os.path.exists(self.flag("started")), timeout=60)
        w.proc.send_signal(signal.SIGTERM)
        wait_for("the stopping line", lambda: w.events("stopping"), timeout=10)
        open(self.flag("go"), "w").close()
        self.assertEqual(w.stop(), 0)
        got = self.receive_within(1.0)
        self.assertEqual([self.keys_of(m) for m in got], [["in/fails.parquet"]],
                         "the failed message is not visible again within a second of the exit")
        self.assertEqual(w.events("abandoned"), [])
        self.assertEqual(len(w.events("exec_failed")), 1)
        self.assertEqual(w.events("backed_off"), [])
        self.assertEqual([e["messages"] for e in w.events("handed_back")], ["1"])

    # ---- poison isolation ----------------------------------------------------

    def test_failing_object_backs_off_doubling_while_the_rest_register(self):
        self.more_receives()
        # The queue's side: each ChangeMessageVisibilityBatch of this queue
        # asking for 11 to 20 s (the second failure's back-off of 20 s,
        # counted from its receive: what is left of it; extensions ask for
        # the --visibility-timeout, 10 s). A delay of 0: counted, forwarded.
        twenty = self.proxy.add_rule({"match": {"header": {"X-Amz-Target": r"^AmazonSQS\.ChangeMessageVisibilityBatch$"},
                                                "body": r'(?s)^(?=.*/' + self.name + r'")(?=.*"VisibilityTimeout":\s*(1[1-9]|20)\b)'},
                                      "action": {"type": "delay", "ms": 0}})
        w = self.watcher(extra=["--exec", 'case "$FLOE_KEY" in *poison*) exit 3;; esac'])
        self.put("in/poison.parquet")

        def backed_off(receive):
            return [e for e in w.events("backed_off") if e["receive_count"] == str(receive)]

        first = wait_for("the first back-off", lambda: backed_off(1), timeout=60)
        # The first back-off is the receive's own 10 s: in place, no request.
        self.assertEqual(first[0]["backoff_s"], "10")
        self.assertLessEqual(int(first[0]["visibility_s"]), 10)
        healthy = [f"in/ok-{i}.parquet" for i in range(5)]
        for k in healthy:
            self.put(k)
        wait_for("the healthy objects in the ledger", lambda: sorted(self.ledger_keys()) == healthy, timeout=60)
        second = wait_for("the second back-off", lambda: backed_off(2), timeout=60)
        self.assertEqual(second[0]["backoff_s"], "20")
        self.assertIn(int(second[0]["visibility_s"]), range(11, 21))
        self.assertGreaterEqual(self.proxy.rule(twenty)["fired"], 1, "no ChangeMessageVisibilityBatch asked for 11..20 s")
        self.assertEqual(w.metric("floe_watch_objects_committed_total"), 5)
        self.assertGreaterEqual(w.metric("floe_watch_messages_backed_off_total"), 2)
        self.assertEqual(sorted(self.ledger_keys()), healthy)
        self.assertEqual(self.queue_counts(self.queue), (0, 1))  # the poison, backed off
        self.assertEqual(w.stop(), 0)


if __name__ == "__main__":
    main()
