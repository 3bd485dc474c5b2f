#!/usr/bin/env python3
"""`floe --deadline SECONDS` against moto through the test proxy.

  test_deadline_cli.py PATH_TO_FLOE

Cases: a GET whose reply the proxy holds ends at the deadline with the
timeout's words (exit not 0, the budget named) and well before the read
timeout; the same GET with no hold succeeds under the same deadline; a bad
value is a usage error naming it. Prints "floe-cases: N passed, M failed".
"""
import json
import os
import subprocess
import sys
import time
import unittest
import urllib.request

import cli_support

FLOE = None
BUCKET = "cli-deadline-case"


def control(path, body=None, method=None):
    base = os.environ["FLOE_TEST_PROXY_CONTROL"]
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method or ("POST" if data else "GET"),
                                 headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


class Deadline(unittest.TestCase):
    def run_floe(self, args):
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        # The CLI suites' moto keys: the proxy is shared with the tests
        # running beside this one (its verifier may be on with those keys).
        moto = cli_support.targets(("moto",))[0]
        env.update({"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1",
                    "AWS_ACCESS_KEY_ID": moto.akid, "AWS_SECRET_ACCESS_KEY": moto.secret})
        cmd = [FLOE, "--endpoint-url", os.environ["FLOE_TEST_PROXY_ENDPOINT"], "--path-style"] + args
        t0 = time.monotonic()
        p = subprocess.run(cmd, env=env, capture_output=True, timeout=60)
        return p.returncode, p.stdout.decode(), p.stderr.decode(), time.monotonic() - t0

    def setUp(self):
        # No /reset and no verifier switch: the proxy is shared with the
        # tests running beside this one; this case deletes its own rule.
        self.run_floe(["mb", "s3://" + BUCKET])  # made now, or by an earlier case

    def put(self):
        src = os.path.join(os.environ.get("TMPDIR", "/tmp"), "floe-deadline-src")
        with open(src, "w") as f:
            f.write("deadline body\n")
        rc, _, err, _ = self.run_floe(["cp", src, "s3://%s/k" % BUCKET])
        self.assertEqual(rc, 0, err)

    def test_held_reply_ends_at_the_deadline(self):
        self.put()
        rule = control("/rules", {"match": {"method": "GET", "path": "^/%s/k$" % BUCKET}, "trigger": {"every": True},
                                  "action": {"type": "hold"}})["id"]
        try:
            rc, out, err, took = self.run_floe(["--deadline", "0.5", "cat", "s3://%s/k" % BUCKET])
        finally:
            control("/rules/%d" % rule, method="DELETE")
        self.assertNotEqual(rc, 0)
        self.assertEqual(out, "")
        self.assertIn("deadline of 500 ms ran out", err)
        self.assertLess(took, 20)  # the read timeout (30 s) did not end it

    def test_quick_reply_within_the_deadline(self):
        self.put()
        rc, out, err, _ = self.run_floe(["--deadline", "10", "cat", "s3://%s/k" % BUCKET])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "deadline body\n")

    def test_bad_value_is_a_usage_error(self):
        rc, _, err, _ = self.run_floe(["--deadline", "soon", "ls"])
        self.assertEqual(rc, 2)
        self.assertIn("'soon'", err)


def main():
    global FLOE
    if len(sys.argv) != 2:
        return cli_support.cannot_run("usage: test_deadline_cli.py PATH_TO_FLOE")
    FLOE = sys.argv[1]
    if not os.environ.get("FLOE_TEST_PROXY_ENDPOINT") or not os.environ.get("FLOE_TEST_PROXY_CONTROL"):
        return cli_support.cannot_run("FLOE_TEST_PROXY_ENDPOINT / FLOE_TEST_PROXY_CONTROL are not set: run "
                                      "scripts/test, which starts moto and the test proxy")
    return cli_support.run_suite(unittest.TestLoader().loadTestsFromTestCase(Deadline))


if __name__ == "__main__":
    sys.exit(main())
