#!/usr/bin/env python3
"""Drives the built `floe` binary against moto and a Ceph RGW through the
test proxy with its SigV4 verifier on: every verb's ordinary use, usage
errors, keys of every kind, --region, --path-style, profiles, presign; the
help texts against docs/cli.md; web-identity credentials and TLS. (Exit codes
and error lines: test_cli_errors.py; transfers and progress bars:
test_cli_transfers.py.)

  test_cli.py PATH_TO_FLOE

Needs FLOE_TEST_PROXY_ENDPOINT and FLOE_TEST_PROXY_CONTROL, and for RGW
FLOE_TEST_RGW_PROXY_ENDPOINT, FLOE_TEST_RGW_PROXY_CONTROL,
FLOE_TEST_RGW_ACCESS_KEY and FLOE_TEST_RGW_SECRET_KEY (scripts/test exports
them all from tests/support/servers.py); without RGW the run fails. Every
case of CliVerbs runs against both (cli_support.CliCase: a bucket per
class, the proxy's rules); CliHelp, CliTls (moto's TLS listener) and
CliWebIdentity (moto's STS) run once. Prints "floe-cases: N passed, M
failed".
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import urllib.error
import urllib.request
import uuid

import cli_support
from cli_support import CliCase, control, direct_opener


class CliVerbs(CliCase):

    # ---- basics -----------------------------------------------------------

    def test_version_and_help(self):
        r = self.floe("--version")
        self.assertRegex(r.stdout.decode(), r"^floe \d+\.\d+\.\d+\n$")
        self.assertIn(b"Exit codes", self.floe("--help").stdout)
        for verb in ("ls", "cp", "cat", "rm", "stat", "put", "presign", "mb", "rb"):
            out = self.floe(verb, "--help").stdout.decode()
            self.assertTrue(out.startswith(f"usage: floe {verb}"), out)
            self.assertIn("--endpoint-url", out)

    def test_usage_errors_exit_2(self):
        for args in (["bogus"], [], ["ls", "--recursive"], ["cp", "a", "b"], ["cat", "s3://b/k", "extra"],
                     ["put", self.uri("k"), "--if-none-match", "abc"], ["ls", "--nope", self.uri("")],
                     ["presign", self.uri("k"), "--expires", "0"], ["cat", "s3:///k"],
                     ["stat", "--file", "x", self.uri("k")], ["put", self.uri("k"), "--metadata", "novalue"]):
            r = self.run_floe(args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr!r}")
            self.assertEqual(r.stderr.count(b"\n"), 1, r.stderr)
            self.assertIn(b"--help", r.stderr)

    def test_put_cat_stat(self):
        body = b"hello, floe\n"
        r = self.floe("put", self.uri("basic/one.txt"), "--content-type", "text/plain",
                      "--metadata", "colour=blue", input=body)
        etag = r.stdout.decode().strip()
        self.assertEqual(etag, hashlib.md5(body).hexdigest())
        self.assertEqual(self.floe("cat", self.uri("basic/one.txt")).stdout, body)
        st = self.stat_json("basic/one.txt")
        self.assertEqual(st["size"], len(body))
        self.assertEqual(st["etag"], etag)
        self.assertEqual(st["content_type"], "text/plain")
        self.assertEqual(st["metadata"], {"colour": "blue"})
        self.assertFalse(st["not_modified"])
        text = self.floe("stat", self.uri("basic/one.txt")).stdout.decode()
        self.assertIn(f"etag:          {etag}", text)

    def test_ls_prefixes_and_recursive(self):
        for k in ("ls/a.txt", "ls/d1/b.txt", "ls/d1/c.txt", "ls/d2/e.txt"):
            self.floe("put", self.uri(k), input=k.encode())
        flat = json.loads(self.floe("--json", "ls", self.uri("ls/")).stdout)
        self.assertEqual([o["key"] for o in flat["objects"]], ["ls/a.txt"])
        self.assertEqual(flat["prefixes"], ["ls/d1/", "ls/d2/"])
        deep = json.loads(self.floe("ls", "--recursive", "--json", self.uri("ls/")).stdout)
        self.assertEqual([o["key"] for o in deep["objects"]], ["ls/a.txt", "ls/d1/b.txt", "ls/d1/c.txt", "ls/d2/e.txt"])
        self.assertEqual(deep["objects"][0]["size"], len(b"ls/a.txt"))
        # Text as aws s3 ls: names after the last '/', PRE lines first.
        text = self.floe("ls", self.uri("ls/")).stdout.decode().splitlines()
        self.assertEqual(text[0], " " * 27 + "PRE d1/")
        self.assertRegex(text[-1], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {10}8 a\.txt$")

    def test_rm_and_rm_recursive(self):
        for k in ("rm/x", "rm/y/z", "rm/y/w"):
            self.floe("put", self.uri(k), input=b"1")
        self.floe("rm", self.uri("rm/x"))
        self.floe("cat", self.uri("rm/x"), rc=4)
        out = json.loads(self.floe("--json", "rm", "--recursive", self.uri("rm")).stdout)
        self.assertEqual(sorted(out["deleted"]), ["rm/y/w", "rm/y/z"])
        self.assertEqual(out["errors"], [])
        left = json.loads(self.floe("--json", "ls", "-r", self.uri("rm/"), rc=4).stdout)  # 4: nothing there
        self.assertEqual(left["objects"], [])

    def test_mb_rb(self):
        b = "floe-cli-mb-" + uuid.uuid4().hex[:10]
        self.assertEqual(json.loads(self.floe("--json", "mb", f"s3://{b}").stdout), {"bucket": b, "created": True})
        self.floe("rb", f"s3://{b}")
        r = self.floe("rb", f"s3://{b}", rc=4)
        self.assertIn(b"NoSuchBucket", r.stderr)
        self.floe("mb", "s3://Not_A_Valid_New_Bucket", rc=2)

    def test_ls_buckets(self):
        text = self.floe("ls").stdout.decode()
        self.assertRegex(text, r"(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d " + self.bucket + "$")
        # `ls s3://` is `ls`. Other test programs make and remove buckets on
        # the same store meanwhile: every line has the form, and the buckets
        # both listings name (ours among them) have the same lines.
        again = self.floe("ls", "s3://").stdout.decode()
        lines, lines_again = text.splitlines(), again.splitlines()
        for line in lines + lines_again:
            self.assertRegex(line, r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+$")
        both = {ln.split(" ", 2)[2] for ln in lines} & {ln.split(" ", 2)[2] for ln in lines_again}
        self.assertIn(self.bucket, both)
        self.assertEqual([ln for ln in lines if ln.split(" ", 2)[2] in both],
                         [ln for ln in lines_again if ln.split(" ", 2)[2] in both])
        listed = json.loads(self.floe("--json", "ls").stdout)
        names = [b["name"] for b in listed["buckets"]]
        self.assertIn(self.bucket, names)
        mine = listed["buckets"][names.index(self.bucket)]
        self.assertRegex(mine["creation_date"], r"^\d{4}-\d\d-\d\dT")
        self.assertIn("id", listed["owner"])
        r = self.floe("ls", "--recursive", rc=2)
        self.assertIn(b"--recursive needs a bucket", r.stderr)

    def test_profile_from_shared_files(self):
        aws = os.path.join(self.home.name, ".aws")
        os.makedirs(aws, exist_ok=True)
        with open(os.path.join(aws, "config"), "w") as fh:
            fh.write(f"[profile cli-dev]\nregion = us-east-1\nendpoint_url = {self.target.endpoint}\n")
        with open(os.path.join(aws, "credentials"), "w") as fh:
            fh.write(f"[cli-dev]\naws_access_key_id = {self.target.akid}\n"
                     f"aws_secret_access_key = {self.target.secret}\n")
        env = self.env()
        del env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]
        r = self.run_floe(["--profile", "cli-dev", "put", self.uri("profile/k")], input=b"p", env=env, endpoint=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_floe(["--profile", "cli-dev", "cat", self.uri("profile/k")], env=env, endpoint=False)
        self.assertEqual(r.stdout, b"p", r.stderr)
        r = self.run_floe(["--profile", "no-such-profile", "cat", self.uri("profile/k")], env=env, endpoint=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"no-such-profile", r.stderr)

    # ---- keys ------------------------------------------------------------------

    def test_hostile_keys(self):
        keys = ["hk/sp ace", "hk/per%20cent", "hk/per%2Fslash", "hk/q?x=1&y", "hk/hash#frag", "hk/plus+sign",
                "hk/dot/../dot", "hk/./single", "hk//double", "hk/trailing.", "hk/unicodé/日本語",
                "hk/semi;colon,comma", "hk/tilde~star*", "hk/quote\"apos'", "hk/back\\slash", "hk/tab\there",
                "hk/<xml>&amp;"]
        for k in keys:
            body = ("body of " + k).encode()
            self.floe("put", self.uri(k), input=body)
            self.assertEqual(self.floe("cat", self.uri(k)).stdout, body, k)
            self.assertEqual(self.stat_json(k)["size"], len(body), k)
        listed = json.loads(self.floe("--json", "ls", "-r", self.uri("hk/")).stdout)
        self.assertEqual(sorted(o["key"] for o in listed["objects"]), sorted(keys))
        text = self.floe("ls", "-r", self.uri("hk/")).stdout.decode()
        self.assertIn("hk/tab\\x09here", text)  # control characters escaped for the terminal
        for k in keys:
            self.floe("rm", self.uri(k))
        self.assertEqual(json.loads(self.floe("--json", "ls", "-r", self.uri("hk/"), rc=4).stdout)["objects"], [])

    # ---- global options: --region, --path-style -----------------------------------------

    def test_region_is_the_credential_scope(self):
        scope = r"Credential=\S+/\d{8}/eu-west-2/s3/aws4_request"
        path = f"^/{self.bucket}/region/"
        rid = self.counting_rule({"path": path, "header": {"Authorization": scope}})
        default = self.counting_rule({"path": path, "header": {"Authorization": r"/\d{8}/us-east-1/s3/aws4_request"}})
        self.floe("--region", "eu-west-2", "put", self.uri("region/k"), input=b"in eu-west-2")
        self.assertEqual(self.floe("cat", self.uri("region/k"), "--region=eu-west-2").stdout, b"in eu-west-2")
        self.assertEqual(self.matched(rid), 2)
        self.assertEqual(self.matched(default), 0)
        # Without --region: the default (us-east-1; AWS_REGION is not set here).
        self.floe("cat", self.uri("region/k"))
        self.assertEqual(self.matched(rid), 2)
        self.assertEqual(self.matched(default), 1)
        # AWS_REGION is overridden by --region.
        self.floe("--region", "eu-west-2", "stat", self.uri("region/k"), env=self.env(AWS_REGION="ap-south-1"))
        self.assertEqual(self.matched(rid), 3)
        # A presigned URL carries it in X-Amz-Credential, and the verifier accepts it.
        url = self.floe("presign", "--region", "eu-west-2", self.uri("region/k")).stdout.decode().strip()
        self.assertIn("X-Amz-Credential=" + self.target.akid + "%2F", url)
        self.assertRegex(url, r"%2F\d{8}%2Feu-west-2%2Fs3%2Faws4_request")
        with direct_opener().open(url, timeout=30) as r:
            self.assertEqual(r.read(), b"in eu-west-2")

    def test_path_style_overrides_virtual_addressing(self):
        # A profile asks for virtual-hosted addressing; the endpoint is a host
        # name (localhost), so floe would send to BUCKET.localhost. With
        # --path-style the proxy sees Host localhost:P and /BUCKET/KEY.
        home = tempfile.TemporaryDirectory(prefix="floe-cli-ps-")
        self.addCleanup(home.cleanup)
        os.makedirs(os.path.join(home.name, ".aws"))
        with open(os.path.join(home.name, ".aws", "config"), "w") as fh:
            fh.write("[default]\ns3 =\n    addressing_style = virtual\n")
        env = self.env(HOME=home.name)
        endpoint = self.target.endpoint.replace("127.0.0.1", "localhost")
        self.assertNotEqual(endpoint, self.target.endpoint)
        port = endpoint.rsplit(":", 1)[1]
        path_style = self.counting_rule({"path": f"^/{self.bucket}/ps/k$", "header": {"Host": f"^localhost:{port}$"}})
        virtual = self.counting_rule({"header": {"Host": f"^{self.bucket}\\.localhost"}})
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "-v", "--path-style", "put", self.uri("ps/k")],
                           input=b"path style", capture_output=True, env=env, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"PUT http://localhost:{port}/{self.bucket}/ps/k", r.stderr.decode())
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "cat", "--path-style", self.uri("ps/k")],
                           capture_output=True, env=env, timeout=120)
        self.assertEqual((r.returncode, r.stdout), (0, b"path style"), r.stderr)
        self.assertEqual(self.matched(path_style), 2)
        # Without it: the virtual-hosted URL (BUCKET.localhost does not
        # resolve here; where it does, the proxy sees that Host instead).
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "-v", "cat", self.uri("ps/k")],
                           capture_output=True, env=env, timeout=120)
        self.assertIn(f"GET http://{self.bucket}.localhost:{port}/ps/k", r.stderr.decode())
        self.assertEqual(self.matched(path_style), 2)
        self.assertEqual(self.matched(virtual), 0 if r.returncode != 0 else 1)

    # ---- presign ---------------------------------------------------------------------

    def test_presign_checked_by_verifier(self):
        body = b"presigned body"
        self.floe("put", self.uri("pre/k ey+1"), input=body)
        url = self.floe("presign", self.uri("pre/k ey+1"), "--expires", "300").stdout.decode().strip()
        self.assertTrue(url.startswith(self.target.endpoint + "/"), url)
        self.assertIn("X-Amz-Expires=300", url)
        opener = direct_opener()
        before = control(self.target.control, "GET", "/stats")["signature_failures"]
        with opener.open(url, timeout=30) as r:
            self.assertEqual(r.read(), body)
        tampered = url.replace("X-Amz-Expires=300", "X-Amz-Expires=301")
        with self.assertRaises(urllib.error.HTTPError) as cm:
            opener.open(tampered, timeout=30)
        self.assertEqual(cm.exception.code, 403)
        # Refused by the proxy's verifier (its own error reply), not by the
        # store. Its failure counter is shared with the other test programs
        # running meanwhile (cli-errors sends a wrong signature): at least ours.
        refused = cm.exception.read()
        self.assertIn(b"<Code>SignatureDoesNotMatch</Code>", refused)
        self.assertIn(b"<HostId>floe-test-proxy</HostId>", refused)
        self.assertGreaterEqual(control(self.target.control, "GET", "/stats")["signature_failures"], before + 1)
        put_url = json.loads(self.floe("--json", "presign", "--method", "PUT", self.uri("pre/uploaded")).stdout)["url"]
        req = urllib.request.Request(put_url, data=b"via presigned PUT", method="PUT",
                                     headers={"Content-Type": "application/octet-stream"})
        with opener.open(req, timeout=30) as r:
            self.assertEqual(r.status, 200)
        self.assertEqual(self.floe("cat", self.uri("pre/uploaded")).stdout, b"via presigned PUT")


class CliHelp(unittest.TestCase):
    """docs/cli.md's reference and `floe VERB --help` name the same options,
    and --help the ones the parser accepts (no servers needed)."""

    VERBS = ("ls", "cp", "cat", "mv", "sync", "rm", "stat", "put", "presign", "mb", "rb", "whoami", "sqs", "watch")

    @staticmethod
    def options_in(text):
        return set(re.findall(r"--[a-z][a-z-]*", text))

    def help(self, *args):
        r = subprocess.run([cli_support.FLOE] + list(args) + ["--help"], capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode()

    def test_cli_reference_matches_help(self):
        reference = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "cli.md")
        with open(reference, encoding="utf-8") as fh:
            text = fh.read()
        section = text[text.index("## Commands and options"):]
        section = section[:section.index("\n## ", 1)]
        rows = [line for line in section.splitlines() if line.startswith("| `")]
        glob = self.options_in(self.help().split("Global options")[1])
        self.assertIn("--path-style", glob)
        global_rows = " ".join(r.split("|")[1] for r in rows if r.startswith("| `-"))
        self.assertEqual(self.options_in(global_rows), glob)
        for verb in self.VERBS:
            h = self.help(verb)
            own = self.options_in(h.split("Global options")[0].split("\nOptions:\n")[1]) if "\nOptions:\n" in h else set()
            mine = " ".join(r for r in rows if f"`floe {verb}" in r.split("|")[1])
            self.assertTrue(mine, f"docs/cli.md: no row for floe {verb}")
            named = self.options_in(mine)
            self.assertEqual(own - named, set(), f"docs/cli.md's floe {verb} row lacks these")
            self.assertEqual(named - own - glob, set(), f"docs/cli.md's floe {verb} row names options it does not take")
            # And the parser takes each option --help lists.
            for opt in own:
                r = subprocess.run([cli_support.FLOE, verb, opt + "=x"], capture_output=True, timeout=30)
                self.assertNotIn(b"unknown option", r.stderr, opt)
                self.assertNotIn(b"does not apply", r.stderr, opt)
        self.assertIn("--method", self.help("presign"))
        put_line = self.help()[self.help().index("floe put "):]
        self.assertIn("--if-match", put_line[:put_line.index("\n  presign")])


class CliWebIdentity(unittest.TestCase):
    """-v / --debug with web-identity credentials from moto's STS through the
    proxy: the STS exchange is logged like any other, and neither the token
    file's contents nor the credentials STS sends back appear."""

    def test_sts_exchange_logged_without_token_or_credentials(self):
        endpoint = os.environ.get("FLOE_TEST_PROXY_ENDPOINT")
        ctl = os.environ.get("FLOE_TEST_PROXY_CONTROL")
        self.assertTrue(endpoint and ctl, "FLOE_TEST_PROXY_ENDPOINT / FLOE_TEST_PROXY_CONTROL not set "
                                          "(tests/support/servers.py start exports them)")
        home = tempfile.TemporaryDirectory(prefix="floe-cli-wi-")
        self.addCleanup(home.cleanup)
        token = "eyJhbGciOiJSUzI1NiJ9.floe-cli-web-identity-token-" + uuid.uuid4().hex
        token_file = os.path.join(home.name, "token")
        with open(token_file, "w") as fh:
            fh.write(token)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy")}
        env.update({"HOME": home.name, "AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1",
                    "AWS_ENDPOINT_URL_STS": endpoint,
                    "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/floe-cli-debug",
                    "AWS_WEB_IDENTITY_TOKEN_FILE": token_file, "AWS_ROLE_SESSION_NAME": "floe-cli-debug"})
        # The verifier learns the keys STS hands out, so the S3 request is checked too.
        control(ctl, "POST", "/verify", {"enabled": True})
        bucket = "floe-cli-wi-" + uuid.uuid4().hex[:10]
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "--debug", "mb", f"s3://{bucket}"],
                           capture_output=True, env=env, timeout=60)
        log = r.stderr.decode()
        self.assertEqual(r.returncode, 0, log)
        self.assertRegex(log, r"\[AssumeRoleWithWebIdentity #1\] POST http://\S+ -> 200 ")
        self.assertRegex(log, r"\[CreateBucket #1\] PUT http://\S+/" + bucket + r" -> 200 ")
        self.assertIn("> X-Amz-Security-Token: REDACTED", log)
        self.assertNotIn(token, log)
        self.assertNotIn("floe-cli-web-identity-token", log)
        for word in ("SecretAccessKey", "Signature=", "Credential="):
            self.assertNotIn(word, log)
        # presign with web-identity credentials: a fresh process has none
        # cached; it fetches them first, and the URL works (the verifier
        # checks it) and carries the session token.
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "put", f"s3://{bucket}/k"], input=b"signed",
                           capture_output=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "presign", f"s3://{bucket}/k"],
                           capture_output=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        url = r.stdout.decode().strip()
        self.assertIn("X-Amz-Security-Token=", url)
        with direct_opener().open(url, timeout=30) as got:  # not through an http_proxy of the environment
            self.assertEqual(got.read(), b"signed")
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "rm", f"s3://{bucket}/k"],
                           capture_output=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run([cli_support.FLOE, "--endpoint-url", endpoint, "rb", f"s3://{bucket}"],
                           capture_output=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)


