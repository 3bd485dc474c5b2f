#!/usr/bin/env python3
"""`floe whoami` against moto's STS through the test proxy (verifier on).

  test_whoami.py PATH_TO_FLOE

Cases: static keys from the environment (text and --json); --verbose with a
credential_process profile, with web identity and with an SSO profile
(source, generation, expiry; the SSO portal is tests/support/cred_servers.py
on loopback); a profile whose `services` section names the STS and SSO
endpoints; an expired SSO token (the error says to run `aws sso login`);
no credentials at all (the error names every source). Every case
greps stdout and stderr for the secret key, the session token and the token
file's contents: none may appear. Prints "floe-cases: N passed, M failed".
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest
import urllib.request

import cli_support

FLOE = None
AKID, SECRET = "AKIDFLOEWHOAMI0001", "whoami-secret/abcdefghij0123456789"
PAKID, PSECRET, PTOKEN = "ASIAFLOEWHOAMIPROC1", "process-secret-0123456789", "process-session-token-abcdef"
WEB_TOKEN = "web-identity-token-contents-0123456789"
SSO_TOKEN = "sso-bearer-token-contents-0123456789"
SSO_SECRET = "sso-secret-1"  # the first set cred_servers.py issues


def control(path, body=None):
    base = os.environ["FLOE_TEST_PROXY_CONTROL"]
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="POST" if data else "GET",
                                 headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


class Whoami(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.TemporaryDirectory(prefix="floe-whoami-")
        os.makedirs(os.path.join(self.home.name, ".aws"))
        control("/verify", {"enabled": True, "secrets": {AKID: SECRET, PAKID: PSECRET}})

    def tearDown(self):
        self.home.cleanup()

    def run_floe(self, args, extra_env):
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update({"HOME": self.home.name, "AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1",
                    "AWS_ENDPOINT_URL_STS": os.environ["FLOE_TEST_PROXY_ENDPOINT"]})
        env.update(extra_env)
        p = subprocess.run([FLOE] + args, env=env, capture_output=True, timeout=60)
        out, err = p.stdout.decode(), p.stderr.decode()
        for s in (SECRET, PSECRET, PTOKEN, WEB_TOKEN, SSO_TOKEN, SSO_SECRET, "sso-session-1"):
            self.assertNotIn(s, out)
            self.assertNotIn(s, err)
        return p.returncode, out, err

    def test_env_keys_text(self):
        rc, out, err = self.run_floe(["whoami"], {"AWS_ACCESS_KEY_ID": AKID, "AWS_SECRET_ACCESS_KEY": SECRET})
        self.assertEqual(rc, 0, err)
        self.assertIn("Account: 123456789012", out)
        self.assertIn("Arn:", out)
        self.assertIn("UserId:", out)
        self.assertNotIn("Source:", out)

    def test_env_keys_json(self):
        rc, out, err = self.run_floe(["whoami", "--json"], {"AWS_ACCESS_KEY_ID": AKID, "AWS_SECRET_ACCESS_KEY": SECRET})
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["Account"], "123456789012")
        self.assertTrue(doc["Arn"].startswith("arn:aws:"))
        self.assertIn("UserId", doc)
        self.assertNotIn("Source", doc)

    def test_verbose_credential_process(self):
        script = os.path.join(self.home.name, "creds.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\nprintf '%s'\n" % json.dumps({
                "Version": 1, "AccessKeyId": PAKID, "SecretAccessKey": PSECRET, "SessionToken": PTOKEN,
                "Expiration": "2099-01-01T00:00:00Z"}))
        os.chmod(script, 0o700)
        with open(os.path.join(self.home.name, ".aws", "config"), "w") as f:
            f.write("[profile proc]\ncredential_process = %s\n" % script)
        rc, out, err = self.run_floe(["whoami", "--verbose", "--profile", "proc"], {})
        self.assertEqual(rc, 0, err)
        self.assertIn("Source:      credential_process", out)
        self.assertIn("Generation:  1", out)
        self.assertIn("Expiration:  2099-01-01T00:00:00Z", out)
        self.assertIn("AccessKeyId: ASIA", out)
        self.assertNotIn(PAKID, out)
        rc, out, err = self.run_floe(["whoami", "--verbose", "--json", "--profile", "proc"], {})
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["Generation"], 1)
        self.assertEqual(doc["Expiration"], "2099-01-01T00:00:00Z")
        self.assertIn("credential_process", doc["Source"])

    def test_verbose_web_identity(self):
        token_file = os.path.join(self.home.name, "token")
        with open(token_file, "w") as f:
            f.write(WEB_TOKEN)
        rc, out, err = self.run_floe(["whoami", "--verbose", "-v"], {
            "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/floe-whoami",
            "AWS_WEB_IDENTITY_TOKEN_FILE": token_file, "AWS_ROLE_SESSION_NAME": "floe-whoami"})
        self.assertEqual(rc, 0, err)
        self.assertIn("Source:      web identity", out)
        self.assertIn("Generation:  1", out)
        self.assertNotIn("none (long-term keys)", out)

    def start_sso_portal(self):
        root = os.environ.get("FLOE_SOURCE_ROOT")
        self.assertTrue(root, "FLOE_SOURCE_ROOT is not set: run the test through meson / scripts/test")
        proc = subprocess.Popen([sys.executable, os.path.join(root, "tests", "support", "cred_servers.py")],
                                stdout=subprocess.PIPE)
        self.addCleanup(lambda: (proc.kill(), proc.wait()))
        base = "http://127.0.0.1:%d" % json.loads(proc.stdout.readline())["port"]
        req = urllib.request.Request(base + "/_control/config", method="POST",
                                     data=json.dumps({"sso_token": SSO_TOKEN, "sso_account": "123456789012",
                                                      "sso_role": "floe-sso"}).encode())
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=10).read()
        with open(os.path.join(self.home.name, ".aws", "config"), "w") as f:
            f.write("[profile sso]\nsso_session = floe\nsso_account_id = 123456789012\nsso_role_name = floe-sso\n"
                    "[sso-session floe]\nsso_start_url = https://floe.awsapps.com/start\nsso_region = us-east-1\n")
        return base

    def write_sso_token(self, expires_at):
        cache = os.path.join(self.home.name, ".aws", "sso", "cache")
        os.makedirs(cache, exist_ok=True)
        with open(os.path.join(cache, hashlib.sha1(b"floe").hexdigest() + ".json"), "w") as f:
            json.dump({"accessToken": SSO_TOKEN, "expiresAt": expires_at}, f)

    def test_verbose_sso(self):
        base = self.start_sso_portal()
        self.write_sso_token("2099-01-01T00:00:00Z")
        control("/verify", {"enabled": True, "secrets": {"ASIASSO1": SSO_SECRET}})
        rc, out, err = self.run_floe(["whoami", "--verbose", "-v", "--profile", "sso"], {"AWS_ENDPOINT_URL_SSO": base})
        self.assertEqual(rc, 0, err)
        self.assertIn("Source:      SSO (profile sso, account 123456789012, role floe-sso, sso-session floe)", out)
        self.assertIn("Generation:  1", out)
        self.assertNotIn("none (long-term keys)", out)

    def test_sso_expired_token_says_login(self):
        base = self.start_sso_portal()
        self.write_sso_token("2001-01-01T00:00:00Z")
        rc, out, err = self.run_floe(["whoami", "--profile", "sso", "-v"], {"AWS_ENDPOINT_URL_SSO": base})
        self.assertNotEqual(rc, 0)
        self.assertIn("expired", err)
        self.assertIn("aws sso login --sso-session floe", err)

    def test_profile_services_sts_and_sso(self):
        # No AWS_ENDPOINT_URL_STS: the profile's services section sends STS
        # to the test endpoint, and its sso block sends the SSO portal to
        # the emulator (the session's one resolver, for both).
        base = self.start_sso_portal()
        self.write_sso_token("2099-01-01T00:00:00Z")
        control("/verify", {"enabled": True, "secrets": {"ASIASSO1": SSO_SECRET}})
        with open(os.path.join(self.home.name, ".aws", "config"), "a") as f:
            f.write("[profile svc]\nservices = local\nsso_session = floe\nsso_account_id = 123456789012\n"
                    "sso_role_name = floe-sso\n"
                    "[services local]\nsts =\n  endpoint_url = %s\nsso =\n  endpoint_url = %s\n"
                    % (os.environ["FLOE_TEST_PROXY_ENDPOINT"], base))
        rc, out, err = self.run_floe(["whoami", "--verbose", "-v", "--profile", "svc"], {"AWS_ENDPOINT_URL_STS": ""})
        self.assertEqual(rc, 0, err)
        self.assertIn("Account: 123456789012", out)
        self.assertIn("Source:      SSO (profile svc", out)
        self.assertIn("STS endpoint %s (profile 'svc' services 'local')" % os.environ["FLOE_TEST_PROXY_ENDPOINT"], err)

    def test_no_credentials_names_every_source(self):
        rc, out, err = self.run_floe(["whoami"], {})
        self.assertNotEqual(rc, 0)
        self.assertEqual(out, "")
        for s in ("environment:", "web identity:", "shared files:", "container:", "IMDS: disabled"):
            self.assertIn(s, err)

    def test_usage(self):
        rc, out, err = self.run_floe(["whoami", "extra"], {})
        self.assertEqual(rc, 2)
        rc, out, err = self.run_floe(["whoami", "--recursive"], {})
        self.assertEqual(rc, 2)   # not an option of whoami


def main():
    global FLOE
    if len(sys.argv) != 2:
        return cli_support.cannot_run("usage: test_whoami.py PATH_TO_FLOE")
    FLOE = sys.argv[1]
    if not os.environ.get("FLOE_TEST_PROXY_ENDPOINT") or not os.environ.get("FLOE_TEST_PROXY_CONTROL"):
        return cli_support.cannot_run("FLOE_TEST_PROXY_ENDPOINT / FLOE_TEST_PROXY_CONTROL are not set: run "
                                      "scripts/test, which starts moto and the test proxy")
    return cli_support.run_suite(unittest.TestLoader().loadTestsFromTestCase(Whoami))


if __name__ == "__main__":
    sys.exit(main())
