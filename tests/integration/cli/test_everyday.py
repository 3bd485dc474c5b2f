#!/usr/bin/env python3
"""Issue 22, the one-object half: floe beside `aws s3` on the same store
(moto, Ceph RGW and OpenStack Swift, each behind the test proxy with its
SigV4 verifier on).

  test_everyday.py PATH_TO_FLOE

Content types guessed from names (and --no-guess-mime-type, --content-type);
--metadata a=1,b=2 as two entries and the ambiguous refused; S3-to-S3
copies with new metadata and type (REPLACE, the rest kept); --storage-class,
--sse, --acl and --cache-control on every upload and copy (what Ceph RGW
refuses named, and what Swift ignores or refuses); downloads that make
their directories; `ls` column for column with `aws s3 ls` (and
--human-readable, --summarize, the exit code of a prefix that matches
nothing); upload, download and copy lines as `aws s3` prints them; rb
--force; presign --expires-in. Prints
"floe-cases: N passed, M failed".
"""
import hashlib
import json
import os
import sys

import cli_support
from cli_support import StoreCase, direct_opener, write_tree


class Everyday(StoreCase):

    # ---- content types ----------------------------------------------------------

    # What `aws s3` sends (Python's table) for the common types; floe's own
    # table agrees on every one of them.
    SHARED = {"a.json": "application/json", "b.html": "text/html", "c.css": "text/css", "d.csv": "text/csv",
              "e.txt": "text/plain", "f.xml": "application/xml", "g.svg": "image/svg+xml", "h.png": "image/png",
              "i.jpg": "image/jpeg", "j.gif": "image/gif", "k.pdf": "application/pdf", "l.tar": "application/x-tar",
              "m.zip": "application/zip", "n.js": "text/javascript"}
    # Where Python's table has nothing (aws s3 sends none: binary/octet-stream).
    FLOE_ONLY = {"o.parquet": "application/vnd.apache.parquet", "p.avro": "application/avro",
                 "q.orc": "application/vnd.apache.orc", "r.gz": "application/gzip"}

    def test_content_type_guessed_from_the_name_like_aws(self):
        d = self.tmpdir()
        write_tree(d, {name: name.encode() for name in {**self.SHARED, **self.FLOE_ONLY}})
        self.floe("cp", "--recursive", d, self.uri("ct/floe"))
        self.aws("cp", "--recursive", "--no-progress", d, self.uri("ct/aws"))
        for name, want in self.SHARED.items():
            self.assertEqual(self.stat_json("ct/floe/" + name)["content_type"], want, name)
            self.assertEqual(self.stat_json("ct/aws/" + name)["content_type"], want, "aws s3: " + name)
        for name, want in self.FLOE_ONLY.items():
            self.assertEqual(self.stat_json("ct/floe/" + name)["content_type"], want, name)
        # One file, put --file, and stdin (named by its key).
        self.floe("cp", os.path.join(d, "b.html"), self.uri("ct/one.html"))
        self.assertEqual(self.stat_json("ct/one.html")["content_type"], "text/html")
        self.floe("put", self.uri("ct/put"), "--file", os.path.join(d, "a.json"))
        self.assertEqual(self.stat_json("ct/put")["content_type"], "application/json")
        self.floe("put", self.uri("ct/stdin.csv"), input=b"a,b\n")
        self.assertEqual(self.stat_json("ct/stdin.csv")["content_type"], "text/csv")
        # An explicit type always wins; --no-guess-mime-type sends none, as aws does.
        self.floe("cp", os.path.join(d, "a.json"), self.uri("ct/explicit.json"), "--content-type", "text/plain")
        self.assertEqual(self.stat_json("ct/explicit.json")["content_type"], "text/plain")
        self.floe("cp", os.path.join(d, "a.json"), self.uri("ct/none.json"), "--no-guess-mime-type")
        self.aws("cp", "--no-progress", "--no-guess-mime-type", os.path.join(d, "a.json"), self.uri("ct/aws-none.json"))
        default = self.stat_json("ct/aws-none.json")["content_type"]
        self.assertNotEqual(default, "application/json")
        self.assertEqual(self.stat_json("ct/none.json")["content_type"], default)

    # ---- metadata -----------------------------------------------------------------

    def test_metadata_comma_list_is_several_entries(self):
        self.floe("put", self.uri("md/two"), "--metadata", "a=1,b=2", input=b"x")
        self.assertEqual(self.stat_json("md/two")["metadata"], {"a": "1", "b": "2"})
        d = self.tmpdir()
        write_tree(d, {"f": b"f"})
        self.floe("cp", os.path.join(d, "f"), self.uri("md/three"), "--metadata", "x=1,y=a=b", "--metadata", "z=3")
        self.assertEqual(self.stat_json("md/three")["metadata"], {"x": "1", "y": "a=b", "z": "3"})
        self.floe("put", self.uri("md/json"), "--metadata", '{"list": "1,2"}', input=b"x")
        self.assertEqual(self.stat_json("md/json")["metadata"], {"list": "1,2"})
        # Ambiguous: refused before anything is sent.
        for bad in ("a=1,2", "a=1,", "a=1,A=2"):
            r = self.floe("put", self.uri("md/refused"), "--metadata", bad, input=b"x", rc=2)
            self.assertIn(b"--metadata", r.stderr)
        self.floe("stat", self.uri("md/refused"), rc=4)

    def test_s3_copy_with_new_metadata_or_type_replaces_the_sources(self):
        self.floe("put", self.uri("cpmd/src"), "--metadata", "old=1", "--content-type", "text/plain", input=b"s")

        def head(key):
            j = self.stat_json(key)
            return j["content_type"], j["metadata"]
        self.floe("cp", self.uri("cpmd/src"), self.uri("cpmd/both"), "--metadata", "new=2", "--content-type", "text/csv")
        self.assertEqual(head("cpmd/both"), ("text/csv", {"new": "2"}))
        # What is not given is the source's.
        self.floe("cp", self.uri("cpmd/src"), self.uri("cpmd/meta"), "--metadata", "new=3")
        self.assertEqual(head("cpmd/meta"), ("text/plain", {"new": "3"}))
        self.floe("cp", self.uri("cpmd/src"), self.uri("cpmd/type"), "--content-type", "text/csv")
        self.assertEqual(head("cpmd/type"), ("text/csv", {"old": "1"}))
        self.floe("cp", self.uri("cpmd/src"), self.uri("cpmd/plain"))
        self.assertEqual(head("cpmd/plain"), ("text/plain", {"old": "1"}))
        # Onto itself (aws s3's way to change an object's metadata).
        self.floe("cp", self.uri("cpmd/plain"), self.uri("cpmd/plain"), "--metadata", "again=4")
        self.assertEqual(head("cpmd/plain"), ("text/plain", {"again": "4"}))
        # mv, cp --recursive and sync between prefixes likewise.
        self.floe("cp", self.uri("cpmd/src"), self.uri("cpmd/moving"))
        self.floe("mv", self.uri("cpmd/moving"), self.uri("cpmd/moved"), "--metadata", "mv=1")
        self.assertEqual(head("cpmd/moved"), ("text/plain", {"mv": "1"}))
        self.floe("stat", self.uri("cpmd/moving"), rc=4)
        self.floe("put", self.uri("cptree/a/x.txt"), "--metadata", "old=1", input=b"x")
        self.floe("cp", "--recursive", self.uri("cptree/a/"), self.uri("cptree/b/"), "--content-type", "text/csv")
        self.assertEqual(head("cptree/b/x.txt"), ("text/csv", {"old": "1"}))
        self.floe("sync", self.uri("cptree/a/"), self.uri("cptree/c/"), "--metadata", "s=1")
        self.assertEqual(head("cptree/c/x.txt"), ("text/plain", {"s": "1"}))

    # ---- how objects are stored: --storage-class, --sse, --acl, --cache-control -----

    def s3(self):
        import boto3
        import botocore.config
        return boto3.client("s3", endpoint_url=self.target.endpoint, region_name="us-east-1",
                            aws_access_key_id=self.target.akid, aws_secret_access_key=self.target.secret,
                            config=botocore.config.Config(s3={"addressing_style": "path"}))

    def public_read(self, key):
        grants = self.s3().get_object_acl(Bucket=self.bucket, Key=key)["Grants"]
        return any(g["Grantee"].get("URI", "").endswith("/AllUsers") and g["Permission"] == "READ" for g in grants)

    def test_write_options_on_every_upload_and_copy(self):
        d = self.tmpdir()
        write_tree(d, {"f.txt": b"stored", "t/a.txt": b"a", "t/b.txt": b"b", "m.txt": b"m"})
        opts = ["--acl", "public-read", "--cache-control", "max-age=600"]
        self.floe("put", self.uri("wo/put"), *opts, input=b"p")
        self.floe("cp", os.path.join(d, "f.txt"), self.uri("wo/cp"), *opts)
        self.floe("cp", self.uri("wo/put"), self.uri("wo/copy"), *opts)
        self.floe("sync", os.path.join(d, "t"), self.uri("wo/sync/"), *opts)
        self.floe("mv", os.path.join(d, "m.txt"), self.uri("wo/mv"), *opts)
        s3 = self.s3()
        # OpenStack Swift's s3api, as the tests run it (s3_acl = false, its
        # default), takes a canned ACL and ignores it: every object's ACL is
        # the owner's FULL_CONTROL (docs/stores.md).
        acls_kept = self.target.name != "swift"
        for key in ("wo/put", "wo/cp", "wo/copy", "wo/sync/a.txt", "wo/sync/b.txt", "wo/mv"):
            self.assertEqual(s3.head_object(Bucket=self.bucket, Key=key).get("CacheControl"), "max-age=600", key)
            self.assertEqual(self.public_read(key), acls_kept, key)
        # Without them: the store's defaults (no Cache-Control, no public grant).
        self.floe("put", self.uri("wo/default"), input=b"d")
        self.assertIsNone(s3.head_object(Bucket=self.bucket, Key="wo/default").get("CacheControl"))
        self.assertFalse(self.public_read("wo/default"))
        # A copy's Cache-Control replaces the metadata, keeping the source's type and entries.
        self.floe("put", self.uri("wo/src.json"), "--metadata", "k=v", input=b"{}")
        self.floe("cp", self.uri("wo/src.json"), self.uri("wo/cc.json"), "--cache-control", "no-cache")
        h = s3.head_object(Bucket=self.bucket, Key="wo/cc.json")
        self.assertEqual((h.get("CacheControl"), h["ContentType"], h["Metadata"]), ("no-cache", "application/json", {"k": "v"}))
        # bucket-owner-full-control: the owner (also the writer here) has FULL_CONTROL.
        self.floe("put", self.uri("wo/bofc"), "--acl", "bucket-owner-full-control", input=b"o")
        grants = s3.get_object_acl(Bucket=self.bucket, Key="wo/bofc")["Grants"]
        self.assertEqual([g["Permission"] for g in grants], ["FULL_CONTROL"])

    def test_storage_class_and_sse(self):
        s3 = self.s3()
        if self.target.name == "moto":
            self.floe("put", self.uri("sc/ia"), "--storage-class", "STANDARD_IA", input=b"i")
            self.floe("cp", self.uri("sc/ia"), self.uri("sc/glacier-ir"), "--storage-class", "GLACIER_IR")
            self.assertEqual(s3.head_object(Bucket=self.bucket, Key="sc/ia")["StorageClass"], "STANDARD_IA")
            self.assertEqual(s3.head_object(Bucket=self.bucket, Key="sc/glacier-ir")["StorageClass"], "GLACIER_IR")
            self.floe("put", self.uri("sse/aes"), "--sse", "AES256", input=b"a")
            self.floe("cp", self.uri("sse/aes"), self.uri("sse/kms"), "--sse", "aws:kms", "--sse-kms-key-id", "floe-key-1")
            self.assertEqual(s3.head_object(Bucket=self.bucket, Key="sse/aes")["ServerSideEncryption"], "AES256")
            h = s3.head_object(Bucket=self.bucket, Key="sse/kms")
            self.assertEqual((h["ServerSideEncryption"], h["SSEKMSKeyId"]), ("aws:kms", "floe-key-1"))
        elif self.target.name == "swift":
            # OpenStack Swift 2.30's s3api: STANDARD is taken but HeadObject
            # names no class; any other is 400 InvalidStorageClass; every
            # --sse is 501 NotImplemented. floe names the code; nothing is written.
            self.floe("put", self.uri("sc/std"), "--storage-class", "STANDARD", input=b"s")
            self.assertIsNone(s3.head_object(Bucket=self.bucket, Key="sc/std").get("StorageClass"))
            r = self.floe("put", self.uri("sc/ia"), "--storage-class", "STANDARD_IA", input=b"i", rc=1)
            self.assertIn(b"InvalidStorageClass", r.stderr)
            self.floe("stat", self.uri("sc/ia"), rc=4)
            for sse in (["--sse", "AES256"], ["--sse", "aws:kms", "--sse-kms-key-id", "floe-key-1"]):
                r = self.floe("put", self.uri("sse/k"), *sse, input=b"k", rc=1)
                self.assertIn(b"NotImplemented", r.stderr)
                self.floe("stat", self.uri("sse/k"), rc=4)
        else:
            # Ceph RGW 16.2 as tested: one placement (STANDARD); other classes
            # and SSE-KMS without a KMS are refused with InvalidArgument, and
            # floe names it; nothing is written.
            self.floe("put", self.uri("sc/std"), "--storage-class", "STANDARD", input=b"s")
            self.assertEqual(s3.head_object(Bucket=self.bucket, Key="sc/std")["StorageClass"], "STANDARD")
            r = self.floe("put", self.uri("sc/ia"), "--storage-class", "STANDARD_IA", input=b"i", rc=1)
            self.assertIn(b"InvalidArgument", r.stderr)
            self.floe("stat", self.uri("sc/ia"), rc=4)
            r = self.floe("put", self.uri("sse/kms"), "--sse", "aws:kms", "--sse-kms-key-id", "floe-key-1", input=b"k",
                          rc=1)
            self.assertIn(b"InvalidArgument", r.stderr)
            self.floe("stat", self.uri("sse/kms"), rc=4)
            # AES256 is taken, but the object is not reported encrypted.
            self.floe("put", self.uri("sse/aes"), "--sse", "AES256", input=b"a")
            self.assertIsNone(s3.head_object(Bucket=self.bucket, Key="sse/aes").get("ServerSideEncryption"))

    def test_write_options_on_a_tree_copy_between_prefixes(self):
        moto = self.target.name == "moto"
        for k in ("a.txt", "sub/b.csv"):
            self.floe("put", self.uri("wtree/src/" + k), "--metadata", "old=1", input=b"t")
        # Ceph RGW 16.2 as tested stores only STANDARD and has no KMS; Swift
        # takes STANDARD only and no --sse at all (see above).
        opts = ["--storage-class", "STANDARD_IA" if moto else "STANDARD", "--cache-control", "max-age=60"]
        if moto:
            opts += ["--sse", "aws:kms", "--sse-kms-key-id", "floe-key-2"]
        self.floe("cp", "--recursive", self.uri("wtree/src/"), self.uri("wtree/cp/"), *opts, "--metadata", "new=2")
        self.floe("sync", self.uri("wtree/src/"), self.uri("wtree/sync/"), *opts, "--content-type", "text/x-floe")
        s3 = self.s3()
        for key, ctype, meta in (("wtree/cp/a.txt", "text/plain", {"new": "2"}),
                                 ("wtree/cp/sub/b.csv", "text/csv", {"new": "2"}),
                                 ("wtree/sync/a.txt", "text/x-floe", {"old": "1"}),
                                 ("wtree/sync/sub/b.csv", "text/x-floe", {"old": "1"})):
            h = s3.head_object(Bucket=self.bucket, Key=key)
            self.assertEqual((h["ContentType"], h["Metadata"], h.get("CacheControl"), h.get("StorageClass", "STANDARD")),
                             (ctype, meta, "max-age=60", "STANDARD_IA" if moto else "STANDARD"), key)
            if moto:
                self.assertEqual((h["ServerSideEncryption"], h["SSEKMSKeyId"]), ("aws:kms", "floe-key-2"), key)

    def test_options_that_cannot_apply_are_refused(self):
        self.floe("put", self.uri("na/k.txt"), input=b"n")
        d = self.tmpdir()
        for args in (["--metadata", "a=1"], ["--content-type", "text/csv"], ["--no-guess-mime-type"],
                     ["--storage-class", "STANDARD"], ["--sse", "AES256"], ["--acl", "private"],
                     ["--cache-control", "no-cache"]):
            for verb in (["cp", self.uri("na/k.txt"), os.path.join(d, "one")],
                         ["mv", self.uri("na/k.txt"), os.path.join(d, "one")],
                         ["cp", "--recursive", self.uri("na/"), os.path.join(d, "tree")],
                         ["sync", self.uri("na/"), os.path.join(d, "tree")]):
                r = self.floe(*verb, *args, rc=2)
                self.assertIn(args[0].encode() + b" applies to what is written to S3", r.stderr, (verb, args))
        self.assertEqual(os.listdir(d), [])
        self.floe("stat", self.uri("na/k.txt"))  # mv refused: the source is still there
        # One object is one transfer: --concurrency (objects at once) needs --recursive.
        writes = self.write_counter("na/")
        f = os.path.join(d, "f.txt")
        with open(f, "wb") as out:
            out.write(b"f")
        for verb in (["cp", f, self.uri("na/f.txt")], ["mv", self.uri("na/k.txt"), self.uri("na/moved")]):
            r = self.floe(*verb, "--concurrency", "4", rc=2)
            self.assertIn(b"--concurrency (objects at once) applies with --recursive", r.stderr)
        self.assertEqual(writes(), 0)

    def test_write_options_refused_before_sending(self):
        writes = self.write_counter("refused/")
        for args, says in ((["--sse", "AES128"], b'"AES128"'), (["--storage-class", "COLD"], b'"COLD"'),
                           (["--acl", "everyone"], b'"everyone"'),
                           (["--sse-kms-key-id", "k1"], b"--sse aws:kms"),
                           (["--sse", "AES256", "--sse-kms-key-id", "k1"], b"not --sse AES256")):
            for verb in (["put", self.uri("refused/k")], ["cp", self.uri("wo/x"), self.uri("refused/k")],
                         ["sync", self.uri("wo/"), self.uri("refused/")], ["mv", "-", self.uri("refused/k")]):
                r = self.floe(*verb, *args, input=b"x", rc=2)
                self.assertIn(says, r.stderr, (verb, args))
        self.assertEqual(writes(), 0)

    # ---- downloads ----------------------------------------------------------------

    def test_download_makes_missing_directories(self):
        body = b"nested download"
        self.floe("put", self.uri("dl/k.txt"), input=body)
        d = self.tmpdir()
        target = os.path.join(d, "new", "deeper", "file.txt")
        r = self.floe("cp", self.uri("dl/k.txt"), target)
        with open(target, "rb") as fh:
            self.assertEqual(fh.read(), body)
        self.assertEqual(r.stderr, b"")
        self.floe("cp", self.uri("dl/k.txt"), os.path.join(d, "other") + "/")
        with open(os.path.join(d, "other", "k.txt"), "rb") as fh:
            self.assertEqual(fh.read(), body)
        # The file carries the object's time (sync compares it).
        lm = self.stat_json("dl/k.txt")["last_modified"]
        from email.utils import parsedate_to_datetime
        self.assertEqual(int(os.stat(target).st_mtime), int(parsedate_to_datetime(lm).timestamp()))
        # A failed download leaves no directory behind.
        self.floe("cp", self.uri("dl/missing"), os.path.join(d, "never", "made", "f"), rc=4)
        self.assertFalse(os.path.exists(os.path.join(d, "never")))

    # ---- ls -------------------------------------------------------------------------

    def test_ls_column_for_column_like_aws(self):
        for key, size in (("lsa/a.txt", 5), ("lsa/b/c.txt", 3000), ("lsa/b/d e.bin", 1), ("lsa/big", 5 << 20),
                          ("lsa/bz/x", 0)):
            self.floe("put", self.uri(key), input=b"z" * size)
        for args in (["lsa/"], ["lsa/", "--recursive"], ["lsa/b"], ["lsa/b/"], ["lsa/", "--human-readable"],
                     ["lsa/", "--recursive", "--human-readable", "--summarize"], ["lsa/a"], ["lsa/b/", "--summarize"]):
            uri = self.uri(args[0])
            mine = self.floe("ls", uri, *args[1:]).stdout.decode()
            theirs = self.aws("ls", uri, *args[1:]).stdout.decode()
            self.assertEqual(mine, theirs, f"ls {args}")
            self.assertTrue(mine, args)
        # The bucket itself (no slash), and the buckets: the same lines too.
        # (Other test files make and remove buckets on the same store at the
        # same time: the buckets both listed are compared, ours among them.)
        self.assertEqual(self.floe("ls", f"s3://{self.bucket}").stdout.decode(),
                         self.aws("ls", f"s3://{self.bucket}").stdout.decode())
        mine = self.floe("ls").stdout.decode().splitlines()
        theirs = self.aws("ls").stdout.decode().splitlines()
        both = {ln.split(" ", 2)[2] for ln in mine} & {ln.split(" ", 2)[2] for ln in theirs}
        self.assertIn(self.bucket, both)
        self.assertEqual([ln for ln in mine if ln.split(" ", 2)[2] in both],
                         [ln for ln in theirs if ln.split(" ", 2)[2] in both])
        # Nothing under the prefix: both exit non-zero (floe 4, "not found").
        r = self.floe("ls", self.uri("lsa/nothing/"), rc=4)
        self.assertEqual((r.stdout, r.stderr), (b"", b""))
        self.aws("ls", self.uri("lsa/nothing/"), rc=1)
        self.assertEqual(json.loads(self.floe("--json", "ls", self.uri("lsa/nothing/"), rc=4).stdout)["objects"], [])
        # --json stays floe's own: whole keys.
        j = json.loads(self.floe("--json", "ls", self.uri("lsa/b/"), "--summarize").stdout)
        self.assertEqual([o["key"] for o in j["objects"]], ["lsa/b/c.txt", "lsa/b/d e.bin"])
        self.assertEqual((j["total_objects"], j["total_size"]), (2, 3001))

    # ---- operation lines ----------------------------------------------------------

    def test_upload_download_copy_lines_like_aws(self):
        d = self.tmpdir()
        write_tree(d, {"f.txt": b"line test"})
        for tool in ("floe", "aws"):
            key = f"lines/{tool}.txt"
            if tool == "floe":
                up = self.floe("cp", "f.txt", self.uri(key), cwd=d).stdout.decode()
                down = self.floe("cp", self.uri(key), "back-floe.txt", cwd=d).stdout.decode()
                cp = self.floe("cp", self.uri(key), self.uri(key + ".copy"), cwd=d).stdout.decode()
                mine = (up, down, cp)
            else:
                up = self.aws("cp", "--no-progress", "f.txt", self.uri(key), cwd=d).stdout.decode()
                down = self.aws("cp", "--no-progress", self.uri(key), "back-aws.txt", cwd=d).stdout.decode()
                cp = self.aws("cp", "--no-progress", self.uri(key), self.uri(key + ".copy"), cwd=d).stdout.decode()
                theirs = (up, down, cp)
        self.assertEqual(mine[0], f"upload: ./f.txt to {self.uri('lines/floe.txt')}\n")
        self.assertEqual(theirs[0], f"upload: ./f.txt to {self.uri('lines/aws.txt')}\n")
        self.assertEqual(mine[1], f"download: {self.uri('lines/floe.txt')} to ./back-floe.txt\n")
        self.assertEqual(theirs[1], f"download: {self.uri('lines/aws.txt')} to ./back-aws.txt\n")
        for tool, got in (("floe", mine[2]), ("aws", theirs[2])):
            src = self.uri(f"lines/{tool}.txt")
            self.assertEqual(got, f"copy: {src} to {src}.copy\n")
        # The ETag moved to --json; put (floe's own) still prints it bare.
        j = json.loads(self.floe("--json", "cp", "f.txt", self.uri("lines/j.txt"), cwd=d).stdout)
        self.assertEqual(j["etag"], hashlib.md5(b"line test").hexdigest())
        r = self.floe("put", self.uri("lines/put"), input=b"p")
        self.assertEqual(r.stdout.decode(), hashlib.md5(b"p").hexdigest() + "\n")
        # A stream says nothing, as with aws s3.
        self.assertEqual(self.floe("cp", "-", self.uri("lines/stdin"), input=b"s").stdout, b"")

    # ---- rb --force, presign --expires-in ------------------------------------------

    def test_rb_force_empties_then_removes(self):
        b = "floe-e-rb-" + os.urandom(5).hex()
        self.floe("mb", f"s3://{b}")
        for k in ("a", "d/b", "d/e/c"):
            self.floe("put", f"s3://{b}/{k}", input=b"1")
        r = self.run_floe(["rb", f"s3://{b}"])
        self.assertNotEqual(r.returncode, 0)  # not empty
        self.assertIn(b"BucketNotEmpty", r.stderr)
        r = self.floe("rb", "--force", f"s3://{b}")
        lines = r.stdout.decode().splitlines()
        self.assertEqual(sorted(lines[:-1]), [f"delete: s3://{b}/{k}" for k in ("a", "d/b", "d/e/c")])
        self.assertEqual(lines[-1], f"remove_bucket: {b}")
        self.assertNotIn(b, [x["name"] for x in json.loads(self.floe("--json", "ls").stdout)["buckets"]])

    def test_presign_expires_in(self):
        self.floe("put", self.uri("pre/k"), input=b"presigned")
        url = self.floe("presign", self.uri("pre/k"), "--expires-in", "120").stdout.decode().strip()
        self.assertIn("X-Amz-Expires=120", url)
        with direct_opener().open(url, timeout=30) as r:
            self.assertEqual(r.read(), b"presigned")
        self.floe("presign", self.uri("pre/k"), "--expires", "60", "--expires-in", "60", rc=2)


if __name__ == "__main__":
    sys.exit(cli_support.main([Everyday], stores=("moto", "rgw", "swift")))
