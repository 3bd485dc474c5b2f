#!/usr/bin/env python3
"""boto3 doing what `floe watch` does, for bench/scenarios/watch_scenario.py:
receive S3 events from an SQS queue (10 per call, long poll), HEAD each
object (If-Match on the event's ETag, 8 at once on one client), write one
ledger commit per batch (a numbered JSON object created with
If-None-Match: *, the next number on a 412), then DeleteMessageBatch.

  boto3_watch.py ENDPOINT QUEUE_URL LEDGER_BUCKET LEDGER_PREFIX COUNT

Stops once COUNT objects are settled (registered, or skipped: gone or
replaced); prints {"registered", "skipped", "commits", "seconds"} as JSON. One writer: what it registered is not checked against
other writers (floe's ledger does that; this is the cheapest fair peer).
"""
import json
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def main():
    endpoint, queue, lbucket, lprefix, count = sys.argv[1:6]
    count = int(count)
    cfg = Config(max_pool_connections=16, retries={"max_attempts": 1}, s3={"addressing_style": "path"},
                 request_checksum_calculation="when_required", response_checksum_validation="when_required")
    s3 = boto3.client("s3", endpoint_url=endpoint, config=cfg)
    sqs = boto3.client("sqs", endpoint_url=endpoint, config=cfg)
    pool = ThreadPoolExecutor(8)
    registered, skipped, commit, seen = 0, 0, 1, set()
    t0 = time.perf_counter()

    def head(rec):
        o = rec["s3"]["object"]
        b, k = rec["s3"]["bucket"]["name"], urllib.parse.unquote_plus(o["key"])
        try:
            h = s3.head_object(Bucket=b, Key=k, IfMatch='"' + o["eTag"].strip('"') + '"')
        except ClientError:
            return None  # gone or replaced: skipped
        return [b, k, h["ETag"].strip('"'), h["ContentLength"]]

    while registered + skipped < count:
        msgs = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10, WaitTimeSeconds=1,
                                   VisibilityTimeout=60).get("Messages", [])
        if not msgs:
            continue
        records = [r for m in msgs for r in json.loads(m["Body"]).get("Records", [])
                   if r.get("eventName", "").startswith("ObjectCreated:")]
        heads = list(pool.map(head, records))
        skipped += sum(1 for e in heads if e is None)
        entries = [e for e in heads if e and tuple(e[:3]) not in seen]
        if entries:
            while True:
                body = json.dumps({"floe_ledger": 1, "kind": "commit", "commit": commit, "write_id": f"boto3.{commit}",
                                   "writer": "boto3", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                   "entries": entries})
                try:
                    s3.put_object(Bucket=lbucket, Key=f"{lprefix}_log/{commit:020d}.json", Body=body.encode(),
                                  IfNoneMatch="*", ContentType="application/json")
                    break
                except ClientError as e:
                    if e.response["Error"]["Code"] not in ("PreconditionFailed", "412"):
                        raise
                    commit += 1
            commit += 1
            for e in entries:
                seen.add(tuple(e[:3]))
            registered += len(entries)
        sqs.delete_message_batch(QueueUrl=queue, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                                                          for i, m in enumerate(msgs)])
    print(json.dumps({"registered": registered, "skipped": skipped, "commits": commit - 1,
                      "seconds": time.perf_counter() - t0}))


if __name__ == "__main__":
    main()
