"""The rows of the CLI's heal matrix (test_heal_cli.py): one per verb and
request shape. `target` is the proxy match of the request the revocation
hits ({B}: the row's bucket); `args` the command line, `setup` what must
exist first, `check` what must hold after (given floe's stdout); `drive`
runs a verb that does not end by itself (watch)."""
import json
import queue
import re
import signal
import threading

DATA = b"the bytes a healed request must still carry\n" * 64
FILES = [f"f{i}" for i in range(6)]


class Row:
    def __init__(self, verb, name, target, args=None, setup=None, check=None, stdin=None, drive=None):
        self.verb, self.name, self.target = verb, name, target
        self.args, self.setup, self.stdin, self.drive = args, setup, stdin, drive
        self.check = check or (lambda c, out: None)
        # S3 answers a request to a bucket's object or listing from the wrong
        # region with a redirect (not CreateBucket, STS or SQS).
        self.redirect = "path" in target and verb not in ("mb",)
        self.slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def put_tree(prefix):
    def setup(c):
        for f in FILES:
            c.put(prefix + f, DATA + f.encode())
    return setup


def local_tree(rel):
    def setup(c):
        for f in FILES:
            c.write(f"{rel}/{f}", DATA + f.encode())
    return setup


def has_tree(prefix):
    def check(c, out):
        assert c.keys(prefix) == [prefix + f for f in FILES], c.keys(prefix)
        for f in FILES:
            assert c.get(prefix + f) == DATA + f.encode(), prefix + f
    return check


def has_local_tree(rel):
    def check(c, out):
        for f in FILES:
            assert c.read(f"{rel}/{f}") == DATA + f.encode(), f
    return check


def holds(key):
    def check(c, out):
        assert c.get(key) == DATA, key
    return check


def one(key):
    return lambda c: c.put(key, DATA)


# ---- the ledger -------------------------------------------------------------

def number(n):
    return f"{n:020d}"


def ledger_with_checkpoint(c):
    """A ledger whose readers start from checkpoint 100 (read streaming,
    the shape that once could not heal), and an object to add."""
    c.case.assertEqual(c.case.floe_setup(["ledger", "init", c.uri("ledger")]), 0)
    c.put("old/x", DATA)
    etag = c.s3.head_object(Bucket=c.bucket, Key="old/x")["ETag"].strip('"')
    entry = [c.bucket, "old/x", etag, len(DATA)]
    commit = {"floe_ledger": 1, "kind": "commit", "commit": 100, "write_id": "healcli0000000000000.100",
              "writer": "heal-cli", "time": "2026-12-03T00:00:00Z", "entries": [entry]}
    c.s3.put_object(Bucket=c.bucket, Key=f"ledger/_log/{number(100)}.json", Body=json.dumps(commit).encode())
    checkpoint = json.dumps({"floe_ledger": 1, "kind": "checkpoint", "commit": 100, "entries": 1}) + "\n"
    checkpoint += json.dumps(entry) + "\n"
    c.s3.put_object(Bucket=c.bucket, Key=f"ledger/_checkpoints/{number(100)}.ndjson", Body=checkpoint.encode())
    c.s3.put_object(Bucket=c.bucket, Key="ledger/_last_checkpoint.json",
                    Body=json.dumps({"floe_ledger": 1, "kind": "hint", "checkpoint": 100}).encode())
    c.put("in/a", DATA)


def ledger_with_commits(c):
    """A ledger of two commits made by floe itself (with the row's own
    web identity, before the revocation is armed)."""
    c.put("in/a", DATA)
    c.put("in/b", DATA)
    c.case.assertEqual(c.case.floe_setup(["ledger", "init", c.uri("ledger")]), 0)
    for key in ("in/a", "in/b"):
        c.case.assertEqual(c.case.floe_setup(["ledger", "add", c.uri("ledger"), c.uri(key)]), 0)


