#!/usr/bin/env python3
"""Uploads an object carrying an S3 checksum, with boto3, straight to a store
(moto: it keeps the checksum a client sends; floe sends none on upload yet),
and prints one JSON line: {"etag": ..., "checksum": ..., "type": ...}.

    put_with_checksum.py ENDPOINT BUCKET KEY ALGORITHM DATA_FILE [--parts N] [--value V]

ALGORITHM: CRC32 | CRC32C | CRC64NVME | SHA1 | SHA256. With --parts N the
object goes up as a multipart upload of N equal parts (the last takes the
rest; 5 MiB at least but the last), each with its checksum: S3's composite
checksum ("<base64>-N") for the whole. With --value V (one PUT) the checksum
is V as given, sent with x-amz-sdk-checksum-algorithm (which moto needs to
keep it): botocore computes CRC64NVME only with the AWS CRT, not installed
here, so the caller computes it.
"""
import argparse
import json
import sys

import boto3
from botocore.config import Config


def main():
    ap = argparse.ArgumentParser()
    for a in ("endpoint", "bucket", "key", "algorithm", "data_file"):
        ap.add_argument(a)
    ap.add_argument("--parts", type=int, default=0)
    ap.add_argument("--value", default="")
    a = ap.parse_args()
    s3 = boto3.client("s3", endpoint_url=a.endpoint, region_name="us-east-1",
                      aws_access_key_id="AKIDPUTWITHCHECKSUM", aws_secret_access_key="unused",
                      config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
    with open(a.data_file, "rb") as fh:
        data = fh.read()
    field = "Checksum" + a.algorithm
    if a.value:
        def name_algorithm(request, **_):
            request.headers["x-amz-sdk-checksum-algorithm"] = a.algorithm
        s3.meta.events.register("before-sign.s3.PutObject", name_algorithm)
        r = s3.put_object(Bucket=a.bucket, Key=a.key, Body=data, **{field: a.value})
        out = {"etag": r["ETag"], "checksum": r.get(field, a.value), "type": r.get("ChecksumType", "")}
    elif a.parts <= 1:
        r = s3.put_object(Bucket=a.bucket, Key=a.key, Body=data, ChecksumAlgorithm=a.algorithm)
        out = {"etag": r["ETag"], "checksum": r.get(field, ""), "type": r.get("ChecksumType", "")}
    else:
        up = s3.create_multipart_upload(Bucket=a.bucket, Key=a.key, ChecksumAlgorithm=a.algorithm)
        uid = up["UploadId"]
        size = len(data) // a.parts
        parts = []
        for i in range(a.parts):
            piece = data[i * size:] if i == a.parts - 1 else data[i * size:(i + 1) * size]
            r = s3.upload_part(Bucket=a.bucket, Key=a.key, UploadId=uid, PartNumber=i + 1, Body=piece,
                               ChecksumAlgorithm=a.algorithm)
            parts.append({"PartNumber": i + 1, "ETag": r["ETag"], field: r[field]})
        r = s3.complete_multipart_upload(Bucket=a.bucket, Key=a.key, UploadId=uid,
                                         MultipartUpload={"Parts": parts})
        out = {"etag": r["ETag"], "checksum": r.get(field, ""), "type": r.get("ChecksumType", "")}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