class CliTls(unittest.TestCase):
    """--ca-bundle and --no-verify-ssl against the proxy's TLS listener (moto)."""

    def setUp(self):
        self.endpoint = os.environ.get("FLOE_TEST_PROXY_TLS_ENDPOINT")
        self.ca = os.environ.get("FLOE_TEST_PROXY_CA")
        self.assertTrue(self.endpoint and self.ca, "FLOE_TEST_PROXY_TLS_ENDPOINT / FLOE_TEST_PROXY_CA not set "
                                                   "(tests/support/servers.py start exports them)")
        self.home = tempfile.TemporaryDirectory(prefix="floe-cli-tls-")
        self.addCleanup(self.home.cleanup)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy")}
        self.env.update({"HOME": self.home.name, "AWS_EC2_METADATA_DISABLED": "true",
                         "AWS_ACCESS_KEY_ID": "AKIDFLOECLITLS01", "AWS_SECRET_ACCESS_KEY": "cli-tls-secret"})
        # The TLS listener shares the plain one's verifier.
        control(os.environ["FLOE_TEST_PROXY_CONTROL"], "POST", "/verify",
                {"enabled": True, "secrets": {"AKIDFLOECLITLS01": "cli-tls-secret"}})

    def floe(self, *args):
        return subprocess.run([cli_support.FLOE, "--endpoint-url", self.endpoint] + list(args), capture_output=True,
                              env=self.env, timeout=60)

    def test_ca_bundle_and_no_verify(self):
        bucket = "floe-cli-tls-" + uuid.uuid4().hex[:10]
        r = self.floe("--ca-bundle", self.ca, "mb", f"s3://{bucket}")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.floe("--ca-bundle", self.ca, "put", f"s3://{bucket}/k", "--file", __file__)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.floe("cat", f"s3://{bucket}/k")  # the system store does not know the test CA
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"certificate", r.stderr.lower())
        self.assertEqual(r.stderr.count(b"\n"), 1, r.stderr)
        r = self.floe("--no-verify-ssl", "cat", f"s3://{bucket}/k")
        self.assertEqual(r.returncode, 0, r.stderr)
        # Once: the library tells the CLI (its warning hook), the CLI prints.
        self.assertEqual(r.stderr.count(b"floe: warning: TLS peer verification is DISABLED"), 1, r.stderr)
        self.assertEqual(r.stderr.count(b"\n"), 1, r.stderr)
        with open(__file__, "rb") as fh:
            self.assertEqual(r.stdout, fh.read())
        self.assertEqual(self.floe("--ca-bundle", self.ca, "rm", f"s3://{bucket}/k").returncode, 0)
        self.assertEqual(self.floe("--ca-bundle", self.ca, "rb", f"s3://{bucket}").returncode, 0)


if __name__ == "__main__":
    sys.exit(cli_support.main([CliVerbs], once=[CliHelp, CliTls, CliWebIdentity]))