CHECKPOINT_GET = {"method": "GET", "path": r"^/{B}/ledger/_checkpoints/0{17}100\.ndjson$"}
COMMIT_2_GET = {"method": "GET", "path": r"^/{B}/ledger/_log/0{19}2\.json$"}


def commit_holds(n, key):
    def check(c, out):
        doc = json.loads(c.get(f"ledger/_log/{number(n)}.json"))
        assert [e[1] for e in doc["entries"]] == [key], doc
    return check


# ---- watch --------------------------------------------------------------------

def lines_of(pipe):
    """A thread that reads `pipe` line by line into a queue (None at its end)."""
    q = queue.Queue()

    def read():
        for line in iter(pipe.readline, b""):
            q.put(line)
        q.put(None)
    threading.Thread(target=read, daemon=True).start()
    return q


def wait_for_key(lines, key, seen, limit=120):
    """Reads --jsonl lines until one registers `key` (each line waited for at
    most `limit` s: a watcher that registers nothing fails, it is not slept on)."""
    while True:
        line = lines.get(timeout=limit)
        assert line is not None, f"the watcher ended before registering {key}"
        seen.append(line)
        if json.loads(line)["key"] == key:
            return


def drive_watch(c, case):
    """A watcher registers in/a, the keys are revoked as it HEADs in/b (the
    row's target), and it must register in/b all the same, then stop on
    SIGTERM with exit 0."""
    q = c.make_queue()
    arn = c.sqs.get_queue_attributes(QueueUrl=q, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    c.s3.put_bucket_notification_configuration(Bucket=c.bucket, NotificationConfiguration={
        "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]})
    c.put("in/a", DATA)
    p = case.floe_process(["watch", "--queue", c.bucket, "--ledger", c.uri("ledger"), "--jsonl", c.uri("in/**")])
    out, err, seen = lines_of(p.stdout), lines_of(p.stderr), []
    try:
        wait_for_key(out, "in/a", seen)
        c.put("in/b", DATA)
        wait_for_key(out, "in/b", seen)
    finally:
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=60)
    tail = []
    while (line := err.get(timeout=30)) is not None:
        tail.append(line)
    return rc, b"".join(seen), b"".join(tail)


# ---- the rows -------------------------------------------------------------------

def list_target():
    return {"method": "GET", "path": "^/{B}/?$", "query": "list-type=2"}


ROWS = [
    Row("ls", "ls", list_target(), args=lambda c: ["ls", c.uri()], setup=one("a"),
        check=lambda c, out: c.case.assertRegex(out.decode(), r" a\n")),
    Row("cp", "cp up one file", {"method": "PUT", "path": "^/{B}/up/one$"},
        args=lambda c: ["cp", c.path("one"), c.uri("up/one")], setup=lambda c: c.write("one", DATA),
        check=holds("up/one")),
    Row("cp", "cp up recursive", {"method": "PUT", "path": "^/{B}/up/f2$"},
        args=lambda c: ["cp", "--recursive", c.path("tree"), c.uri("up/")], setup=local_tree("tree"),
        check=has_tree("up/")),
    Row("cp", "cp down one object", {"method": "GET", "path": "^/{B}/src/one$"},
        args=lambda c: ["cp", c.uri("src/one"), c.path("got")], setup=one("src/one"),
        check=lambda c, out: c.case.assertEqual(c.read("got"), DATA)),
    Row("cp", "cp down recursive", {"method": "GET", "path": "^/{B}/src/f2$"},
        args=lambda c: ["cp", "--recursive", c.uri("src/"), c.path("down")], setup=put_tree("src/"),
        check=has_local_tree("down")),
    Row("cp", "cp s3 to s3 one object", {"method": "PUT", "path": "^/{B}/copy/one$"},
        args=lambda c: ["cp", c.uri("src/one"), c.uri("copy/one")], setup=one("src/one"), check=holds("copy/one")),
    Row("cp", "cp s3 to s3 recursive", {"method": "PUT", "path": "^/{B}/copy/f2$"},
        args=lambda c: ["cp", "--recursive", c.uri("src/"), c.uri("copy/")], setup=put_tree("src/"),
        check=has_tree("copy/")),
    Row("sync", "sync up", {"method": "PUT", "path": "^/{B}/site/f2$"},
        args=lambda c: ["sync", c.path("site"), c.uri("site/")], setup=local_tree("site"), check=has_tree("site/")),
    Row("sync", "sync down", {"method": "GET", "path": "^/{B}/src/f2$"},
        args=lambda c: ["sync", c.uri("src/"), c.path("mirror")], setup=put_tree("src/"),
        check=has_local_tree("mirror")),
    Row("mv", "mv s3 to s3 recursive", {"method": "PUT", "path": "^/{B}/moved/f2$"},
        args=lambda c: ["mv", "--recursive", c.uri("src/"), c.uri("moved/")], setup=put_tree("src/"),
        check=lambda c, out: (has_tree("moved/")(c, out), c.case.assertEqual(c.keys("src/"), []))),
    Row("cat", "cat", {"method": "GET", "path": "^/{B}/src/one$"}, args=lambda c: ["cat", c.uri("src/one")],
        setup=one("src/one"), check=lambda c, out: c.case.assertEqual(out, DATA)),
    Row("rm", "rm recursive", {"method": "POST", "path": "^/{B}/?$", "query": "delete"},
        args=lambda c: ["rm", "--recursive", c.uri("src/")], setup=put_tree("src/"),
        check=lambda c, out: c.case.assertEqual(c.keys("src/"), [])),
    Row("stat", "stat", {"method": "HEAD", "path": "^/{B}/src/one$"}, args=lambda c: ["--json", "stat", c.uri("src/one")],
        setup=one("src/one"), check=lambda c, out: c.case.assertEqual(json.loads(out)["size"], len(DATA))),
    Row("put", "put from stdin", {"method": "PUT", "path": "^/{B}/p$"}, args=lambda c: ["put", c.uri("p")],
        stdin=DATA, check=holds("p")),
    Row("mb", "mb", {"method": "PUT", "path": "^/{B}-new/?$"}, args=lambda c: ["mb", f"s3://{c.bucket}-new"],
        check=lambda c, out: c.s3.head_bucket(Bucket=c.bucket + "-new")),
    Row("rb", "rb", {"method": "DELETE", "path": "^/{B}-gone/?$"}, args=lambda c: ["rb", f"s3://{c.bucket}-gone"],
        setup=lambda c: c.s3.create_bucket(Bucket=c.bucket + "-gone"),
        check=lambda c, out: c.case.assertNotIn(c.bucket + "-gone",
                                                [b["Name"] for b in c.s3.list_buckets()["Buckets"]])),
    Row("whoami", "whoami", {"service": "sts", "header": {"Authorization": "/sts/aws4_request"}},
        args=lambda c: ["whoami"], check=lambda c, out: c.case.assertIn(b"arn:aws:", out)),
    Row("ledger init", "ledger init", {"method": "PUT", "path": r"^/{B}/ledger/_log/0{20}\.json$"},
        args=lambda c: ["ledger", "init", c.uri("ledger")],
        check=lambda c, out: c.get("ledger/_log/" + number(0) + ".json")),
    Row("ledger add", "ledger add from a checkpoint", CHECKPOINT_GET,
        args=lambda c: ["ledger", "add", c.uri("ledger"), c.uri("in/a")], setup=ledger_with_checkpoint,
        check=commit_holds(101, "in/a")),
    Row("ledger reconcile", "ledger reconcile from a checkpoint", CHECKPOINT_GET,
        args=lambda c: ["ledger", "reconcile", c.uri("ledger"), c.uri("in/**")], setup=ledger_with_checkpoint,
        check=commit_holds(101, "in/a")),
    Row("ledger ls", "ledger ls from a checkpoint", CHECKPOINT_GET, args=lambda c: ["ledger", "ls", c.uri("ledger")],
        setup=ledger_with_checkpoint, check=lambda c, out: c.case.assertIn(b"old/x", out)),
    Row("ledger log", "ledger log", COMMIT_2_GET, args=lambda c: ["ledger", "log", c.uri("ledger")],
        setup=ledger_with_commits, check=lambda c, out: c.case.assertIn(b"in/b", out)),
    Row("ledger verify", "ledger verify", COMMIT_2_GET, args=lambda c: ["ledger", "verify", c.uri("ledger")],
        setup=ledger_with_commits, check=lambda c, out: c.case.assertTrue(out.startswith(b"ok"), out)),
    Row("sqs create", "sqs create", {"header": {"X-Amz-Target": r"^AmazonSQS\.CreateQueue$"}},
        args=lambda c: ["sqs", "create", c.bucket], check=lambda c, out: c.case.assertIn(c.bucket.encode(), out)),
    Row("sqs url", "sqs url", {"header": {"X-Amz-Target": r"^AmazonSQS\.GetQueueUrl$"}},
        args=lambda c: ["sqs", "url", c.bucket], setup=lambda c: c.make_queue(),
        check=lambda c, out: c.case.assertEqual(out.decode().strip().rsplit("/", 1)[-1], c.bucket)),
    Row("sqs attrs", "sqs attrs", {"header": {"X-Amz-Target": r"^AmazonSQS\.GetQueueAttributes$"}},
        args=lambda c: ["sqs", "attrs", c.queue_url], setup=lambda c: c.make_queue(2),
        check=lambda c, out: c.case.assertIn(b"ApproximateNumberOfMessages=2", out)),
    Row("sqs purge", "sqs purge", {"header": {"X-Amz-Target": r"^AmazonSQS\.PurgeQueue$"}},
        args=lambda c: ["sqs", "purge", c.queue_url], setup=lambda c: c.make_queue(2)),
    Row("sqs send", "sqs send", {"header": {"X-Amz-Target": r"^AmazonSQS\.SendMessage$"}},
        args=lambda c: ["sqs", "send", c.queue_url, "healed"], setup=lambda c: c.make_queue(),
        check=lambda c, out: c.case.assertEqual(
            [m["Body"] for m in c.sqs.receive_message(QueueUrl=c.queue_url).get("Messages", [])], ["healed"])),
    Row("sqs receive", "sqs receive", {"header": {"X-Amz-Target": r"^AmazonSQS\.ReceiveMessage$"}},
        args=lambda c: ["sqs", "receive", c.queue_url], setup=lambda c: c.make_queue(1),
        check=lambda c, out: c.case.assertIn(b"message 0", out)),
    Row("sqs delete", "sqs delete", {"header": {"X-Amz-Target": r"^AmazonSQS\.DeleteMessageBatch$"}},
        args=lambda c: ["sqs", "delete", c.queue_url, c.handle], setup=lambda c: receive_one(c),
        check=lambda c, out: c.case.assertEqual(c.sqs.get_queue_attributes(
            QueueUrl=c.queue_url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"])["Attributes"]
            ["ApproximateNumberOfMessagesNotVisible"], "0")),
    Row("watch", "watch", {"method": "HEAD", "path": "^/{B}/in/b$"}, drive=drive_watch,
        check=lambda c, out: c.case.assertEqual(sorted(json.loads(line)["key"] for line in out.splitlines()),
                                                ["in/a", "in/b"])),
]


def receive_one(c):
    c.make_queue(1)
    got = c.sqs.receive_message(QueueUrl=c.queue_url, VisibilityTimeout=300, WaitTimeSeconds=1)["Messages"]
    c.handle = got[0]["ReceiptHandle"]


# Verbs with no row, and why.
EXEMPT = {
    "presign": "signs a URL locally and sends no request: there is no reply to heal from",
}
