#!/usr/bin/env python3
"""`floe ledger init|add|log|ls|verify` against a real store, through a
private test proxy with its SigV4 verifier on.

  test_ledger_cli.py PATH_TO_FLOE STORE     STORE: rgw | moto

rgw: the real Ceph RGW 16.2.15 that scripts/test starts (FLOE_TEST_RGW_ENDPOINT,
FLOE_TEST_RGW_ACCESS_KEY, FLOE_TEST_RGW_SECRET_KEY): its create-only PUT is
atomic, as the ledger needs.
moto: FLOE_TEST_MOTO_ENDPOINT, with the proxy's per-object serialisation on
(POST /serialize): moto checks If-None-Match and stores the object in two
steps, so two writers could both create one commit number
(tests/support/moto_if_match_race.py); the proxy gives it the atomicity AWS
and RGW have.
Private proxy: nothing another suite does (a /reset, a rule) reaches it.
Keys have spaces, '+', '%' and non-ASCII letters. The last case runs eight
concurrent shell loops of `floe ledger add` (ledger_add_loop.sh) over the
same objects in different orders: each object is registered exactly once.
Prints "floe-cases: N passed, M failed".
"""
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

import cli_support

FLOE = None
STORE = None
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))

LOOPS = 8
LOOP_OBJECTS = 24
LOOP_CHUNK = 3
# Keys as typed: floe takes them literally (no percent-decoding).
ODD_KEYS = ["in/a b.txt", "in/1+1=2.csv", "in/100%25 done", "in/ünïcødé ☃.parquet"]


class LedgerCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if STORE == "rgw":
            names = ("FLOE_TEST_RGW_ENDPOINT", "FLOE_TEST_RGW_ACCESS_KEY", "FLOE_TEST_RGW_SECRET_KEY")
        else:
            names = ("FLOE_TEST_MOTO_ENDPOINT",)
        missing = [n for n in names if not os.environ.get(n)]
        if missing:
            raise RuntimeError(f"{', '.join(missing)} not set: run scripts/test, or start the servers with\n"
                               "  eval \"$(python3 tests/support/servers.py start build/test-servers)\"")
        cls.home = tempfile.TemporaryDirectory(prefix="floe-ledger-cli-")
        from proxy.server import ProxyThread
        if STORE == "rgw":
            upstream = os.environ["FLOE_TEST_RGW_ENDPOINT"]
            akid, secret = os.environ["FLOE_TEST_RGW_ACCESS_KEY"], os.environ["FLOE_TEST_RGW_SECRET_KEY"]
        else:
            upstream = os.environ["FLOE_TEST_MOTO_ENDPOINT"]
            akid, secret = "AKIDFLOELEDGERCLI01", "ledger-cli-secret/0123456789"
        cls.proxy = ProxyThread(upstream, log_path=os.path.join(cls.home.name, "proxy.log")).start()
        cls.proxy.verify(enabled=True, secrets={akid: secret})
        if STORE == "moto":
            assert cls.proxy.serialize(True) == {"enabled": True}
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy")}
        env.update({"HOME": cls.home.name, "AWS_EC2_METADATA_DISABLED": "true",
                    "AWS_ACCESS_KEY_ID": akid, "AWS_SECRET_ACCESS_KEY": secret,
                    # Every floe started here (the loops too) talks to the proxy.
                    "AWS_ENDPOINT_URL_S3": cls.proxy.endpoint})
        cls.env = env
        cls.bucket = "floe-ledger-cli-" + uuid.uuid4().hex[:12]
        r = cls.run_floe("mb", f"s3://{cls.bucket}")
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        cls.run_floe("rm", "--recursive", f"s3://{cls.bucket}")
        cls.run_floe("rb", f"s3://{cls.bucket}")
        stats = cls.proxy.stats()
        cls.proxy.stop()
        cls.home.cleanup()
        assert stats["signature_failures"] == 0, stats

    @classmethod
    def run_floe(cls, *args, input=None):
        return subprocess.run([FLOE] + list(args), input=input, capture_output=True, env=cls.env, timeout=120)

    def floe(self, *args, input=None, rc=0):
        r = self.run_floe(*args, input=input)
        self.assertEqual(r.returncode, rc, f"floe {' '.join(args)}: rc {r.returncode}\nstderr: {r.stderr!r}")
        return r

    def uri(self, key):
        return f"s3://{self.bucket}/{key}"

    def new_ledger(self):
        return self.uri("ledgers/" + uuid.uuid4().hex[:10])

    def put(self, key, body):
        """Uploads `body`; returns its ETag."""
        return self.floe("put", self.uri(key), input=body).stdout.decode().strip()

    def json_lines(self, *args, rc=0):
        out = self.floe("--json", *args, rc=rc).stdout.decode()
        return [json.loads(line) for line in out.splitlines()]

    def entries(self, ledger):
        return {(e["bucket"], e["key"], e["etag"]) for e in self.json_lines("ledger", "ls", ledger)}

    # ---- a round trip -------------------------------------------------------

    def test_init_add_log_ls_verify(self):
        ledger = self.new_ledger()
        doc = self.json_lines("ledger", "init", ledger)[0]
        self.assertEqual(doc, {"ledger": ledger + "/", "created": True, "head": 0, "entries": 0})
        again = self.floe("ledger", "init", ledger).stdout.decode()
        self.assertIn("exists: head commit 0, 0 entries", again)
        etags = {k: self.put(k, f"body of {k}".encode()) for k in ODD_KEYS}

        add = self.json_lines("ledger", "add", "--writer", "backfill ünï", ledger, *[self.uri(k) for k in ODD_KEYS])[0]
        self.assertEqual(add["commit"], 1)
        self.assertEqual(add["writer"], "backfill ünï")
        self.assertEqual(add["already"], [])
        self.assertEqual([(e["key"], e["etag"]) for e in add["committed"]], [(k, etags[k]) for k in ODD_KEYS])
        for e in add["committed"]:
            self.assertEqual((e["bucket"], e["size"], e["version_id"]), (self.bucket, len(f"body of {e['key']}".encode()), ""))

        log = self.json_lines("ledger", "log", ledger)
        self.assertEqual([c["commit"] for c in log], [0, 1])
        self.assertEqual(log[0]["entries"], [])
        self.assertEqual(log[1]["writer"], "backfill ünï")
        self.assertRegex(log[1]["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(log[1]["entries"], add["committed"])
        self.assertEqual(len({c["write_id"] for c in log}), 2)
        text = self.floe("ledger", "log", ledger).stdout.decode().splitlines()
        self.assertRegex(text[0], r"^commit 0  \S+Z  0 entries  floe@[^/]+/\d+$")
        self.assertRegex(text[1], r"^commit 1  \S+Z  4 entries  backfill ünï$")
        self.assertEqual(text[2], f"  {len('body of in/a b.txt')} {etags['in/a b.txt']} - {self.uri('in/a b.txt')}")

        self.assertEqual(self.entries(ledger), {(self.bucket, k, etags[k]) for k in ODD_KEYS})
        lines = self.floe("ledger", "ls", ledger).stdout.decode().splitlines()
        # SIZE ETAG VERSION URI: the URI is the rest of the line, spaces and all.
        self.assertEqual({tuple(line.split(" ", 3)[1:]) for line in lines},
                         {(etags[k], "-", self.uri(k)) for k in ODD_KEYS})

        v = self.json_lines("ledger", "verify", ledger)[0]
        self.assertEqual((v["ok"], v["commits"], v["entries"], v["defect"]), (True, 2, 4, None))
        self.assertTrue(self.floe("ledger", "verify", ledger).stdout.startswith(b"ok: "))

    def test_add_of_registered_objects_commits_nothing(self):
        ledger = self.new_ledger()
        self.floe("ledger", "init", ledger)
        keys = ["again/one", "again/two words"]
        etags = {k: self.put(k, k.encode()) for k in keys}
        self.assertEqual(self.json_lines("ledger", "add", ledger, *[self.uri(k) for k in keys])[0]["commit"], 1)

        # The same objects (one given twice) again: exit 0, no commit.
        args = [self.uri(k) for k in keys] + [self.uri(keys[0])]
        doc = self.json_lines("ledger", "add", ledger, *args)[0]
        self.assertIsNone(doc["commit"])
        self.assertEqual(doc["committed"], [])
        self.assertEqual(sorted(e["key"] for e in doc["already"]), keys)
        self.assertIn(b"nothing new: 2 already registered", self.floe("ledger", "add", ledger, *args).stdout)
        self.assertEqual(len(self.json_lines("ledger", "log", ledger)), 2)

        # One new object among registered ones: a commit with that one only.
        etags["again/three"] = self.put("again/three", b"3")
        doc = self.json_lines("ledger", "add", ledger, *[self.uri(k) for k in ("again/one", "again/three")])[0]
        self.assertEqual((doc["commit"], [e["key"] for e in doc["committed"]]), (2, ["again/three"]))
        self.assertEqual([e["key"] for e in doc["already"]], ["again/one"])

        # The same key with other bytes is another entry (another ETag).
        etag2 = self.put("again/one", b"replaced")
        doc = self.json_lines("ledger", "add", ledger, self.uri("again/one"))[0]
        self.assertEqual((doc["commit"], doc["committed"][0]["etag"]), (3, etag2))
        self.assertEqual(self.entries(ledger),
                         {(self.bucket, k, etags[k]) for k in etags} | {(self.bucket, "again/one", etag2)})
        self.assertTrue(self.json_lines("ledger", "verify", ledger)[0]["ok"])

    def test_backfill_from_a_listing(self):
        # docs/cli.md's backfill: a listing piped through xargs, 2 objects per
        # add here (python3 in jq's place: jq is not a dependency).
        ledger = self.new_ledger()
        self.floe("ledger", "init", ledger)
        keys = [f"backfill/{i} {k[3:]}" for i, k in enumerate(ODD_KEYS)] + ["backfill/plain"]
        etags = {k: self.put(k, k.encode()) for k in keys}
        extract = ("import json, sys\n"
                   "for o in json.load(sys.stdin)['objects']: print('s3://%s/' % sys.argv[1] + o['key'])")
        pipeline = ('"$0" --json ls --recursive "s3://$1/backfill/" | python3 -c "$2" "$1" | '
                    'xargs -d "\\n" -n 2 "$0" ledger add "$3"')
        for _ in range(2):  # the second time: nothing new, still exit 0
            r = subprocess.run(["bash", "-c", "set -o pipefail; " + pipeline, FLOE, self.bucket, extract, ledger],
                               capture_output=True, env=self.env, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.decode().count("nothing new: "), 3)
        self.assertEqual(self.entries(ledger), {(self.bucket, k, etags[k]) for k in keys})
        self.assertEqual(len(self.json_lines("ledger", "log", ledger)), 4)

    def test_missing_object_fails_the_whole_add(self):
        ledger = self.new_ledger()
        self.floe("ledger", "init", ledger)
        present = self.uri("missing/present + here")
        self.put("missing/present + here", b"x")
        r = self.floe("ledger", "add", ledger, present, self.uri("missing/gone 100%"), rc=4)
        err = r.stderr.decode()
        self.assertIn(f"HeadObject {self.bucket}/missing/gone 100%: 404", err)
        self.assertIn("nothing committed", err)
        self.assertEqual(r.stdout, b"")
        self.assertEqual(len(self.json_lines("ledger", "log", ledger)), 1)
        self.assertEqual(self.entries(ledger), set())

    def test_no_ledger_there(self):
        ledger = self.uri("ledgers/none-" + uuid.uuid4().hex[:8])
        self.put("noledger/k", b"k")
        for args in (["ls", ledger], ["log", ledger], ["add", ledger, self.uri("noledger/k")]):
            r = self.floe("ledger", *args, rc=4)
            self.assertIn(b"no ledger here", r.stderr, args)
        v = self.json_lines("ledger", "verify", ledger, rc=1)[0]
        self.assertEqual((v["ok"], v["defect"]["kind"]), (False, "no_genesis"))
        r = self.floe("ledger", "init", f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/l", rc=4)
        self.assertIn(b"NoSuchBucket", r.stderr)

    # ---- verify finds defects ----------------------------------------------

    def registered(self, name):
        ledger = self.new_ledger()
        self.floe("ledger", "init", ledger)
        keys = [f"{name}/a", f"{name}/b ü"]
        for k in keys:
            self.put(k, k.encode())
        self.floe("ledger", "add", ledger, *[self.uri(k) for k in keys])
        return ledger

    def test_verify_names_a_corrupted_commit(self):
        ledger = self.registered("corrupt")
        commit1 = ledger[len(f"s3://{self.bucket}/"):] + "/_log/00000000000000000001.json"
        self.floe("put", self.uri(commit1), input=b'{"floe_ledger":1,"kind":"commit","commit":1,')
        r = self.floe("ledger", "verify", ledger, rc=1)
        self.assertTrue(r.stdout.startswith(b"defect: "), r.stdout)
        self.assertIn(f"commit_malformed at {self.uri(commit1)}".encode(), r.stderr)
        v = self.json_lines("ledger", "verify", ledger, rc=1)[0]
        self.assertEqual((v["ok"], v["defect"]["kind"], v["defect"]["object"]), (False, "commit_malformed", commit1))
        # Readers stop there too, naming it.
        r = self.floe("ledger", "ls", ledger, rc=1)
        self.assertIn(commit1.encode(), r.stderr)

    def test_verify_names_an_entry_registered_twice(self):
        ledger = self.registered("twice")
        first = self.json_lines("ledger", "log", ledger)[1]["entries"][1]
        prefix = ledger[len(f"s3://{self.bucket}/"):] + "/"
        forged = {"floe_ledger": 1, "kind": "commit", "commit": 2, "write_id": "forged0000000000000.2",
                  "writer": "a test", "time": "2025-01-02T03:04:05Z",
                  "entries": [[first["bucket"], first["key"], first["etag"], first["size"]]]}
        self.floe("put", self.uri(prefix + "_log/00000000000000000002.json"), "--if-none-match", "*",
                  input=json.dumps(forged).encode())
        v = self.json_lines("ledger", "verify", ledger, rc=1)[0]
        self.assertEqual((v["defect"]["kind"], v["defect"]["object"]),
                         ("entry_twice", prefix + "_log/00000000000000000002.json"))
        self.assertIn("twice/b ü", v["defect"]["message"])

    # ---- usage ------------------------------------------------------------

    def test_usage_errors(self):
        ledger = self.new_ledger()
        for args in (["ledger"], ["ledger", "init"], ["ledger", "bogus", ledger], ["ledger", "add", ledger],
                     ["ledger", "ls", ledger, "extra"], ["ledger", "log", ledger, "--writer", "w"],
                     ["ledger", "verify", ledger, "--concurrency", "2"], ["ledger", "add", ledger, self.uri("")],
                     ["ledger", "add", ledger, self.uri("k"), "--concurrency", "0"],
                     ["ledger", "add", ledger, self.uri("k"), "--writer", ""],
                     ["ledger", "init", "s3://" + self.bucket + "/a//b"], ["ledger", "init", "/tmp/x"]):
            r = self.run_floe(*args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr!r}")
            self.assertEqual(r.stderr.count(b"\n"), 1, r.stderr)
        self.assertEqual(self.json_lines("ledger", "verify", ledger, rc=1)[0]["defect"]["kind"], "no_genesis")

    # ---- eight concurrent add loops -----------------------------------------

    def test_eight_concurrent_add_loops_register_each_object_once(self):
        ledger = self.new_ledger()
        self.floe("ledger", "init", ledger)
        keys = [f"loop/{i:02d} {ODD_KEYS[i % 4][3:]}" for i in range(LOOP_OBJECTS)]
        etags = {k: self.put(k, f"loop object {k}".encode()) for k in keys}
        orders = []
        for i in range(LOOPS):
            order = list(keys)
            random.Random(i).shuffle(order)
            orders.append(order)
        start = time.monotonic()
        procs = [subprocess.Popen(["bash", os.path.join(HERE, "ledger_add_loop.sh"), FLOE, ledger, str(LOOP_CHUNK)] +
                                  [self.uri(k) for k in order],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
                 for order in orders]
        docs = []
        # Each add prints its line: an add, not the 64 of them, is what is
        # bounded (under ASan on two busy cores the whole took 385 s here).
        for rc, out, err in cli_support.wait_for_loops(procs, step_limit=300):
            self.assertEqual(rc, 0, f"a loop failed: {err.decode()!r}")
            docs += [json.loads(line) for line in out.decode().splitlines()]
        self.assertEqual(len(docs), LOOPS * LOOP_OBJECTS // LOOP_CHUNK)

        expected = {(self.bucket, k, etags[k]) for k in keys}
        committed = collections.Counter((e["bucket"], e["key"], e["etag"]) for d in docs for e in d["committed"])
        self.assertEqual(set(committed), expected)
        self.assertEqual(max(committed.values()), 1, "an object was registered twice")
        self.assertEqual(sum(len(d["already"]) for d in docs), (LOOPS - 1) * LOOP_OBJECTS)

        # The log says the same: each add that wrote is its commit, entries and writer.
        log = self.json_lines("ledger", "log", ledger)
        self.assertEqual([c["commit"] for c in log], list(range(len(log))))
        wrote = {d["commit"]: d for d in docs if d["commit"] is not None}
        self.assertEqual(sorted(wrote), list(range(1, len(log))))
        for c in log[1:]:
            self.assertEqual((c["writer"], c["entries"]), (wrote[c["commit"]]["writer"], wrote[c["commit"]]["committed"]))
        self.assertEqual(self.entries(ledger), expected)
        v = self.json_lines("ledger", "verify", ledger)[0]
        self.assertEqual((v["ok"], v["commits"], v["entries"]), (True, len(log), LOOP_OBJECTS))

        races = sum(d["lost_races"] + d["conflicts"] for d in docs)
        print(f"{STORE}: {LOOPS} loops x {LOOP_OBJECTS} objects in chunks of {LOOP_CHUNK}: {len(log) - 1} commits, "
              f"{races} lost races and conflicts, {time.monotonic() - start:.1f} s")
        self.assertGreater(races, 0, "no two adds ever raced for a commit number: the test proved nothing")


class LedgerDocs(unittest.TestCase):
    """docs/cli.md's `floe ledger` rows name exactly the options of
    `floe ledger --help` (test_cli.py checks the other commands so)."""

    def test_reference_matches_help(self):
        def options_in(text):
            return set(re.findall(r"--[a-z][a-z-]*", text))
        r = subprocess.run([FLOE, "ledger", "--help"], capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        h = r.stdout.decode()
        own = options_in(h.split("Global options")[0].split("\nOptions:\n")[1])
        glob = options_in(h.split("Global options")[1])
        self.assertEqual(own, {"--writer", "--concurrency"})
        with open(os.path.join(HERE, "..", "..", "..", "docs", "cli.md"), encoding="utf-8") as fh:
            text = fh.read()
        section = text[text.index("## Commands and options"):]
        section = section[:section.index("\n## ", 1)]
        rows = " ".join(line.split("|")[1] for line in section.splitlines() if line.startswith("| `floe ledger"))
        self.assertTrue(rows, "docs/cli.md: no row for floe ledger")
        self.assertEqual(own - options_in(rows), set())
        self.assertEqual(options_in(rows) - own - glob, set())
        overview = subprocess.run([FLOE, "--help"], capture_output=True, timeout=30).stdout.decode()
        self.assertIn("ledger", overview)


def main():
    global FLOE, STORE
    if len(sys.argv) != 3 or sys.argv[2] not in ("rgw", "moto"):
        sys.exit("usage: test_ledger_cli.py PATH_TO_FLOE rgw|moto")
    FLOE, STORE = sys.argv[1], sys.argv[2]
    loader = unittest.TestLoader()
    suite = loader.loadTestsFromTestCase(LedgerCli)
    if STORE == "moto":
        suite.addTests(loader.loadTestsFromTestCase(LedgerDocs))
    return cli_support.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
