#!/usr/bin/env python3
"""The CLI's transfers against moto and a Ceph RGW through the test proxy
with its SigV4 verifier on: a 24 MiB round trip, the progress bar on a
terminal only (uploads, downloads, multipart, stdin of unknown size),
recursive copies both ways and their --json document, what a recursive
upload skips, keys that would leave the destination, cp's local and stdout
forms.

  test_cli_transfers.py PATH_TO_FLOE

Needs FLOE_TEST_PROXY_ENDPOINT and FLOE_TEST_PROXY_CONTROL, and for RGW
FLOE_TEST_RGW_PROXY_ENDPOINT, FLOE_TEST_RGW_PROXY_CONTROL,
FLOE_TEST_RGW_ACCESS_KEY and FLOE_TEST_RGW_SECRET_KEY (scripts/test exports
them all from tests/support/servers.py); without RGW the run fails. Every
case of CliTransfers runs against both (cli_support.CliCase: a bucket per
class, the proxy's rules). Prints "floe-cases: N passed, M failed".
"""
import hashlib
import json
import os
import pty
import re
import socket
import subprocess
import sys
import tempfile
import threading

import cli_support
from cli_support import CliCase

MIB = 1 << 20


class CliTransfers(CliCase):

    # ---- transfers -------------------------------------------------------------------

    def test_recursive_download_refuses_escaping_keys(self):
        with tempfile.TemporaryDirectory() as d:
            self.floe("put", self.uri("esc/ok.txt"), input=b"ok")
            self.floe("put", self.uri("esc/../../evil.txt"), input=b"evil")
            dst = os.path.join(d, "out")
            r = self.floe("cp", "--recursive", self.uri("esc/"), dst, rc=1)
            self.assertIn(b"leave the destination directory", r.stderr)
            with open(os.path.join(dst, "ok.txt"), "rb") as fh:
                self.assertEqual(fh.read(), b"ok")
            self.assertFalse(os.path.exists(os.path.join(d, "evil.txt")))
            self.assertFalse(os.path.exists(os.path.join(os.path.dirname(d), "evil.txt")))

    def test_cp_24mib_round_trip(self):
        data = os.urandom(24 * MIB)
        digest = hashlib.sha256(data).hexdigest()
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "big.bin")
            with open(src, "wb") as fh:
                fh.write(data)
            up = self.floe("cp", src, self.uri("big/"))
            self.assertEqual(up.stderr, b"")  # no progress bar: stderr is not a terminal
            st = self.stat_json("big/big.bin")
            self.assertEqual(st["size"], len(data))
            self.floe("cp", self.uri("big/big.bin"), os.path.join(d, "back.bin"))
            with open(os.path.join(d, "back.bin"), "rb") as fh:
                self.assertEqual(hashlib.sha256(fh.read()).hexdigest(), digest)
            self.floe("cp", self.uri("big/big.bin"), self.uri("big/copy.bin"))
            out = self.floe("cp", self.uri("big/copy.bin"), "-").stdout
            self.assertEqual(hashlib.sha256(out).hexdigest(), digest)
            # stdin larger than the in-memory limit is spooled, then uploaded
            self.floe("put", self.uri("big/stdin.bin"), input=data)
            self.assertEqual(hashlib.sha256(self.floe("cat", self.uri("big/stdin.bin")).stdout).hexdigest(), digest)
            self.assertFalse(any(n.startswith("back.bin.floe-") for n in os.listdir(d)))
            # On a terminal the same download draws a bar; a small one does not.
            self.assertIn(b"download big.bin", self.stderr_on_terminal("cp", self.uri("big/big.bin"), os.path.join(d, "tty.bin")))
            # --quiet and --only-show-errors draw no bar, in either direction.
            for quiet in ("--quiet", "--only-show-errors"):
                self.assertEqual(self.stderr_on_terminal("cp", self.uri("big/big.bin"), os.path.join(d, "q.bin"), quiet), b"")
                self.assertEqual(self.stderr_on_terminal("cp", src, self.uri("big/q.bin"), quiet), b"")
            self.floe("put", self.uri("big/small"), input=b"small")
            self.assertEqual(self.stderr_on_terminal("cp", self.uri("big/small"), os.path.join(d, "small")), b"")

    def test_upload_progress_bar_on_terminal_only(self):
        data = os.urandom(16 * MIB)
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "up.bin")
            with open(src, "wb") as fh:
                fh.write(data)
            # The store's side waits before reading the body, so the upload
            # lasts long enough for the bar to draw bytes, rate and ETA.
            self.add_rule({"match": {"method": "PUT", "path": f"/{self.bucket}/upbar/"},
                           "action": {"type": "delay", "ms": 700}})
            err = self.stderr_on_terminal("cp", src, self.uri("upbar/up.bin")).decode()
            self.assertIn("upload up.bin", err)
            self.assertRegex(err, r"\] +\d+% +\d+\.\d MiB / 16\.0 MiB")
            self.assertRegex(err, r"MiB/s +ETA \d+:\d\d")
            self.assertRegex(err, r"upload up\.bin: 16\.0 MiB in \d")
            self.assertEqual(self.stat_json("upbar/up.bin")["size"], len(data))
            # Not a terminal: nothing at all on stderr.
            r = self.floe("put", self.uri("upbar/plain.bin"), "--file", src)
            self.assertEqual(r.stderr, b"")
            # A terminal but --no-progress, or under 8 MiB: nothing either.
            self.assertEqual(self.stderr_on_terminal("put", self.uri("upbar/np.bin"), "--file", src, "--no-progress"), b"")
            small = os.path.join(d, "small.bin")
            with open(small, "wb") as fh:
                fh.write(data[:MIB])
            self.assertEqual(self.stderr_on_terminal("put", self.uri("upbar/small.bin"), "--file", small), b"")
            # A multipart upload (64 MiB and more: 16 MiB parts, 4 at once)
            # counts the bytes of all its parts together.
            big = os.path.join(d, "big.bin")
            with open(big, "wb") as fh:
                for _ in range(4):
                    fh.write(data)
                fh.write(data[:MIB])
            out = []
            err = self.stderr_on_terminal("--json", "put", self.uri("upbar/big.bin"), "--file", big, stdout=out).decode()
            self.assertEqual(json.loads(out[0])["parts"], 5)
            self.assertRegex(err, r"\] +\d+% +\d+\.\d MiB / 65\.0 MiB")
            self.assertRegex(err, r"upload big\.bin: 65\.0 MiB in \d")
            shown = [float(m) for m in re.findall(r"(\d+\.\d) MiB / 65\.0 MiB", err)]
            self.assertTrue(shown and max(shown) <= 65.0, shown)  # never past the total
            # A conditional put of the same 65 MiB goes up as one PUT with its
            # condition (moto ignores If-Match on CompleteMultipartUpload): a
            # wrong ETag exits 3 and the object is left as it was; the right
            # one replaces it.
            etag = self.stat_json("upbar/big.bin")["etag"]
            r = self.floe("put", self.uri("upbar/big.bin"), "--file", big, "--if-match", "0" * 32, rc=3)
            self.assertIn("412", r.stderr.decode())
            self.assertEqual(self.stat_json("upbar/big.bin")["etag"], etag)
            r = self.floe("--json", "put", self.uri("upbar/big.bin"), "--file", big, "--if-match", etag)
            self.assertEqual(json.loads(r.stdout)["parts"], 0)

    def test_stdin_upload_progress_of_unknown_size(self):
        # stdin's size is unknown while it is read: past 8 MiB the bar shows
        # the bytes read and the rate, with no total and no ETA; then the
        # upload's own bar (its size known by then). 12 MiB goes up from
        # memory, 20 MiB is spooled to a file first: both show it.
        for mib in (12, 20):
            data = os.urandom(mib * MIB)
            key = f"stdinbar/{mib}"
            err = self.stderr_on_terminal("put", self.uri(key), input=data).decode()
            reading = [p for p in err.split("\r") if re.match(r"upload stdin +\d+\.\d MiB read ", p)]
            self.assertTrue(reading, repr(err[:400]))
            for p in reading:
                self.assertRegex(p, r"^upload stdin +(\d+\.\d) MiB read +\d+(\.\d)? (B|KiB|MiB|GiB)/s +\d+\.\d s")
                self.assertNotIn(" / ", p)
                self.assertNotIn("ETA", p)
                self.assertNotIn("] ", p)  # no bar of a known total
                self.assertGreaterEqual(float(re.match(r"upload stdin +(\d+\.\d)", p).group(1)), 8.0)
            self.assertRegex(err, rf"upload stdin: {mib}\.0 MiB in \d")
            self.assertEqual(self.stat_json(key)["size"], len(data))
        # Under 8 MiB, --no-progress, or not a terminal: nothing.
        self.assertEqual(self.stderr_on_terminal("put", self.uri("stdinbar/small"), input=os.urandom(7 * MIB)), b"")
        self.assertEqual(self.stderr_on_terminal("put", self.uri("stdinbar/np"), "--no-progress", input=data), b"")
        self.assertEqual(self.floe("put", self.uri("stdinbar/plain"), input=data).stderr, b"")

    def stderr_on_terminal(self, *args, stdout=None, input=None):
        master, slave = pty.openpty()
        chunks = []
        reader = threading.Thread(target=lambda: self.drain(master, chunks))
        reader.start()
        try:
            r = subprocess.run([cli_support.FLOE, "--endpoint-url", self.target.endpoint] + list(args), stdout=subprocess.PIPE,
                               stderr=slave, env=self.env(), timeout=120, input=input)
        finally:
            os.close(slave)
            reader.join(timeout=30)
            os.close(master)
        self.assertEqual(r.returncode, 0)
        if stdout is not None:
            stdout.append(r.stdout)
        return b"".join(chunks)

    @staticmethod
    def drain(fd, chunks):
        while True:
            try:
                b = os.read(fd, 4096)
            except OSError:  # EIO once the last writer closed the terminal
                return
            if not b:
                return
            chunks.append(b)

    def test_cp_recursive_both_ways(self):
        with tempfile.TemporaryDirectory() as d:
            tree = {"a.txt": b"a", "sub/b.txt": b"bb", "sub/deeper/c.bin": os.urandom(1000), "sp ace.txt": b"s"}
            for rel, body in tree.items():
                p = os.path.join(d, "src", rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "wb") as fh:
                    fh.write(body)
            self.floe("cp", "--recursive", "--concurrency", "3", os.path.join(d, "src"), self.uri("tree"))
            listed = json.loads(self.floe("--json", "ls", "-r", self.uri("tree/")).stdout)
            self.assertEqual(sorted(o["key"] for o in listed["objects"]), sorted("tree/" + k for k in tree))
            self.floe("cp", "-r", self.uri("tree/"), self.uri("tree2/"))
            self.floe("cp", "-r", self.uri("tree2"), os.path.join(d, "dst"))
            for rel, body in tree.items():
                with open(os.path.join(d, "dst", rel), "rb") as fh:
                    self.assertEqual(fh.read(), body, rel)

    def recursive_doc(self, *args, rc=0):
        r = self.floe("--json", "cp", "--recursive", *args, rc=rc)
        doc = json.loads(r.stdout)  # one document: a second line would not parse
        self.assertEqual(set(doc), {"source", "destination", "objects", "skipped", "errors", "copied", "failed",
                                    "bytes", "exit_code"})
        self.assertEqual((doc["source"], doc["destination"], doc["exit_code"]), (args[0], args[1], rc))
        self.assertEqual(doc["copied"], len(doc["objects"]))
        self.assertEqual(doc["failed"], len(doc["errors"]))
        self.assertEqual(doc["bytes"], sum(o["size"] for o in doc["objects"]))
        return doc, r

    def test_cp_recursive_json_one_document_each_direction(self):
        tree = {"a.txt": b"a", "sub/b.txt": b"bb", "sub/deeper/c\tq\"uote.bin": os.urandom(3000)}
        md5 = {rel: hashlib.md5(body).hexdigest() for rel, body in tree.items()}
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            for rel, body in tree.items():
                os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
                with open(os.path.join(src, rel), "wb") as fh:
                    fh.write(body)
            # local -> S3
            doc, _ = self.recursive_doc(src, self.uri("rj/up"))
            self.assertEqual(sorted((o["source"], o["destination"], o["size"], o["etag"]) for o in doc["objects"]),
                             sorted((os.path.join(src, rel), self.uri("rj/up/" + rel), len(b), md5[rel])
                                    for rel, b in tree.items()))
            self.assertEqual((doc["skipped"], doc["errors"]), ([], []))
            # S3 -> S3
            doc, _ = self.recursive_doc(self.uri("rj/up/"), self.uri("rj/copy/"))
            self.assertEqual(sorted((o["source"], o["destination"], o["size"]) for o in doc["objects"]),
                             sorted((self.uri("rj/up/" + rel), self.uri("rj/copy/" + rel), len(b))
                                    for rel, b in tree.items()))
            self.assertTrue(all(o["etag"] for o in doc["objects"]), doc)
            # S3 -> local
            dst = os.path.join(d, "dst")
            doc, _ = self.recursive_doc(self.uri("rj/copy"), dst)
            self.assertEqual(sorted((o["source"], o["destination"], o["size"], o["etag"]) for o in doc["objects"]),
                             sorted((self.uri("rj/copy/" + rel), os.path.join(dst, rel), len(b), md5[rel])
                                    for rel, b in tree.items()))
            for rel, body in tree.items():
                with open(os.path.join(dst, rel), "rb") as fh:
                    self.assertEqual(fh.read(), body, rel)
            # A failure is in the document too (and on stderr), with the exit code.
            self.floe("put", self.uri("rj/bad/../../escape"), input=b"e")
            self.floe("put", self.uri("rj/bad/fine"), input=b"f")
            doc, r = self.recursive_doc(self.uri("rj/bad/"), os.path.join(d, "bad"), rc=1)
            self.assertEqual([o["destination"] for o in doc["objects"]], [os.path.join(d, "bad", "fine")])
            self.assertEqual(len(doc["errors"]), 1)
            self.assertEqual(doc["errors"][0]["resource"], f"{self.bucket}/rj/bad/../../escape")
            self.assertEqual(json.loads(r.stderr)["error"]["kind"], "invalid_argument")

    def test_cp_recursive_skips_what_is_not_a_regular_file(self):
        # Links are followed, to files and to directories (as aws s3 does),
        # but not round a loop.
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            os.makedirs(os.path.join(src, "realdir"))
            with open(os.path.join(src, "realdir", "file.txt"), "wb") as fh:
                fh.write(b"regular")
            with open(os.path.join(d, "outside.txt"), "wb") as fh:
                fh.write(b"linked")
            os.symlink(os.path.join(d, "outside.txt"), os.path.join(src, "link-to-file"))
            os.symlink(os.path.join(src, "realdir"), os.path.join(src, "link-to-dir"))
            os.symlink(os.path.join(d, "nowhere"), os.path.join(src, "broken-link"))
            os.symlink(src, os.path.join(src, "realdir", "loop"))
            os.mkfifo(os.path.join(src, "a-fifo"))
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.addCleanup(sock.close)
            sock.bind(os.path.join(src, "a-socket"))
            loops = {"link-to-dir/loop", "realdir/loop"}  # one directory, reached twice
            expect = {"a-fifo": "a fifo", "a-socket": "a socket", "broken-link": "a symbolic link to nothing (broken)"}
            expect.update({n: "a symbolic link to a directory that holds it (a loop)" for n in loops})
            r = self.floe("cp", "-r", src, self.uri("skip/text"))
            lines = r.stderr.decode().splitlines()
            self.assertEqual(len(lines), len(expect), lines)
            for name, reason in expect.items():
                tail = "" if name in loops else ", not a regular file"
                self.assertIn(f"floe: cp: skipped {os.path.join(src, name)}: {reason}{tail}", lines)
            listed = json.loads(self.floe("--json", "ls", "-r", self.uri("skip/text/")).stdout)
            self.assertEqual(sorted(o["key"] for o in listed["objects"]),
                             ["skip/text/link-to-dir/file.txt", "skip/text/link-to-file", "skip/text/realdir/file.txt"])
            doc, r = self.recursive_doc(src, self.uri("skip/json"))
            self.assertEqual(sorted((s["path"], s["reason"]) for s in doc["skipped"]),
                             sorted((os.path.join(src, n), why) for n, why in expect.items()))
            self.assertEqual(doc["copied"], 3)
            self.assertEqual(r.stderr.decode().count("skipped"), len(expect))
            # Skips alone leave the exit code 0; a failed upload beside them makes it 1.
            self.add_rule({"match": {"method": "PUT", "path": f"^/{self.bucket}/skip/failing/link-to-file$"},
                           "action": {"type": "reply", "status": 400, "headers": {"Content-Type": "application/xml"},
                                      "body": "<Error><Code>InvalidArgument</Code><Message>no</Message></Error>"}})
            doc, r = self.recursive_doc(src, self.uri("skip/failing"), rc=1)
            self.assertEqual(len(doc["skipped"]), len(expect))
            self.assertEqual([e["code"] for e in doc["errors"]], ["InvalidArgument"])
            self.assertEqual(doc["copied"], 2)

    def test_flipped_download_fails_and_leaves_no_file(self):
        # An object with no checksum of its own (uploaded with the
        # calculation off): its plain-MD5 ETag is what a download is checked
        # against (on every store).
        data = os.urandom(100000)
        self.floe("put", self.uri("flip/obj"), input=data,
                  env=self.env(AWS_REQUEST_CHECKSUM_CALCULATION="when_required"))
        every = self.add_rule({"match": {"method": "GET", "path": f"^/{self.bucket}/flip/obj$"},
                               "action": {"type": "flip", "where": "reply_body", "offset": 10}})
        d = self.tmpdir()
        r = self.run_floe(["cp", self.uri("flip/obj"), os.path.join(d, "out")])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(b"checksum mismatch", r.stderr)
        self.assertIn(hashlib.md5(data).hexdigest().encode(), r.stderr)
        self.assertEqual(os.listdir(d), [])
        self.assertEqual(self.matched(every), 2)  # into a temporary file: tried once more
        r = self.run_floe(["cat", self.uri("flip/obj")])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(b"checksum mismatch", r.stderr)
        self.assertEqual(self.matched(every), 3)  # stdout had the bytes: no second GET
        r = self.run_floe(["sync", self.uri("flip/"), os.path.join(d, "tree")])
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual([f for _, _, fs in os.walk(d) for f in fs], [])
        # Validation off (the SDKs' variable): the flipped byte goes through.
        off = self.env(AWS_RESPONSE_CHECKSUM_VALIDATION="when_required")
        self.floe("cp", self.uri("flip/obj"), os.path.join(d, "off"), env=off)
        with open(os.path.join(d, "off"), "rb") as fh:
            got = fh.read()
        self.assertEqual(got[:10] + got[11:], data[:10] + data[11:])
        self.assertNotEqual(got[10], data[10])
        # Flipped on the first GET only: healed by the second.
        self.floe("put", self.uri("flip/two"), input=data)
        once = self.add_rule({"match": {"method": "GET", "path": f"^/{self.bucket}/flip/two$"},
                              "trigger": {"nth": [1]},
                              "action": {"type": "flip", "where": "reply_body", "offset": 99999}})
        self.floe("cp", self.uri("flip/two"), os.path.join(d, "healed"))
        with open(os.path.join(d, "healed"), "rb") as fh:
            self.assertEqual(fh.read(), data)
        self.assertEqual(self.matched(once), 2)

    def test_cp_local_and_stdout_forms(self):
        with tempfile.TemporaryDirectory() as d:
            self.floe("cp", "-", self.uri("forms/from-stdin"), input=b"piped")
            self.floe("cp", self.uri("forms/from-stdin"), d + "/")
            with open(os.path.join(d, "from-stdin"), "rb") as fh:
                self.assertEqual(fh.read(), b"piped")
            self.floe("cp", "-", self.uri("forms/"), input=b"x", rc=2)
            self.floe("cp", self.uri("forms/missing"), os.path.join(d, "nothing"), rc=4)
            self.assertFalse(os.path.exists(os.path.join(d, "nothing")))
            self.assertEqual(os.listdir(d), ["from-stdin"])
            j = json.loads(self.floe("--json", "put", self.uri("forms/j"), "--file", os.path.join(d, "from-stdin")).stdout)
            self.assertEqual(j["etag"], hashlib.md5(b"piped").hexdigest())
            self.assertEqual(j["uri"], self.uri("forms/j"))


if __name__ == "__main__":
    sys.exit(cli_support.main([CliTransfers]))
