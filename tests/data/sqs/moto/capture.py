#!/usr/bin/env python3
"""Captures moto 5.2.1's SQS JSON-protocol replies as test data.

Starts `python3 -m moto.server` on a free loopback port in a throw-away
process, sends every request below (POST /, X-Amz-Target: AmazonSQS.<Op>,
Content-Type: application/x-amz-json-1.0, queue URL in the body, signed by
botocore with dummy credentials), and writes one file per exchange:

    <name>.json = {"source", "operation",
                   "request": {"target", "body"},           body as sent
                   "reply": {"status", "headers", "body"}}  body verbatim

Run from anywhere: python3 tests/data/sqs/moto/capture.py
Loopback only; the instance metadata service is never consulted.
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import time

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

OUT = os.path.dirname(os.path.abspath(__file__))
ACCOUNT = "123456789012"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Moto:
    def __init__(self):
        self.port = free_port()
        env = dict(os.environ, AWS_EC2_METADATA_DISABLED="true")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/moto-api/")
                c.getresponse().read()
                return
            except OSError:
                time.sleep(0.2)
        self.stop()
        sys.exit("moto did not start")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def main():
    import moto
    version = moto.__version__
    server = Moto()
    base = f"http://127.0.0.1:{server.port}"
    creds = Credentials("AKIDEXAMPLE", "dummy-secret-for-moto")
    written = []

    def call(name, op, body, raw=None):
        data = raw if raw is not None else json.dumps(body)
        req = AWSRequest(method="POST", url=base + "/", data=data.encode(),
                         headers={"X-Amz-Target": "AmazonSQS." + op,
                                  "Content-Type": "application/x-amz-json-1.0"})
        SigV4Auth(creds, "sqs", "us-east-1").add_auth(req)
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        c.request("POST", "/", body=req.body, headers=dict(req.headers.items()))
        r = c.getresponse()
        reply = r.read()
        doc = {
            "source": f"moto {version} server mode, captured by tests/data/sqs/moto/capture.py",
            "operation": op,
            "request": {"target": "AmazonSQS." + op, "body": data},
            "reply": {"status": r.status, "headers": [[k, v] for k, v in r.getheaders()],
                      "body": reply.decode("utf-8")},
        }
        with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        written.append(name)
        return json.loads(reply) if reply.strip().startswith(b"{") else None

    try:
        q = call("create-queue", "CreateQueue",
                 {"QueueName": "floe-q", "Attributes": {"VisibilityTimeout": "30"}})["QueueUrl"]
        call("create-queue-exists-different", "CreateQueue",
             {"QueueName": "floe-q", "Attributes": {"VisibilityTimeout": "31"}})
        fifo = call("create-queue-fifo", "CreateQueue",
                    {"QueueName": "floe-q.fifo",
                     "Attributes": {"FifoQueue": "true", "ContentBasedDeduplication": "true"}})["QueueUrl"]
        call("get-queue-url", "GetQueueUrl", {"QueueName": "floe-q"})
        call("get-queue-url-missing", "GetQueueUrl", {"QueueName": "floe-missing"})
        call("get-queue-attributes-all", "GetQueueAttributes", {"QueueUrl": q, "AttributeNames": ["All"]})
        call("get-queue-attributes-some", "GetQueueAttributes",
             {"QueueUrl": q, "AttributeNames": ["ApproximateNumberOfMessages", "VisibilityTimeout"]})
        call("set-queue-attributes", "SetQueueAttributes",
             {"QueueUrl": q, "Attributes": {"VisibilityTimeout": "45", "ReceiveMessageWaitTimeSeconds": "0"}})
        call("send-message", "SendMessage", {"QueueUrl": q, "MessageBody": "hello floe"})
        call("send-message-unicode", "SendMessage",
             {"QueueUrl": q, "MessageBody": "line 1\nline 2\r\n\ttab \"quoted\" \\ back\u00e9\u4e16\u754c\U0001F600 end"})
        call("send-message-missing-queue", "SendMessage",
             {"QueueUrl": f"{base}/{ACCOUNT}/floe-missing", "MessageBody": "x"})
        call("send-message-fifo", "SendMessage",
             {"QueueUrl": fifo, "MessageBody": "fifo body", "MessageGroupId": "g1",
              "MessageDeduplicationId": "d1"})
        call("send-message-batch", "SendMessageBatch",
             {"QueueUrl": q, "Entries": [
                 {"Id": "a", "MessageBody": "first"},
                 {"Id": "b", "MessageBody": "second \u00fc\U0001F680"},
                 {"Id": "c", "MessageBody": "late", "DelaySeconds": 1800}]})
        call("send-message-batch-empty", "SendMessageBatch", {"QueueUrl": q, "Entries": []})
        call("send-message-batch-too-many", "SendMessageBatch",
             {"QueueUrl": q, "Entries": [{"Id": f"e{i}", "MessageBody": "x"} for i in range(11)]})
        call("send-message-batch-duplicate-ids", "SendMessageBatch",
             {"QueueUrl": q, "Entries": [{"Id": "same", "MessageBody": "1"}, {"Id": "same", "MessageBody": "2"}]})
        got = call("receive-message-all", "ReceiveMessage",
                   {"QueueUrl": q, "MaxNumberOfMessages": 10, "WaitTimeSeconds": 0, "VisibilityTimeout": 30,
                    "MessageSystemAttributeNames": ["All"]})
        handles = [m["ReceiptHandle"] for m in got.get("Messages", [])]
        call("receive-message-empty", "ReceiveMessage",
             {"QueueUrl": q, "MaxNumberOfMessages": 10, "WaitTimeSeconds": 1})
        call("receive-message-too-many", "ReceiveMessage", {"QueueUrl": q, "MaxNumberOfMessages": 11})
        call("receive-message-wait-too-long", "ReceiveMessage", {"QueueUrl": q, "WaitTimeSeconds": 21})
        call("change-message-visibility", "ChangeMessageVisibility",
             {"QueueUrl": q, "ReceiptHandle": handles[0], "VisibilityTimeout": 0})
        call("change-message-visibility-invalid", "ChangeMessageVisibility",
             {"QueueUrl": q, "ReceiptHandle": "not-a-receipt-handle", "VisibilityTimeout": 10})
        call("change-message-visibility-batch", "ChangeMessageVisibilityBatch",
             {"QueueUrl": q, "Entries": [
                 {"Id": "ok", "ReceiptHandle": handles[1], "VisibilityTimeout": 0},
                 {"Id": "bad", "ReceiptHandle": "not-a-receipt-handle", "VisibilityTimeout": 60}]})
        # The two messages made visible again, through the legacy field
        # (AttributeNames) and with only the counters asked for.
        got = call("receive-message-legacy-attribute-names", "ReceiveMessage",
                   {"QueueUrl": q, "MaxNumberOfMessages": 10, "VisibilityTimeout": 30,
                    "AttributeNames": ["ApproximateReceiveCount", "SentTimestamp"]})
        handles = [m["ReceiptHandle"] for m in got.get("Messages", [])]
        call("receive-message-fifo", "ReceiveMessage",
             {"QueueUrl": fifo, "MaxNumberOfMessages": 1,
              "MessageSystemAttributeNames": ["MessageGroupId", "MessageDeduplicationId", "SequenceNumber"]})
        call("delete-message", "DeleteMessage", {"QueueUrl": q, "ReceiptHandle": handles[0]})
        call("delete-message-invalid", "DeleteMessage", {"QueueUrl": q, "ReceiptHandle": "not-a-receipt-handle"})
        call("delete-message-batch", "DeleteMessageBatch",
             {"QueueUrl": q, "Entries": [
                 {"Id": "ok", "ReceiptHandle": handles[1]},
                 {"Id": "bad", "ReceiptHandle": "not-a-receipt-handle"}]})
        call("delete-message-batch-empty", "DeleteMessageBatch", {"QueueUrl": q, "Entries": []})
        call("purge-queue", "PurgeQueue", {"QueueUrl": q})
        call("delete-queue", "DeleteQueue", {"QueueUrl": q})
        call("delete-queue-missing", "DeleteQueue", {"QueueUrl": q})
        call("unknown-operation", "NoSuchOperation", {})
    finally:
        server.stop()
    print(f"captured {len(written)} exchanges from moto {version} into {OUT}")


if __name__ == "__main__":
    main()
