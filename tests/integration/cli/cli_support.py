"""What the CLI's store-backed test files share: the stores (moto and Ceph
RGW behind the test proxy, its SigV4 verifier on; OpenStack Swift too for
the files that ask for it), a bucket per test class,
running floe and `aws s3` (the reference for output) against the same store,
counting requests through the proxy, and the runner that prints
"floe-cases: N passed, M failed" (run_suite, cannot_run: every test file of
this folder ends with them).
"""
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request
import uuid

FLOE = None  # set by main()


def control(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


def direct_opener():
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def wait_for_loops(procs, step_limit):
    """Waits for concurrent shell loops (Popen, stdout and stderr piped) that
    print one line per step they finish (one floe run or two), and returns
    [(returncode, stdout, stderr)] in their order. What bounds them is a
    step, not the whole run: a loop that neither prints a line nor exits
    for `step_limit` seconds fails the test (every loop killed), so a hung
    loop is still caught, while a slower machine (a sanitizer's start-up per
    process, two cores shared) only makes the steps slower.
    """
    out = [[b"", b""] for _ in procs]
    last = [time.monotonic()] * len(procs)
    sel = selectors.DefaultSelector()
    for i, p in enumerate(procs):
        for which, pipe in ((0, p.stdout), (1, p.stderr)):
            os.set_blocking(pipe.fileno(), False)
            sel.register(pipe, selectors.EVENT_READ, (i, which))
    finished = False
    try:
        while sel.get_map():
            now = time.monotonic()
            open_ = {key.data[0] for key in sel.get_map().values()}
            stuck = [i for i in open_ if now - last[i] > step_limit]
            if stuck:
                i = stuck[0]
                raise AssertionError(f"loop {i} finished no step in {step_limit} s; its output so far: "
                                     f"{out[i][0][-2000:]!r}, stderr {out[i][1][-2000:]!r}")
            for key, _ in sel.select(timeout=min(last[i] + step_limit for i in open_) - now):
                i, which = key.data
                data = os.read(key.fileobj.fileno(), 65536)
                if not data:
                    sel.unregister(key.fileobj)
                    last[i] = time.monotonic()
                    continue
                out[i][which] += data
                if which == 0 and b"\n" in data:
                    last[i] = time.monotonic()
        finished = True
    finally:
        sel.close()
        if not finished:
            for p in procs:
                if p.poll() is None:
                    p.kill()
    # Every pipe has ended: each loop is exiting.
    return [(p.wait(), o, e) for p, (o, e) in zip(procs, out)]


class Target:
    def __init__(self, name, endpoint, control_url, akid, secret):
        self.name, self.endpoint, self.control = name, endpoint, control_url
        self.akid, self.secret = akid, secret


# What each store needs from the environment (tests/support/servers.py
# exports it): the test proxy in front of it, its control API, the keys.
STORE_ENV = {
    "moto": ("FLOE_TEST_PROXY_ENDPOINT", "FLOE_TEST_PROXY_CONTROL"),
    "rgw": ("FLOE_TEST_RGW_PROXY_ENDPOINT", "FLOE_TEST_RGW_PROXY_CONTROL", "FLOE_TEST_RGW_ACCESS_KEY",
            "FLOE_TEST_RGW_SECRET_KEY"),
    "swift": ("FLOE_TEST_SWIFT_PROXY_ENDPOINT", "FLOE_TEST_SWIFT_PROXY_CONTROL", "FLOE_TEST_SWIFT_ACCESS_KEY",
              "FLOE_TEST_SWIFT_SECRET_KEY"),
}
STORE_NAMES = {"moto": "moto", "rgw": "the Ceph RGW", "swift": "OpenStack Swift"}


def missing_env(stores):
    """The variables `stores` need that are not set, in order."""
    return [v for s in stores for v in STORE_ENV[s] if not os.environ.get(v)]


def targets(stores=("moto", "rgw")):
    """One Target per store named, or None when a variable one needs is missing."""
    if missing_env(stores):
        return None
    e = os.environ
    make = {
        "moto": lambda: Target("moto", e["FLOE_TEST_PROXY_ENDPOINT"], e["FLOE_TEST_PROXY_CONTROL"],
                               "AKIDFLOECLIEVERYDAY1", "cli-everyday-secret/0123456789abcdef"),
        "rgw": lambda: Target("rgw", e["FLOE_TEST_RGW_PROXY_ENDPOINT"], e["FLOE_TEST_RGW_PROXY_CONTROL"],
                              e["FLOE_TEST_RGW_ACCESS_KEY"], e["FLOE_TEST_RGW_SECRET_KEY"]),
        # Swift's s3api takes SigV4 for region us-east-1 only (StoreCase's
        # AWS_DEFAULT_REGION and floe's default); its access key is tempauth's
        # "account:user".
        "swift": lambda: Target("swift", e["FLOE_TEST_SWIFT_PROXY_ENDPOINT"], e["FLOE_TEST_SWIFT_PROXY_CONTROL"],
                                e["FLOE_TEST_SWIFT_ACCESS_KEY"], e["FLOE_TEST_SWIFT_SECRET_KEY"]),
    }
    return [make[s]() for s in stores]


def write_tree(root, files, mtime=None):
    """files: {relative path: bytes}; every file's mtime set to `mtime` when given."""
    for rel, body in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(body)
        if mtime is not None:
            os.utime(p, (mtime, mtime))


class StoreCase(unittest.TestCase):
    """One bucket per class on one store; floe and aws both signed with the
    store's test key, both checked by the proxy's verifier."""
    target = None  # set per store by main()
    # Set in every process's environment (env()); CliCase sets none.
    BASE_ENV = {"TZ": "UTC", "AWS_DEFAULT_REGION": "us-east-1"}

    @classmethod
    def setUpClass(cls):
        t = cls.target
        control(t.control, "POST", "/verify", {"enabled": True, "secrets": {t.akid: t.secret}})
        cls.home = tempfile.TemporaryDirectory(prefix="floe-cli-e-home-")
        cls.bucket = "floe-e-" + uuid.uuid4().hex[:12]
        r = cls.run_floe(["mb", f"s3://{cls.bucket}"])
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        cls.run_floe(["rb", "--force", f"s3://{cls.bucket}"])
        cls.home.cleanup()

    @classmethod
    def env(cls, **extra):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy", "no_proxy")}
        e.update(cls.BASE_ENV)
        e.update({"HOME": cls.home.name, "AWS_EC2_METADATA_DISABLED": "true",
                  "AWS_ACCESS_KEY_ID": cls.target.akid, "AWS_SECRET_ACCESS_KEY": cls.target.secret})
        e.update(extra)
        return e

    @classmethod
    def run_floe(cls, args, input=None, cwd=None, env=None, endpoint=True):
        argv = [FLOE] + (["--endpoint-url", cls.target.endpoint] if endpoint else []) + list(args)
        return subprocess.run(argv, input=input, capture_output=True, env=env or cls.env(), cwd=cwd, timeout=300)

    def floe(self, *args, rc=0, input=None, cwd=None, env=None):
        r = self.run_floe(args, input=input, cwd=cwd, env=env)
        self.assertEqual(r.returncode, rc, f"floe {' '.join(args)}: rc {r.returncode}\nstdout: {r.stdout[-2000:]!r}"
                                           f"\nstderr: {r.stderr[-2000:]!r}")
        return r

    def aws(self, *args, rc=0, cwd=None):
        """`aws s3 ...` (awscli) against the same store: the reference."""
        r = subprocess.run(["aws", "--endpoint-url", self.target.endpoint, "s3"] + list(args), capture_output=True,
                           env=self.env(), cwd=cwd, timeout=300)
        self.assertEqual(r.returncode, rc, f"aws s3 {' '.join(args)}: rc {r.returncode}\nstderr: {r.stderr!r}")
        return r

    def uri(self, key=""):
        return f"s3://{self.bucket}/{key}"

    def stat_json(self, key):
        return json.loads(self.floe("--json", "stat", self.uri(key)).stdout)

    def keys(self, prefix):
        r = self.run_floe(["--json", "ls", "-r", self.uri(prefix)])
        self.assertIn(r.returncode, (0, 4), r.stderr)
        return sorted(o["key"] for o in json.loads(r.stdout)["objects"])

    def tmpdir(self):
        d = tempfile.TemporaryDirectory(prefix="floe-cli-e-")
        self.addCleanup(d.cleanup)
        return d.name

    # ---- the proxy ------------------------------------------------------------

    def add_rule(self, rule):
        rid = control(self.target.control, "POST", "/rules", rule)["id"]
        self.addCleanup(control, self.target.control, "DELETE", f"/rules/{rid}")
        return rid

    def counting_rule(self, match):
        """Never fires (the request goes on untouched); its "matched" counts."""
        return self.add_rule({"match": match, "trigger": {"nth": [1000000]}, "action": {"type": "delay", "ms": 1}})

    def rule(self, rid):
        return control(self.target.control, "GET", f"/rules/{rid}")

    def matched(self, rid):
        return self.rule(rid)["matched"]

    def rule_fired(self, rid):
        return self.rule(rid)["fired"]

    def write_counter(self, prefix=""):
        """The writes (PUT, POST, DELETE) sent for this bucket, and under
        `prefix` when given (POST ?delete names the bucket: counted always)."""
        b = self.bucket
        ids = [self.counting_rule({"method": m, "path": f"^/{b}/{prefix}"}) for m in ("PUT", "DELETE")]
        ids.append(self.counting_rule({"method": "POST", "path": f"^/{b}/"}))
        return lambda: sum(self.matched(i) for i in ids)

    def list_counter(self, prefix):
        """ListObjectsV2 requests naming `prefix` (as sent: URL-encoded)."""
        q = urllib.parse.quote(prefix, safe="-_.~")
        return self.counting_rule({"method": "GET", "path": f"^/{self.bucket}/?$", "query": f"(^|&)prefix={q}(&|$)"})


class CliCase(StoreCase):
    """StoreCase for the CLI's own verbs (test_cli*.py): nothing in the
    environment but the keys, so the region's default (us-east-1) and a
    profile's region are what floe finds, not AWS_DEFAULT_REGION's."""
    BASE_ENV = {}


def main(case_classes, once=(), stores=("moto", "rgw")):
    """Runs each case class once per store in `stores` (a store whose
    variables are missing fails the file, saying how to start it)."""
    global FLOE
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} PATH_TO_FLOE")
    FLOE = os.path.abspath(sys.argv[1])
    ts = targets(stores)
    if ts is None:
        names = [STORE_NAMES[s] for s in stores]
        return cannot_run(f"cli tests: {' / '.join(missing_env(stores))} not set: "
                          f"{', '.join(names[:-1])} and {names[-1]} must all run. " + START_SERVERS)
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for t in ts:
        for case in case_classes:
            cls = type(f"{case.__name__}_{t.name}", (case,), {"target": t})
            suite.addTests(loader.loadTestsFromTestCase(cls))
    for case in once:  # not per store: their own servers, or none
        suite.addTests(loader.loadTestsFromTestCase(case))
    return run_suite(suite)


START_SERVERS = ("Start them with\n  eval \"$(python3 tests/support/servers.py start build/test-servers)\"\n"
                 "or run everything with scripts/test.")


def run_suite(suite):
    """Runs `suite` and prints the line scripts/test counts, "floe-cases: N
    passed, M failed" (a skipped case counts as failed); the exit status."""
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.skipped)
    print(f"floe-cases: {max(0, result.testsRun - failed)} passed, {failed} failed")
    return 0 if failed == 0 else 1


def cannot_run(why):
    """A test file that cannot run (a server or a tool is missing): says why
    and counts as one failure, never as a pass."""
    print(why)
    print("floe-cases: 0 passed, 1 failed")
    return 1
