#!/usr/bin/env python3
"""Issue 22, the one-object half: floe beside `aws s3` on the same store
(moto and Ceph RGW, each behind the test proxy with its SigV4 verifier on).

  test_everyday.py PATH_TO_FLOE

Content types guessed from names (and --no-guess-mime-type, --content-type);
--metadata a=1,b=2 as two entries and the ambiguous refused; S3-to-S3
copies with new metadata; downloads that make their directories; `ls`
column for column with `aws s3 ls` (and --human-readable, --summarize, the
exit code of a prefix that matches nothing); upload, download and copy lines
as `aws s3` prints them; rb --force; presign --expires-in. Prints
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

    def test_s3_copy_with_new_metadata_is_refused_until_it_can_replace(self):
        self.floe("put", self.uri("cpmd/src"), "--metadata", "old=1", "--content-type", "text/plain", input=b"s")
        self.floe("cp", self.uri("cpmd/src"), self.uri("cpmd/dst"), "--metadata", "new=2", rc=2)
        self.floe("cp", self.uri("cpmd/src"), self.uri("cpmd/dst"), "--content-type", "text/csv", rc=2)
        self.floe("stat", self.uri("cpmd/dst"), rc=4)

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
    sys.exit(cli_support.main([Everyday]))
