#!/usr/bin/env python3
"""The CLI's heal matrix (issue 30): every `floe` verb that sends requests,
signing with web-identity credentials from moto's STS, meets a revocation
of every key issued so far at one request of its own — a 403 with an
AccessDenied body, then a bare 403 — and must finish as if nothing had
happened (exit 0, the right bytes), with one STS call to heal: two
AssumeRoleWithWebIdentity in all, the first set and the fresh one.
A verb whose request S3 may redirect (an object's or a bucket's) also meets
a region redirect there (301 PermanentRedirect, to a HEAD a bare 400) and
must follow it with no STS call.

  test_heal_cli.py PATH_TO_FLOE

Through a private test proxy (verifier on; private: the revocation takes
every key STS issued, which must not touch other tests' keys). The
revocation is armed on the row's `target` with after_forwarded 0: the first
request the match accepts is refused, whatever the verb sent before it
(downloads: the GET itself). Set-up and checks use boto3 straight against
moto. A last case reads `floe --help` and each family's subcommands, so a
verb added without its row (or a stated reason) fails here.
Prints "floe-cases: N passed, M failed".
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import uuid

import boto3

import cli_support
from heal_cli_rows import ROWS, EXEMPT

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
from proxy.server import ProxyThread  # noqa: E402

MODES = ("access_denied", "bare")
REDIRECT_BODY = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PermanentRedirect</Code><Message>The bucket '
                 'you are attempting to access must be addressed using the specified endpoint.</Message>'
                 '<RequestId>R1</RequestId><HostId>H1</HostId></Error>')


class Ctx:
    """What a row works with: its bucket (and queue), a scratch directory,
    boto3 clients straight to moto, and the proxy's endpoint."""

    def __init__(self, case, name):
        self.case = case
        self.bucket = "heal-cli-" + name + "-" + uuid.uuid4().hex[:8]
        self.dir = case.tmpdir()
        self.s3, self.sqs = case.s3, case.sqs
        self.endpoint = case.px.endpoint
        self.queue_url = None
        self.proc = None  # a long-running floe (watch)
        self.s3.create_bucket(Bucket=self.bucket)

    def uri(self, key=""):
        return f"s3://{self.bucket}/{key}"

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def write(self, rel, data):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)
        return p

    def read(self, rel):
        with open(self.path(rel), "rb") as fh:
            return fh.read()

    def put(self, key, data):
        self.s3.put_object(Bucket=self.bucket, Key=key, Body=data)

    def get(self, key):
        return self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read()

    def keys(self, prefix=""):
        pages = self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
        return sorted(o["Key"] for p in pages for o in p.get("Contents", []))

    def make_queue(self, messages=0):
        self.queue_url = self.sqs.create_queue(QueueName=self.bucket)["QueueUrl"]
        for i in range(messages):
            self.sqs.send_message(QueueUrl=self.queue_url, MessageBody=f"message {i}")
        return self.queue_url


