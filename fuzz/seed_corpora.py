#!/usr/bin/env python3
"""Writes the derived seeds of the fuzz corpora (fuzz/README.md says which).

  fuzz/seed_corpora.py vectors     bodies of tests/data/vectors/errors/*.http
                                   -> corpus/error_xml/vector-*; requests of
                                   the AWS SigV4 suite -> corpus/sigv4_canonical/suite-*
  fuzz/seed_corpora.py moto        starts moto 5.2.1 on a free loopback port
                                   and saves the bodies of its S3 and STS
                                   replies -> corpus/{s3_replies,sts_replies}/moto-*
  fuzz/seed_corpora.py store URL ACCESS_KEY SECRET_KEY PREFIX
                                   the same S3 replies from another store on
                                   loopback (e.g. the Ceph RGW scripts/test
                                   starts) -> corpus/s3_replies/PREFIX-*

Only loopback endpoints are accepted. Files are written, never deleted; the
hand-written seeds beside them are kept as they are.
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


def vectors():
    errors = os.path.join(ROOT, "tests", "data", "vectors", "errors")
    for f in sorted(os.listdir(errors)):
        if not f.endswith(".http"):
            continue
        with open(os.path.join(errors, f), "rb") as fh:
            raw = fh.read()
        body = raw.partition(b"\r\n\r\n")[2]
        if body:
            write("error_xml", "vector-" + f[:-5] + ".xml", body)

    # One seed per suite case: flag byte, path as key and as wire path, a
    # bucket, the query parameters (decoded where the suite encodes them)
    # and the headers, in fuzz_sigv4_canonical's layout.
    suite = os.path.join(ROOT, "tests", "data", "vectors", "sigv4")
    for case in sorted(os.listdir(suite)):
        req_path = os.path.join(suite, case, "request.txt")
        if not os.path.isfile(req_path):
            continue
        with open(req_path, "rb") as fh:
            text = fh.read()
        head = text.split(b"\n\n", 1)[0].split(b"\n")
        line = head[0]
        target = line[line.index(b" ") + 1:line.rindex(b" HTTP/")]
        path, _, query = target.partition(b"?")
        fields = [urllib.parse.unquote_to_bytes(path), path, b"examplebucket"]
        for item in query.split(b"&") if query else []:
            name, eq, value = item.partition(b"=")
            n, v = urllib.parse.unquote_to_bytes(name), urllib.parse.unquote_to_bytes(value)
            fields.append(n + b"\x01" + v if eq else n)
        for h in head[1:]:
            if h[:1] in (b" ", b"\t") or b":" not in h:
                continue
            name, _, value = h.partition(b":")
            fields.append(b"\x02" + name + b"\x01" + value)
        flags = 1 if case.startswith("get-vanilla") else 0
        if "session-token" in case:
            flags |= 2
        write("sigv4_canonical", "suite-" + case, bytes([flags]) + b"\x00".join(fields))
        write("sigv4_canonical", "suite-presign-" + case, bytes([flags | 4]) + b"\x00".join(fields))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_only(url):
    host = urllib.parse.urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        sys.exit(f"seed_corpora: {url} is not a loopback endpoint")


def capture(client, service, target, prefix, names):
    """Saves the body of every reply `client` parses, under the operation's name."""
    seen = {}
    bodies = set()

    def keep(response_dict, operation_model, **_):
        body = response_dict.get("body") or b""
        status = response_dict.get("status_code", 0)
        if not body.strip() or status >= 300 or body in bodies:
            return
        bodies.add(body)
        n = names.get(operation_model.name, operation_model.name)
        seen[n] = seen.get(n, 0) + 1
        suffix = "" if seen[n] == 1 else f"-{seen[n]}"
        write(target, f"{prefix}-{n}{suffix}.xml", body)

    client.meta.events.register(f"before-parse.{service}.*", keep)


