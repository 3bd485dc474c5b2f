#!/usr/bin/env python3
"""Credential endpoint emulators for floe's tests (stdlib only).

One loopback HTTP/1.1 server that plays two parts:

- an EC2 instance metadata service, IMDSv2 only:
    PUT /latest/api/token (needs X-aws-ec2-metadata-token-ttl-seconds, 1..21600)
    GET /latest/meta-data/iam/security-credentials/        -> the role name
    GET /latest/meta-data/iam/security-credentials/ROLE    -> credentials JSON
  GETs need a valid X-aws-ec2-metadata-token, else 401;
- a container credentials endpoint: GET /container/creds, whose
  Authorization header must equal the token set by the test, else 401;
  500 while "container_fail" is set;
- an IAM Identity Center (SSO) portal: GET /federation/credentials
  ?account_id=A&role_name=R with header x-amz-sso_bearer_token, which must
  equal "sso_token" (else 401 UnauthorizedException) and A/R must equal
  "sso_account"/"sso_role" (else 403 ForbiddenException); replies
  {"roleCredentials": {accessKeyId, secretAccessKey, sessionToken,
  expiration (ms since the epoch)}}.

Control (JSON): POST /_control/expire-tokens (every IMDS session token goes
stale), POST /_control/config {"container_token": "...", "fail": bool,
"container_fail": bool, "expiry_s": n, "role": "...", "sso_token": "...",
"sso_account": "...", "sso_role": "...", "fail_next": {"imds": n,
"container": n, "sso": n}}, GET /_control/stats. fail_next: the next n
requests for credentials of that kind that would succeed (the IMDS role's
credentials, the container's, the portal's) get 503 instead.

Usage: python3 cred_servers.py [--port 0] -> prints {"port": P} on stdout.
Credentials issued (kind imds, container, sso): AccessKeyId ASIA<KIND><n>, SecretAccessKey <kind>-secret-<n>,
Token <kind>-session-<n>; n counts from 1 per kind.
"""
import argparse
import datetime
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {
    "tokens": set(), "token_seq": 0, "role": "floe-role", "expiry_s": 6 * 3600,
    "container_token": "", "fail": False, "container_fail": False,
    "fail_next": {"imds": 0, "container": 0, "sso": 0},
    "sso_token": "", "sso_account": "111122223333", "sso_role": "floe-sso-role",
    "issued": {"imds": 0, "container": 0, "sso": 0},
    "stats": {"token_puts": 0, "role_gets": 0, "cred_gets": 0, "unauthorized": 0,
              "container_gets": 0, "container_refused": 0, "sso_gets": 0, "sso_refused": 0},
}
CONFIG_KEYS = ("container_token", "fail", "container_fail", "expiry_s", "role", "sso_token", "sso_account",
               "sso_role")


def fail_now(kind):
    """Whether this request of `kind` is one fail_next asked to fail (counts it down)."""
    with LOCK:
        if STATE["fail_next"].get(kind, 0) > 0:
            STATE["fail_next"][kind] -= 1
            return True
    return False


def creds(kind):
    with LOCK:
        STATE["issued"][kind] += 1
        n = STATE["issued"][kind]
        exp = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=STATE["expiry_s"])
    doc = {"AccessKeyId": "ASIA%s%d" % (kind.upper(), n), "SecretAccessKey": "%s-secret-%d" % (kind, n),
           "Token": "%s-session-%d" % (kind, n), "Expiration": exp.strftime("%Y-%m-%dT%H:%M:%SZ")}
    if kind == "sso":
        return json.dumps({"roleCredentials": {
            "accessKeyId": doc["AccessKeyId"], "secretAccessKey": doc["SecretAccessKey"],
            "sessionToken": doc["Token"], "expiration": int(exp.timestamp() * 1000)}}).encode()
    if kind == "imds":
        doc.update({"Code": "Success", "Type": "AWS-HMAC",
                    "LastUpdated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")})
    return json.dumps(doc).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: tokens must not be logged
        pass

    def reply(self, status, body=b"", ctype="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_PUT(self):
        self.body()
        if self.path != "/latest/api/token":
            return self.reply(404)
        ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds")
        if not ttl or not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
            return self.reply(400)
        with LOCK:
            STATE["stats"]["token_puts"] += 1
            STATE["token_seq"] += 1
            tok = "imds-token-%d" % STATE["token_seq"]
            STATE["tokens"].add(tok)
        self.reply(200, tok.encode())

    def do_GET(self):
        if self.path == "/_control/stats":
            with LOCK:
                s = dict(STATE["stats"])
                s["issued"] = dict(STATE["issued"])
            return self.reply(200, json.dumps(s).encode(), "application/json")
        if self.path == "/container/creds":
            with LOCK:
                STATE["stats"]["container_gets"] += 1
                ok = STATE["container_token"] != "" and self.headers.get("Authorization") == STATE["container_token"]
                if not ok:
                    STATE["stats"]["container_refused"] += 1
                fail = STATE["container_fail"]
            if not ok:
                return self.reply(401, b'{"message":"bad token"}', "application/json")
            if fail:
                return self.reply(500, b'{"message":"internal error"}', "application/json")
            if fail_now("container"):
                return self.reply(503, b'{"message":"try again"}', "application/json")
            return self.reply(200, creds("container"), "application/json")
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/federation/credentials":
            q = urllib.parse.parse_qs(url.query)
            with LOCK:
                STATE["stats"]["sso_gets"] += 1
                tok_ok = STATE["sso_token"] != "" and self.headers.get("x-amz-sso_bearer_token") == STATE["sso_token"]
                role_ok = (q.get("account_id") == [STATE["sso_account"]] and q.get("role_name") == [STATE["sso_role"]])
                if not (tok_ok and role_ok):
                    STATE["stats"]["sso_refused"] += 1
            if not tok_ok:
                return self.reply(401, b'{"message":"Session token not found or invalid"}', "application/json")
            if not role_ok:
                return self.reply(403, b'{"message":"No access"}', "application/json")
            if fail_now("sso"):
                return self.reply(503, b'{"message":"try again"}', "application/json")
            return self.reply(200, creds("sso"), "application/json")
        prefix = "/latest/meta-data/iam/security-credentials/"
        if not self.path.startswith(prefix):
            return self.reply(404)
        with LOCK:
            valid = self.headers.get("X-aws-ec2-metadata-token") in STATE["tokens"]
            if not valid:
                STATE["stats"]["unauthorized"] += 1
        if not valid:
            return self.reply(401)
        role = self.path[len(prefix):]
        with LOCK:
            if role == "":
                STATE["stats"]["role_gets"] += 1
                return self.reply(200, STATE["role"].encode())
            STATE["stats"]["cred_gets"] += 1
            known, fail = role == STATE["role"], STATE["fail"]
        if not known:
            return self.reply(404)
        if fail:
            return self.reply(500, b"internal error")
        if fail_now("imds"):
            return self.reply(503, b"try again")
        self.reply(200, creds("imds"), "application/json")

    def do_POST(self):
        data = self.body()
        if self.path == "/_control/expire-tokens":
            with LOCK:
                STATE["tokens"].clear()
            return self.reply(200, b'{"ok": true}', "application/json")
        if self.path == "/_control/config":
            cfg = json.loads(data or b"{}")
            with LOCK:
                for k in CONFIG_KEYS:
                    if k in cfg:
                        STATE[k] = cfg[k]
                for kind, n in cfg.get("fail_next", {}).items():
                    STATE["fail_next"][kind] = int(n)
            return self.reply(200, b'{"ok": true}', "application/json")
        self.reply(404)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    print(json.dumps({"port": srv.server_address[1]}), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
