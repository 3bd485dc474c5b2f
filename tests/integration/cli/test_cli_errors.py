#!/usr/bin/env python3
"""The CLI's exit codes and error lines against moto and a Ceph RGW through
the test proxy with its SigV4 verifier on: not found (4), a lost condition
or a conflict (3, Ceph's 409 ConcurrentModification too), ambiguous writes
resolved by floe's write id, a denied signature, -v / --debug logs that
show each attempt and no secret, retries, rm --if-match, and a recursive rm
whose second batch is refused.

  test_cli_errors.py PATH_TO_FLOE

Needs FLOE_TEST_PROXY_ENDPOINT and FLOE_TEST_PROXY_CONTROL, and for RGW
FLOE_TEST_RGW_PROXY_ENDPOINT, FLOE_TEST_RGW_PROXY_CONTROL,
FLOE_TEST_RGW_ACCESS_KEY and FLOE_TEST_RGW_SECRET_KEY (scripts/test exports
them all from tests/support/servers.py); without RGW the run fails. Every
case of CliErrors runs against both (cli_support.CliCase: a bucket per
class, the proxy's rules). Prints "floe-cases: N passed, M failed".
"""
import hashlib
import json
import os
import sys
import tempfile
import uuid

import cli_support
from cli_support import CliCase, control


