#!/usr/bin/env python3
"""scripts/demo's Python glue: what floe has no command for (an IAM role, a
queue's redrive policy, a bucket notification: boto3 straight at moto), the
test proxy's control API, /metrics, and the polls the demo waits on. Each poll
has a deadline and names what it waited for when it runs out; none sleeps as
synchronisation.

  demo_aws.py port
  demo_aws.py wait-http URL PID SECONDS
  demo_aws.py wait-ready FILE PID SECONDS           the proxy's ready file: "PORT CONTROL_PORT"
  demo_aws.py proxy-setup CONTROL                   verifier and per-object serialisation on
  demo_aws.py revoke CONTROL                        every key STS issued so far
  demo_aws.py stats CONTROL                         "STS_CALLS REVOKED_REJECTIONS"
  demo_aws.py setup MOTO BUCKET QUEUE DLQ ROLE_NAME
  demo_aws.py wait-log FILE REGEX PID SECONDS       prints the regex's group 1
  demo_aws.py wait-jsonl FILE PID SECONDS BUCKET KEY...
  demo_aws.py metrics BASE NAME...                  those samples of BASE/metrics; BASE/healthz
"""
import json
import os
import re
import socket
import sys
import time
import urllib.error
import urllib.request

# Loopback only, whatever HTTP_PROXY says.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def fail(msg):
    sys.exit(f"demo: {msg}")


def alive(pid):
    try:
        os.kill(int(pid), 0)
        return True
    except OSError:
        return False


def poll(what, pid, seconds, probe, interval=0.1):
    """Calls probe() until it returns something other than None; fails
    naming `what` when the deadline passes or process `pid` has exited."""
    deadline = time.monotonic() + float(seconds)
    while True:
        got = probe()
        if got is not None:
            return got
        if pid != "-" and not alive(pid):
            fail(f"process {pid} exited while waiting for {what}")
        if time.monotonic() > deadline:
            fail(f"{what}: not there within {seconds} s")
        time.sleep(interval)  # the poll's pace, not a wait for an outcome


def port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


def wait_http(url, pid, seconds):
    def probe():
        try:
            DIRECT.open(url, timeout=1).read()
            return True
        except urllib.error.HTTPError:
            return True  # it answered
        except OSError:
            return None
    poll(url, pid, seconds, probe)


def wait_ready(path, pid, seconds):
    """The proxy's ready file: prints "PORT CONTROL_PORT"."""
    d = json.loads(poll(path, pid, seconds, lambda: open(path).read() if os.path.exists(path) else None))
    print(d["port"], d["control_port"])


def setup(moto, bucket, queue, dlq, role):
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    import boto3
    iam = boto3.client("iam", endpoint_url=moto)
    sqs = boto3.client("sqs", endpoint_url=moto)
    s3 = boto3.client("s3", endpoint_url=moto)

    def show(call):
        print(f"$ (boto3) {call}")

    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
        "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/demo.floe.invalid"}}]}
    show(f"iam.create_role(RoleName={role!r}, AssumeRolePolicyDocument=<web identity trust>)")
    arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    print(arn)

    def queue_arn(url):
        return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    queue_url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
    dlq_url = sqs.get_queue_url(QueueName=dlq)["QueueUrl"]
    redrive = {"deadLetterTargetArn": queue_arn(dlq_url), "maxReceiveCount": "3"}
    show(f"sqs.set_queue_attributes(QueueUrl=<{queue}>, Attributes={{'RedrivePolicy': {json.dumps(redrive)!r}}})")
    sqs.set_queue_attributes(QueueUrl=queue_url, Attributes={"RedrivePolicy": json.dumps(redrive)})
    conf = {"QueueConfigurations": [{"QueueArn": queue_arn(queue_url), "Events": ["s3:ObjectCreated:*"]}]}
    show(f"s3.put_bucket_notification_configuration(Bucket={bucket!r}, NotificationConfiguration={conf})")
    s3.put_bucket_notification_configuration(Bucket=bucket, NotificationConfiguration=conf)


def control(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with DIRECT.open(req, timeout=10) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        fail(f"proxy {method} {path}: {e.code} {e.read().decode(errors='replace')}")


def proxy_setup(base):
    """The SigV4 verifier on, knowing the demo's key (AWS_ACCESS_KEY_ID and
    AWS_SECRET_ACCESS_KEY, from the environment: never on a command line)
    and learning each key STS issues; per-object serialisation on."""
    keys = {os.environ["AWS_ACCESS_KEY_ID"]: os.environ["AWS_SECRET_ACCESS_KEY"]}
    control(base, "POST", "/verify", {"enabled": True, "secrets": keys})
    control(base, "POST", "/serialize", {"enabled": True})


def revoke(base):
    n = len(control(base, "POST", "/revoke", {"access_keys": "all-issued"})["revoked"])
    print(f"{n} access key(s) revoked: from now on a request signed with one gets 403 AccessDenied")


def stats(base):
    """Prints "STS_CALLS REVOKED_REJECTIONS"."""
    v = control(base, "GET", "/stats")
    print(v["by_service"].get("sts", 0), v["revoked_rejections"])


def wait_log(path, regex, pid, seconds):
    pattern = re.compile(regex)

    def probe():
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = pattern.search(line)
                if m:
                    return m.group(1) if m.groups() else line.rstrip("\n")
        return None
    print(poll(f"a log line matching {regex!r} in {os.path.basename(path)}", pid, seconds, probe))


def wait_jsonl(path, pid, seconds, bucket, *keys):
    """Until every KEY of BUCKET is among the watcher's --jsonl lines; each
    object registered at most once (a second line for one would be a bug)."""
    want = set(keys)

    def probe():
        seen = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.endswith("\n"):
                    d = json.loads(line)
                    if d["bucket"] == bucket:
                        seen.append(d["key"])
        twice = sorted({k for k in seen if seen.count(k) > 1})
        if twice:
            fail(f"registered more than once: {twice}")
        return True if want <= set(seen) else None

    try:
        poll(f"{len(want)} objects registered", pid, seconds, probe)
    except SystemExit:
        with open(path, encoding="utf-8") as f:
            got = {json.loads(line)["key"] for line in f if line.endswith("\n")}
        print(f"demo: not registered: {sorted(want - got)}", file=sys.stderr)
        raise


def metrics(base, *names):
    """Those samples of BASE/metrics, then BASE/healthz's answer."""
    with DIRECT.open(base + "/metrics", timeout=10) as r:
        text = r.read().decode()
    for line in text.splitlines():
        if any(line.startswith(n + " ") or line.startswith(n + "{") for n in names):
            print(line)
    try:
        with DIRECT.open(base + "/healthz", timeout=10) as r:
            print(f"/healthz: {r.status} {r.read().decode().strip()}")
    except urllib.error.HTTPError as e:
        print(f"/healthz: {e.code} {e.read().decode().strip()}")


COMMANDS = {"port": port, "wait-http": wait_http, "wait-ready": wait_ready, "proxy-setup": proxy_setup,
            "revoke": revoke, "stats": stats, "setup": setup, "wait-log": wait_log, "wait-jsonl": wait_jsonl,
            "metrics": metrics}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        fail(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
