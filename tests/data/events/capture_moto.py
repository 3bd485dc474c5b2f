#!/usr/bin/env python3
"""Captures the S3 event notification bodies moto 5.2.1 (server mode) puts
on an SQS queue, as the files moto-*.json beside this script.

  python3 tests/data/events/capture_moto.py [OUT_DIR]

Starts moto on a free loopback port, makes a bucket whose ObjectCreated and
ObjectRemoved notifications go to a queue, then: a PUT of a key with a
space, '+', '%', unicode and a '/' in it; a multipart upload (two parts);
a copy; a delete. Then a second bucket whose notifications go to an SNS
topic (subscribed by one queue with raw delivery and one without) and to
EventBridge (a rule on source aws.s3 targeting a third queue), and one PUT
there. Reads every message from the queues with boto3 and writes each body
byte for byte as moto-*.json (moto sends one record per message; its
s3:TestEvent arrives first). Traffic goes to 127.0.0.1 only.
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                  AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")

import boto3  # noqa: E402


def drain(sqs, q):
    bodies = []
    while True:
        r = sqs.receive_message(QueueUrl=q, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        msgs = r.get("Messages", [])
        if not msgs:
            return bodies
        for m in msgs:
            bodies.append(m["Body"])
            sqs.delete_message(QueueUrl=q, ReceiptHandle=m["ReceiptHandle"])


def save(out, stem, bodies):
    for i, b in enumerate(bodies):
        try:
            doc = json.loads(b)
            if "Message" in doc:
                doc = json.loads(doc["Message"])
            if "detail-type" in doc:
                what = doc["detail-type"].replace(" ", "")
            else:
                what = doc.get("Records", [{}])[0].get("eventName", "").replace(":", "-") or "test-event"
        except (ValueError, IndexError, AttributeError):
            what = "unparsed"
        name = f"{stem}-{i:02d}-{what}.json"
        with open(os.path.join(out, name), "w", encoding="utf-8", newline="") as f:
            f.write(b)
        print(name)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    moto = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ep = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                urllib.request.urlopen(ep + "/moto-api/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)  # start-up poll
        s3 = boto3.client("s3", endpoint_url=ep)
        sqs = boto3.client("sqs", endpoint_url=ep)
        q = sqs.create_queue(QueueName="events")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=q, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        s3.create_bucket(Bucket="lake")
        s3.put_bucket_notification_configuration(Bucket="lake", NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]}]})
        s3.put_object(Bucket="lake", Key="in/day 1/a+b%c é☃.parquet", Body=b"x" * 100)
        mp = s3.create_multipart_upload(Bucket="lake", Key="in/big.parquet")
        parts = []
        for n in (1, 2):
            r = s3.upload_part(Bucket="lake", Key="in/big.parquet", UploadId=mp["UploadId"], PartNumber=n,
                               Body=(b"p" * (5 << 20)) if n == 1 else b"tail")
            parts.append({"ETag": r["ETag"], "PartNumber": n})
        s3.complete_multipart_upload(Bucket="lake", Key="in/big.parquet", UploadId=mp["UploadId"],
                                     MultipartUpload={"Parts": parts})
        s3.copy_object(Bucket="lake", Key="in/copy.parquet", CopySource={"Bucket": "lake", "Key": "in/big.parquet"})
        s3.delete_object(Bucket="lake", Key="in/copy.parquet")
        save(out, "moto", drain(sqs, q))

        # The same through SNS (one subscription with raw delivery, one
        # without) and through EventBridge (a rule on aws.s3 with the queue
        # as its target).
        sns = boto3.client("sns", endpoint_url=ep)
        events = boto3.client("events", endpoint_url=ep)
        topic = sns.create_topic(Name="lake-events")["TopicArn"]
        wrapped = sqs.create_queue(QueueName="wrapped")["QueueUrl"]
        raw = sqs.create_queue(QueueName="raw")["QueueUrl"]
        bridged = sqs.create_queue(QueueName="bridged")["QueueUrl"]
        arn_of = lambda u: sqs.get_queue_attributes(QueueUrl=u, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn_of(wrapped))
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn_of(raw), Attributes={"RawMessageDelivery": "true"})
        events.put_rule(Name="s3-created", EventPattern=json.dumps({"source": ["aws.s3"]}))
        events.put_targets(Rule="s3-created", Targets=[{"Id": "q", "Arn": arn_of(bridged)}])
        s3.create_bucket(Bucket="lake2")
        s3.put_bucket_notification_configuration(Bucket="lake2", NotificationConfiguration={
            "TopicConfigurations": [{"TopicArn": topic, "Events": ["s3:ObjectCreated:*"]}],
            "EventBridgeConfiguration": {}})
        s3.put_object(Bucket="lake2", Key="out/x y+z.parquet", Body=b"y" * 10)
        save(out, "moto-sns", drain(sqs, wrapped))
        save(out, "moto-sns-raw", drain(sqs, raw))
        save(out, "moto-eventbridge", drain(sqs, bridged))
    finally:
        moto.terminate()
        moto.wait()


if __name__ == "__main__":
    main()