def s3_session(client, bucket):
    client.create_bucket(Bucket=bucket)
    client.create_bucket(Bucket=bucket + "-other")
    keys = ["plain.txt", "dir/a b.txt", "dir/sub/x+y=z.bin", "dir/ünï©ødé €.txt", "per%cent&amp;<x>", "dir/~tilde"]
    for k in keys:
        client.put_object(Bucket=bucket, Key=k, Body=b"v:" + k.encode())
    client.list_objects_v2(Bucket=bucket, EncodingType="url")
    client.list_objects_v2(Bucket=bucket)
    client.list_objects_v2(Bucket=bucket, EncodingType="url", Delimiter="/")
    client.list_objects_v2(Bucket=bucket, EncodingType="url", MaxKeys=2)
    client.list_objects_v2(Bucket=bucket, Prefix="nothing-here/")
    client.list_buckets()
    up = client.create_multipart_upload(Bucket=bucket, Key="big")
    part = client.upload_part(Bucket=bucket, Key="big", UploadId=up["UploadId"], PartNumber=1, Body=b"x" * (5 << 20))
    copied = client.upload_part_copy(Bucket=bucket, Key="big", UploadId=up["UploadId"], PartNumber=2,
                                     CopySource={"Bucket": bucket, "Key": "plain.txt"})
    client.complete_multipart_upload(Bucket=bucket, Key="big", UploadId=up["UploadId"], MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": part["ETag"]},
                  {"PartNumber": 2, "ETag": copied["CopyPartResult"]["ETag"]}]})
    client.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "plain.txt"})
    client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys] + [{"Key": "missing"}]})
    client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "big"}, {"Key": "copy"}], "Quiet": False})


S3_NAMES = {"ListObjectsV2": "list-objects-v2", "ListBuckets": "list-buckets", "CreateMultipartUpload": "initiate",
            "UploadPartCopy": "copy-part", "CompleteMultipartUpload": "complete", "CopyObject": "copy-object",
            "DeleteObjects": "delete-objects"}


def s3_client(url, access_key, secret_key):
    import boto3
    from botocore.config import Config
    return boto3.client("s3", endpoint_url=url, region_name="us-east-1", aws_access_key_id=access_key,
                        aws_secret_access_key=secret_key,
                        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


def store(url, access_key, secret_key, prefix):
    loopback_only(url)
    c = s3_client(url, access_key, secret_key)
    capture(c, "s3", "s3_replies", prefix, S3_NAMES)
    s3_session(c, f"floe-seeds-{int(time.time())}")


def moto():
    import boto3
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/moto-api/", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    sys.exit("seed_corpora: moto did not start")
                time.sleep(0.1)  # start-up poll
        c = s3_client(url, "AKIDSEEDS", "seed/secret+key")
        capture(c, "s3", "s3_replies", "moto", S3_NAMES)
        s3_session(c, "floe-seeds")

        sts = boto3.client("sts", endpoint_url=url, region_name="us-east-1", aws_access_key_id="AKIDSEEDS",
                           aws_secret_access_key="seed/secret+key")
        capture(sts, "sts", "sts_replies", "moto", {"AssumeRole": "assume-role",
                                                     "AssumeRoleWithWebIdentity": "assume-role-web-identity",
                                                     "GetCallerIdentity": "caller-identity"})
        role = "arn:aws:iam::123456789012:role/floe-seeds"
        sts.assume_role(RoleArn=role, RoleSessionName="seeds", DurationSeconds=900, ExternalId="ext-1")
        sts.assume_role_with_web_identity(RoleArn=role, RoleSessionName="seeds-wi",
                                          WebIdentityToken="eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWVkcyJ9.c2ln")
        sts.get_caller_identity()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "vectors":
        vectors()
    elif len(sys.argv) >= 2 and sys.argv[1] == "moto":
        moto()
    elif len(sys.argv) == 6 and sys.argv[1] == "store":
        store(*sys.argv[2:])
    else:
        sys.exit(__doc__)
