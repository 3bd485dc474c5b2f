#!/usr/bin/env python3
"""Eight concurrent bash loops, each running the built `floe` binary, make
read-modify-write increments of one counter object; the final count is exact.

  test_shell_loops.py PATH_TO_FLOE STORE     STORE: rgw | moto

Each loop (counter_loop.sh) reads the counter and its ETag with `floe stat`
(one HeadObject: the count is user metadata of the same version the ETag
names) and writes count+1 with `floe put --if-match ETAG`, reading again on
exit 3. The body is the count as well, so no two versions share an ETag
(If-Match compares ETags, which hash the body only).

rgw: the real Ceph RGW that scripts/test starts (FLOE_TEST_RGW_ENDPOINT,
FLOE_TEST_RGW_ACCESS_KEY, FLOE_TEST_RGW_SECRET_KEY), reached directly. It
answers a lost race with 409 ConcurrentModification or 500 UnknownError, so
this also runs floe put's resolution of ambiguous replies.
moto: FLOE_TEST_MOTO_ENDPOINT through a private test proxy told to serialize
exchanges per object (POST /serialize): moto checks a PUT's If-Match and
stores the object in separate steps under a threaded server, so two writes
on one base can both win there (tests/support/moto_if_match_race.py); the
proxy gives it the per-object atomicity AWS and RGW have.
Prints "floe-cases: N passed, M failed".
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

import cli_support

FLOE = None
STORE = None
LOOPS = 8
INCREMENTS = 5
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))


class ShellLoops(unittest.TestCase):
    def setUp(self):
        if STORE == "rgw":
            names = ("FLOE_TEST_RGW_ENDPOINT", "FLOE_TEST_RGW_ACCESS_KEY", "FLOE_TEST_RGW_SECRET_KEY")
        else:
            names = ("FLOE_TEST_MOTO_ENDPOINT",)
        missing = [n for n in names if not os.environ.get(n)]
        self.assertFalse(missing, f"{', '.join(missing)} not set: run scripts/test, or start the servers with\n"
                                  "  eval \"$(python3 tests/support/servers.py start build/test-servers)\"")
        for tool in ("bash", "sed", "mktemp"):
            self.assertTrue(any(os.access(os.path.join(d, tool), os.X_OK) for d in os.environ["PATH"].split(":")),
                            f"{tool} is not installed (apt-get install bash sed coreutils)")
        self.home = tempfile.TemporaryDirectory(prefix="floe-loops-home-")
        self.addCleanup(self.home.cleanup)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy")}
        env.update({"HOME": self.home.name, "AWS_EC2_METADATA_DISABLED": "true"})
        if STORE == "rgw":
            self.endpoint = os.environ["FLOE_TEST_RGW_ENDPOINT"]
            env.update({"AWS_ACCESS_KEY_ID": os.environ["FLOE_TEST_RGW_ACCESS_KEY"],
                        "AWS_SECRET_ACCESS_KEY": os.environ["FLOE_TEST_RGW_SECRET_KEY"]})
        else:
            from proxy.server import ProxyThread
            px = ProxyThread(os.environ["FLOE_TEST_MOTO_ENDPOINT"],
                             log_path=os.path.join(self.home.name, "proxy.log")).start()
            self.addCleanup(px.stop)
            self.assertEqual(px.serialize(True), {"enabled": True})
            self.endpoint = px.endpoint
            env.update({"AWS_ACCESS_KEY_ID": "AKIDFLOELOOPS01", "AWS_SECRET_ACCESS_KEY": "loops-secret"})
        # Every floe the loops start talks to this endpoint.
        env["AWS_ENDPOINT_URL_S3"] = self.endpoint
        self.env = env
        self.bucket = "floe-loops-" + uuid.uuid4().hex[:12]
        self.floe_ok("mb", f"s3://{self.bucket}")
        self.addCleanup(self.cleanup_bucket)

    def cleanup_bucket(self):
        self.run_floe("rm", "--recursive", f"s3://{self.bucket}")
        self.run_floe("rb", f"s3://{self.bucket}")

    def run_floe(self, *args, input=None):
        return subprocess.run([FLOE] + list(args), input=input, capture_output=True, env=self.env, timeout=120)

    def floe_ok(self, *args, input=None):
        r = self.run_floe(*args, input=input)
        self.assertEqual(r.returncode, 0, f"floe {' '.join(args)}: {r.stderr!r}")
        return r

    def test_eight_loops_count_exactly(self):
        uri = f"s3://{self.bucket}/counter"
        self.floe_ok("put", uri, "--metadata", "count=0", input=b"0")
        start = time.monotonic()
        procs = [subprocess.Popen(["bash", os.path.join(HERE, "counter_loop.sh"), FLOE, uri, str(INCREMENTS)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
                 for _ in range(LOOPS)]
        retries = 0
        # Each attempt (a stat and a put) prints a line: an attempt, not the
        # whole run of hundreds of floe processes on a busy machine, is what
        # is bounded.
        for rc, out, err in cli_support.wait_for_loops(procs, step_limit=300):
            self.assertEqual(rc, 0, f"a loop failed: {err.decode()!r}")
            last = out.decode().splitlines()[-1]
            self.assertRegex(last, r"^retries \d+$")
            retries += int(last.split()[1])
        expected = LOOPS * INCREMENTS
        st = self.floe_ok("--json", "stat", uri).stdout.decode()
        meta = json.loads(st)["metadata"]
        body = self.floe_ok("cat", uri).stdout.decode()
        print(f"{STORE}: {LOOPS} loops x {INCREMENTS} increments: count {meta.get('count')}, body {body}, "
              f"{retries} re-reads after exit 3, {time.monotonic() - start:.1f} s")
        self.assertEqual(meta.get("count"), str(expected))
        self.assertEqual(body, str(expected))
        self.assertGreater(retries, 0, "eight concurrent loops never raced: the test proved nothing")


def main():
    global FLOE, STORE
    if len(sys.argv) != 3 or sys.argv[2] not in ("rgw", "moto"):
        sys.exit("usage: test_shell_loops.py PATH_TO_FLOE rgw|moto")
    FLOE, STORE = sys.argv[1], sys.argv[2]
    return cli_support.run_suite(unittest.TestLoader().loadTestsFromTestCase(ShellLoops))


if __name__ == "__main__":
    sys.exit(main())