class CliErrors(CliCase):

    def test_rm_recursive_second_batch_fails(self):
        # 1001 keys: two DeleteObjects batches; the second is refused. The
        # keys the first deleted are still printed, the error is reported and
        # decides the exit code, and the key left over is still there.
        with tempfile.TemporaryDirectory(prefix="floe-cli-rmstop-") as d:
            for i in range(1001):
                with open(os.path.join(d, f"k{i:05d}"), "wb") as f:
                    f.write(b"x")
            self.floe("cp", "--recursive", "--concurrency", "16", d + "/", self.uri("rmstop/"))
        listed = json.loads(self.floe("--json", "ls", "-r", self.uri("rmstop/")).stdout)
        keys = [o["key"] for o in listed["objects"]]
        self.assertEqual(len(keys), 1001)
        rid = self.add_rule({"match": {"method": "POST", "path": f"^/{self.bucket}/?$", "query": "^delete$"},
                             "trigger": {"nth": [2]},
                             "action": {"type": "reply", "status": 403, "headers": {"Content-Type": "application/xml"},
                                        "body": "<Error><Code>AccessDenied</Code><Message>denied by the test</Message>"
                                                "<RequestId>tx-rmstop</RequestId></Error>"}})
        r = self.floe("--json", "rm", "--recursive", self.uri("rmstop"), rc=1)
        self.assertEqual(self.rule_fired(rid), 1)
        out = json.loads(r.stdout)
        self.assertEqual(out["deleted"], keys[:1000])
        self.assertEqual(out["not_done"], keys[1000:])
        self.assertIn("AccessDenied", r.stderr.decode())
        left = json.loads(self.floe("--json", "ls", "-r", self.uri("rmstop/")).stdout)
        self.assertEqual([o["key"] for o in left["objects"]], keys[1000:])

    # ---- exit codes and error lines -----------------------------------------

    def test_not_found_exit_4_one_line(self):
        r = self.floe("cat", self.uri("missing/key"), rc=4)
        line = r.stderr.decode()
        self.assertEqual(line.count("\n"), 1, line)
        for part in ("GetObject", f"{self.bucket}/missing/key", "404", "NoSuchKey", "request id"):
            self.assertIn(part, line)
        r = self.floe("stat", self.uri("missing/key"), rc=4)
        self.assertIn("HeadObject", r.stderr.decode())
        r = self.floe("ls", "s3://floe-cli-no-such-bucket-" + uuid.uuid4().hex[:8] + "/", rc=4)
        self.assertIn(b"NoSuchBucket", r.stderr)

    def test_json_error_parsed_back(self):
        r = self.floe("--json", "cat", self.uri("missing/json"), rc=4)
        err = json.loads(r.stderr)["error"]
        self.assertEqual(err["kind"], "not_found")
        self.assertEqual(err["status"], 404)
        self.assertEqual(err["code"], "NoSuchKey")
        self.assertEqual(err["operation"], "GetObject")
        self.assertEqual(err["resource"], f"{self.bucket}/missing/json")
        self.assertEqual(err["exit_code"], 4)
        self.assertTrue(err["request_id"])

    def test_conditional_put_exit_3(self):
        key = "cond/create-only"
        first = self.floe("put", self.uri(key), "--if-none-match", "*", input=b"v1").stdout.decode().strip()
        r = self.floe("put", self.uri(key), "--if-none-match", "*", input=b"v2", rc=3)
        line = r.stderr.decode()
        self.assertEqual(line.count("\n"), 1, line)
        for part in ("PutObject", "412", "PreconditionFailed"):
            self.assertIn(part, line)
        self.floe("put", self.uri(key), "--if-match", "0" * 32, input=b"v3", rc=3)
        second = self.floe("put", self.uri(key), "--if-match", first, input=b"v4").stdout.decode().strip()
        self.assertEqual(self.floe("cat", self.uri(key)).stdout, b"v4")
        r = self.floe("--json", "put", self.uri(key), "--if-match", first, input=b"v5", rc=3)
        self.assertEqual(json.loads(r.stderr)["error"]["kind"], "precondition_failed")
        self.assertEqual(self.stat_json(key)["etag"], second)

    def test_stat_if_none_match(self):
        key = "cond/stat"
        etag = self.floe("put", self.uri(key), input=b"same").stdout.decode().strip()
        r = self.floe("stat", self.uri(key), "--if-none-match", etag, rc=3)
        self.assertIn(b"not modified", r.stderr)
        j = json.loads(self.floe("--json", "stat", self.uri(key), "--if-none-match", f'"{etag}"', rc=3).stdout)
        self.assertTrue(j["not_modified"])
        j = json.loads(self.floe("--json", "stat", self.uri(key), "--if-none-match", "0" * 32).stdout)
        self.assertFalse(j["not_modified"])
        self.assertEqual(j["etag"], etag)
        self.floe("stat", self.uri(key), "--if-match", "0" * 32, rc=3)
        self.floe("stat", self.uri(key), "--if-match", etag)

    def test_wrong_secret_is_denied(self):
        env = self.env(AWS_SECRET_ACCESS_KEY="not-the-secret")
        r = self.floe("cat", self.uri("any"), rc=1, env=env)
        line = r.stderr.decode()
        self.assertIn("403", line)
        self.assertIn("SignatureDoesNotMatch", line)
        self.assertNotIn("not-the-secret", line)

    def test_debug_log_redacts(self):
        token = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789"
        env = self.env(AWS_SESSION_TOKEN=token)
        r = self.floe("-v", "put", self.uri("debug/k"), input=b"x", env=env)
        r2 = self.floe("--debug", "cat", self.uri("debug/missing"), rc=4, env=env)
        r3 = self.floe("--debug", "put", self.uri("debug/k2"), "--if-none-match", "*", input=b"y", env=env)
        log = (r.stderr + r2.stderr + r3.stderr).decode()
        # One line per HTTP attempt: operation, attempt, method, URL, status, request id, time.
        self.assertRegex(log, r"floe: debug: \[PutObject #1\] PUT http://\S+/debug/k -> 200 request-id \S+ \(\d+ ms, ")
        self.assertRegex(log, r"\[GetObject #1\] GET \S+/debug/missing -> 404 request-id \S+")
        # The per-operation summary keeps the store's error code.
        self.assertRegex(log, r"GetObject GET \S+/debug/missing -> 404 NoSuchKey request-id \S+")
        self.assertIn(f"/{self.bucket}/debug/k -> ok", log)
        # --debug shows headers, the secret ones redacted.
        self.assertIn("> Authorization: REDACTED", r2.stderr.decode())
        self.assertIn("> X-Amz-Security-Token: REDACTED", r2.stderr.decode())
        self.assertIn("> x-amz-meta-floe-write-id: ", r3.stderr.decode())
        self.assertRegex(r2.stderr.decode(), r"(?i)< x-amzn?-request-?id: \S+")  # moto: x-amzn-requestid
        self.assertNotIn("> Authorization: REDACTED", r.stderr.decode())  # -v: no headers
        for secret in (self.target.secret, token, "Signature=", "Credential=", self.target.akid):
            self.assertNotIn(secret, log)

    def test_debug_log_shows_each_retry(self):
        self.floe("put", self.uri("debug/retried"), input=b"r")
        self.add_rule({"match": {"method": "GET", "path": f"/{self.bucket}/debug/retried$"}, "trigger": {"nth": [1]},
                       "action": {"type": "reply", "status": 503,
                                  "body": "<Error><Code>SlowDown</Code><Message>slow</Message></Error>"}})
        r = self.floe("-v", "cat", self.uri("debug/retried"))
        self.assertEqual(r.stdout, b"r")
        log = r.stderr.decode()
        self.assertRegex(log, r"\[GetObject #1\] GET \S+/debug/retried -> 503 ")
        self.assertRegex(log, r"\[GetObject #2\] GET \S+/debug/retried -> 200 ")

    def test_conflict_exit_3(self):
        key_c = "faults/conflict"
        etag_c = self.floe("put", self.uri(key_c), input=b"c0").stdout.decode().strip()
        ceph_409 = ('<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConcurrentModification</Code>'
                    '<Message>concurrent modification</Message><RequestId>tx-cli-409</RequestId></Error>')
        self.add_rule({"match": {"method": "PUT", "path": f"/{self.bucket}/{key_c}$"},
                       "action": {"type": "reply", "status": 409, "body": ceph_409,
                                  "headers": {"Content-Type": "application/xml"}}})
        r = self.floe("put", self.uri(key_c), "--if-match", etag_c, input=b"c1", rc=3)
        line = r.stderr.decode()
        self.assertEqual(line.count("\n"), 1, line)
        for part in ("PutObject", "409", "ConcurrentModification", "nothing was written"):
            self.assertIn(part, line)

    CEPH_500 = ('<?xml version="1.0" encoding="UTF-8"?><Error><Code>UnknownError</Code>'
                '<Message></Message><RequestId>tx-cli-500</RequestId></Error>')

    def ambiguous_rule(self, key, action, if_match_the_store_takes=False):
        match = {"method": "PUT", "path": f"/{self.bucket}/{key}$"}
        if if_match_the_store_takes:
            # Ceph RGW 16.2 answers a quoted If-Match on a write with 412 and
            # takes it unquoted (floe retries so): fault only the one it takes.
            match["header"] = {"If-Match": '^[^"]' if self.target.name == "rgw" else '^"'}
        return self.add_rule({"match": match, "action": action})

    def test_ambiguous_put_finds_its_own_write_exit_0(self):
        # The store took the write; the reply was replaced by a 500, or cut.
        for n, action in enumerate(({"type": "reply", "when": "after", "status": 500, "body": self.CEPH_500,
                                     "headers": {"Content-Type": "application/xml"}},
                                    {"type": "cut", "when": "after"})):
            key = f"faults/ambiguous-landed-{n}"
            etag = self.floe("put", self.uri(key), input=b"v0").stdout.decode().strip()
            rid = self.ambiguous_rule(key, action, if_match_the_store_takes=True)
            r = self.floe("put", self.uri(key), "--if-match", etag, input=b"v1")
            self.assertEqual(r.stdout.decode().strip(), hashlib.md5(b"v1").hexdigest())
            self.assertEqual(r.stderr, b"")
            self.assertEqual(self.rule_fired(rid), 1)
            self.assertEqual(self.floe("cat", self.uri(key)).stdout, b"v1")
            meta = self.stat_json(key)["metadata"]
            self.assertRegex(meta.get("floe-write-id", ""), r"^[a-z0-9]{20}$")
        # Create-only, reply cut after the store took it.
        key = "faults/ambiguous-created"
        rid = self.ambiguous_rule(key, {"type": "cut", "when": "after"})
        r = self.floe("--json", "put", self.uri(key), "--if-none-match", "*", input=b"new")
        self.assertEqual(json.loads(r.stdout)["etag"], hashlib.md5(b"new").hexdigest())
        self.assertEqual(self.rule_fired(rid), 1)

    def test_ambiguous_put_finds_another_version_exit_3(self):
        # Not forwarded: the store never saw it, and what is there says so.
        key = "faults/ambiguous-not-landed"
        etag = self.floe("put", self.uri(key), input=b"w0").stdout.decode().strip()
        self.ambiguous_rule(key, {"type": "reply", "when": "before", "status": 500, "body": self.CEPH_500,
                                  "headers": {"Content-Type": "application/xml"}})
        r = self.floe("put", self.uri(key), "--if-match", etag, input=b"w1", rc=3)
        line = r.stderr.decode()
        self.assertEqual(line.count("\n"), 1, line)
        for part in ("PutObject", "500", "UnknownError", "ambiguous", "still has ETag " + etag, "did not land"):
            self.assertIn(part, line)
        # Another writer's version is there: create-only over an existing key.
        r = self.floe("--json", "put", self.uri(key), "--if-none-match", "*", input=b"w2", rc=3)
        err = json.loads(r.stderr)["error"]
        self.assertEqual(err["kind"], "conflict")
        self.assertEqual(err["exit_code"], 3)
        self.assertIn("ambiguous", err["message"])
        self.assertIn("another version there (ETag " + etag, err["message"])
        self.assertIn("not written by a conditional floe put", err["message"])
        # Nothing there at all: the connection cut before the store saw it.
        gone = "faults/ambiguous-nothing"
        self.ambiguous_rule(gone, {"type": "cut", "when": "before"})
        r = self.floe("put", self.uri(gone), "--if-none-match", "*", input=b"z", rc=3)
        self.assertIn(b"no object there: this write did not land", r.stderr)
        self.assertEqual(self.floe("cat", self.uri(key)).stdout, b"w0")

    def test_ambiguous_put_unresolved_exit_1(self):
        # The HEAD that would resolve it is refused: the outcome stays unknown.
        key = "faults/ambiguous-unresolved"
        etag = self.floe("put", self.uri(key), input=b"u0").stdout.decode().strip()
        self.ambiguous_rule(key, {"type": "reply", "when": "after", "status": 500, "body": self.CEPH_500,
                                  "headers": {"Content-Type": "application/xml"}})
        self.add_rule({"match": {"method": "HEAD", "path": f"/{self.bucket}/{key}$"},
                       "action": {"type": "reply", "status": 503, "body": ""}})
        r = self.floe("--json", "put", self.uri(key), "--if-match", etag, input=b"u1", rc=1)
        err = json.loads(r.stderr)["error"]
        self.assertEqual(err["kind"], "unknown_outcome")
        self.assertEqual(err["status"], 500)
        self.assertIn("could not resolve", err["message"])

    def test_ambiguous_put_looks_again_while_undecided(self):
        # The store took the write, the reply was a 500; the first HeadObject
        # shows a version with no write id (as a store that shows metadata
        # late does): the CLI looks again, as the library does
        # (s3::async_resolve_ambiguous_put), finds its write id, exits 0.
        key = "faults/ambiguous-late-metadata"
        etag = self.floe("put", self.uri(key), input=b"m0").stdout.decode().strip()
        # On RGW the first HEAD is the quoted-ETag fallback's (each floe
        # process learns the quirk anew); the ambiguous reply's look is next.
        rgw = self.target.name == "rgw"
        heads = self.add_rule({"match": {"method": "HEAD", "path": f"/{self.bucket}/{key}$"},
                               "trigger": {"nth": [2]} if rgw else {"first": 1},
                               "action": {"type": "reply", "status": 200,
                                          "headers": {"ETag": '"' + "f" * 32 + '"'}}})
        rid = self.ambiguous_rule(key, {"type": "reply", "when": "after", "status": 500, "body": self.CEPH_500,
                                        "headers": {"Content-Type": "application/xml"}},
                                  if_match_the_store_takes=True)
        r = self.floe("put", self.uri(key), "--if-match", etag, input=b"m1")
        self.assertEqual(r.stdout.decode().strip(), hashlib.md5(b"m1").hexdigest())
        self.assertEqual(r.stderr, b"")
        self.assertEqual(self.rule_fired(rid), 1)
        self.assertEqual(self.rule_fired(heads), 1)
        rule = control(self.target.control, "GET", f"/rules/{heads}")
        self.assertEqual(rule["matched"], 3 if rgw else 2, "one undecided look, then one that found the write id")

    def test_transient_error_is_retried(self):
        self.floe("put", self.uri("faults/slow"), input=b"eventually")
        self.add_rule({"match": {"method": "GET", "path": f"/{self.bucket}/faults/slow$"}, "trigger": {"nth": [1]},
                       "action": {"type": "reply", "status": 503,
                                  "body": "<Error><Code>SlowDown</Code><Message>slow</Message></Error>"}})
        r = self.floe("-v", "cat", self.uri("faults/slow"))
        self.assertEqual(r.stdout, b"eventually")

    # ---- rm --if-match -----------------------------------------------------------------

    def test_rm_if_match(self):
        key = "cond/rm-if-match"
        etag = self.floe("put", self.uri(key), input=b"keep me").stdout.decode().strip()
        if self.target.name == "rgw":
            # Ceph RGW 16.2 ignores If-Match on DeleteObject: floe finds out
            # (a probe on a key that does not exist) and refuses rather than
            # delete unconditionally: exit 1, the object kept.
            r = self.floe("rm", self.uri(key), "--if-match", etag, rc=1)
            self.assertIn(b"DeleteObject", r.stderr)
            self.assertEqual(self.floe("cat", self.uri(key)).stdout, b"keep me")
            return
        # A stale ETag: exit 3, one line, the object kept.
        r = self.floe("rm", self.uri(key), "--if-match", "0" * 32, rc=3)
        line = r.stderr.decode()
        self.assertEqual(line.count("\n"), 1, line)
        for part in ("DeleteObject", f"{self.bucket}/{key}", "412"):
            self.assertIn(part, line)
        self.assertEqual(self.floe("cat", self.uri(key)).stdout, b"keep me")
        r = self.floe("--json", "rm", self.uri(key), "--if-match", f'"{"1" * 32}"', rc=3)
        self.assertEqual(json.loads(r.stderr)["error"]["kind"], "precondition_failed")
        self.assertEqual(self.stat_json(key)["etag"], etag)
        # The right one (quoted or not): deleted.
        out = json.loads(self.floe("--json", "rm", self.uri(key), "--if-match", etag).stdout)
        self.assertEqual(out, {"deleted": [key], "errors": []})
        self.floe("cat", self.uri(key), rc=4)


if __name__ == "__main__":
    sys.exit(cli_support.main([CliErrors]))