class HealCli(unittest.TestCase):
    px = None

    @classmethod
    def setUpClass(cls):
        moto = os.environ.get("FLOE_TEST_MOTO_ENDPOINT")
        assert moto, "FLOE_TEST_MOTO_ENDPOINT not set (run scripts/test, which starts moto)"
        cls.state = tempfile.TemporaryDirectory(prefix="floe-heal-cli-")
        cls.px = ProxyThread(moto, log_path=os.path.join(cls.state.name, "proxy.log")).start()
        keys = {"aws_access_key_id": "AKIDHEALCLISETUP", "aws_secret_access_key": "setup", "region_name": "us-east-1"}
        cls.s3 = boto3.client("s3", endpoint_url=moto, **keys)
        cls.sqs = boto3.client("sqs", endpoint_url=moto, **keys)
        token = os.path.join(cls.state.name, "token")
        with open(token, "w") as fh:
            fh.write("eyJhbGciOiJub25lIn0.eyJzdWIiOiJmbG9lLWhlYWwifQ.")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy", "no_proxy")}
        env.update({"HOME": cls.state.name, "AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1",
                    "AWS_ENDPOINT_URL": cls.px.endpoint, "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/floe-heal",
                    "AWS_WEB_IDENTITY_TOKEN_FILE": token, "AWS_ROLE_SESSION_NAME": "floe-heal-cli"})
        cls.env = env

    @classmethod
    def tearDownClass(cls):
        cls.px.stop()
        cls.state.cleanup()

    def tmpdir(self):
        d = tempfile.TemporaryDirectory(prefix="floe-heal-cli-")
        self.addCleanup(d.cleanup)
        return d.name

    def floe_process(self, args, stdin=None):
        return subprocess.Popen([cli_support.FLOE, "--endpoint-url", self.px.endpoint] + list(args), env=self.env,
                                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def floe_setup(self, args):
        """Runs floe for a row's set-up (before the revocation is armed): its exit status."""
        p = self.floe_process(args)
        out, err = p.communicate(timeout=300)
        if p.returncode != 0:
            print(f"set-up: floe {' '.join(args)}: rc {p.returncode}: {err[-2000:]!r}")
        return p.returncode

    def run_row(self, row, mode):
        self.px.reset()
        self.px.verify(enabled=True)
        c = Ctx(self, row.slug)
        if row.setup:
            row.setup(c)
        assume = self.px.add_rule({"match": {"service": "sts", "body": "Action=AssumeRoleWithWebIdentity"},
                                   "trigger": {"nth": [1000000]}, "action": {"type": "delay", "ms": 0}})
        target = json.loads(json.dumps(row.target).replace("{B}", c.bucket))
        redirect = None
        if mode == "redirect":  # S3's answer from the wrong region (to a HEAD: a bare 400)
            head = target.get("method") == "HEAD"
            redirect = self.px.add_rule({"match": target, "trigger": {"nth": [1]}, "action": {
                "type": "reply", "status": 400 if head else 301, "headers": {"x-amz-bucket-region": "eu-west-2"},
                "body": "" if head else REDIRECT_BODY}})
        else:
            self.px.revoke("all-issued", mode=mode, after_forwarded=0, match=target)
        before = self.px.stats()["revoked_rejections"]
        if row.drive:  # a long-running verb: the row drives it
            rc, out, err = row.drive(c, self)
        else:
            p = self.floe_process(row.args(c), stdin=row.stdin)
            out, err = p.communicate(row.stdin, timeout=300)
            rc = p.returncode
        what = f"{row.name} ({mode}): floe {' '.join(row.args(c)) if row.args else row.verb}"
        self.assertEqual(rc, 0, f"{what}: rc {rc}\nstdout: {out[-2000:]!r}\nstderr: {err[-3000:]!r}")
        st = self.px.stats()
        if redirect is not None:
            self.assertEqual(self.px.rule(redirect)["fired"], 1, f"{what}: the redirect never hit {row.target}")
            self.assertEqual(self.px.rule(assume)["matched"], 1, f"{what}: a redirect needs no STS call")
        else:
            self.assertGreater(st["revoked_rejections"], before, f"{what}: the revocation never hit {row.target}")
            self.assertEqual(self.px.rule(assume)["matched"], 2, f"{what}: not one STS call to heal\n{err[-3000:]!r}")
        self.assertEqual(st["signature_failures"], 0, what)
        row.check(c, out)


def make_case(row, mode):
    def test(self):
        self.run_row(row, mode)
    test.__doc__ = f"{row.name}, {mode}"
    return test


for _row in ROWS:
    for _mode in MODES + (("redirect",) if _row.redirect else ()):
        setattr(HealCli, f"test_{_row.slug}_{_mode}", make_case(_row, _mode))


class Coverage(unittest.TestCase):
    """Every verb `floe --help` lists, and every subcommand of a family,
    has a row or a reason."""

    def help_text(self, *args):
        r = subprocess.run([cli_support.FLOE] + list(args) + ["--help"], capture_output=True, timeout=30,
                           env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent"})
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode()

    def test_every_verb_has_a_row(self):
        covered = {r.verb for r in ROWS} | set(EXEMPT)
        verbs = verbs_of(self.help_text())
        self.assertGreater(len(verbs), 10, "floe --help listed no verbs this test can read")
        for family in ("ledger", "sqs"):
            subs = subcommands_of(self.help_text(family), family)
            self.assertGreater(len(subs), 2, f"floe {family} --help listed no subcommands")
            verbs.discard(family)
            verbs |= {f"{family} {s}" for s in subs}
        missing = sorted(verbs - covered)
        self.assertEqual(missing, [], f"verbs with no row in the CLI heal matrix: {missing}")
        for r in ROWS:
            self.assertIn(r.verb, verbs, f"row {r.name} names {r.verb!r}, which floe --help does not list")
        for verb, why in EXEMPT.items():
            self.assertTrue(why, verb)


def verbs_of(text):
    """The verbs of `floe --help`: the first word of each indented line
    under its commands heading."""
    verbs = set()
    for line in text.splitlines():
        m = re.match(r"^  (?:floe )?([a-z][a-z-]*)\b", line)
        if m:
            verbs.add(m.group(1))
    return verbs


def subcommands_of(text, family):
    """The subcommands its usage line lists: `usage: floe FAMILY a|b|c ...`."""
    m = re.search(rf"^usage: floe {family} ([a-z|]+)", text, re.M)
    return set(m.group(1).split("|")) if m else set()


def main():
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} PATH_TO_FLOE")
    cli_support.FLOE = os.path.abspath(sys.argv[1])
    loader = unittest.TestLoader()
    suite = unittest.TestSuite([loader.loadTestsFromTestCase(HealCli), loader.loadTestsFromTestCase(Coverage)])
    return cli_support.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
