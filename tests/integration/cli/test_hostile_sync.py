#!/usr/bin/env python3
"""`floe sync --delete` against scripted loopback servers whose listings
misbehave (tests/support/scripted_s3.py): a listing out of order or with a
key twice ends the sync with nothing deleted, a listing or a download that
fails deletes nothing, and thousands of extra keys go in batches only once
both walks have ended. The runner and the scripted objects are
test_hostile.py's.

  test_hostile_sync.py PATH_TO_FLOE

Needs no external server. Prints "floe-cases: N passed, M failed".
"""
import json
import os
import re
import sys
import tempfile
import unittest

import cli_support
import test_hostile
from scripted_s3 import ScriptedS3, list_page, reply  # test_hostile put tests/support on the path
from test_hostile import ETAG, floe


BEFORE_LISTED = 1735689600  # 2025-01-01: older than list_page's LastModified (2026-01-01)


def paged(pages, fail_page=None, get=None):
    """ListObjectsV2 serving `pages` (lists of keys, size 1) in order, the
    token each next page's index; page `fail_page` answers 403 instead.
    DeleteObjects deletes everything (Quiet: an empty result); a GET of an
    object is `get(conn, req)`, or one byte; a PUT is taken."""
    def script(conn, req):
        if req.method == "GET" and req.query.get("list-type") == "2":
            i = int(req.query.get("continuation-token", "0") or 0)
            if i == fail_page:
                reply(conn, 403, b"<Error><Code>AccessDenied</Code><Message>no listing</Message></Error>",
                      {"Content-Type": "application/xml"})
                return
            more = i + 1 < len(pages)
            reply(conn, 200, list_page(pages[i], truncated=more, token=str(i + 1) if more else ""))
        elif req.method == "POST" and "delete" in req.query:
            reply(conn, 200, b'<?xml version="1.0"?><DeleteResult></DeleteResult>')
        elif req.method == "GET" and get is not None:
            get(conn, req)
        elif req.method == "GET":
            reply(conn, 200, b"x", {"ETag": ETAG, "Last-Modified": "Thu, 01 Jan 2026 00:00:00 GMT"})
        elif req.method == "PUT":
            reply(conn, 200, b"", {"ETag": ETAG})
        else:
            reply(conn, 405, b"")
    return script


def local_files(d, names, mtime=None):
    for n in names:
        p = os.path.join(d, n)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(b"x")  # the listed size
        if mtime is not None:
            os.utime(p, (mtime, mtime))


def deleted_keys(s3):
    """The keys of every DeleteObjects request, in order."""
    out = []
    for r in s3.requests:
        if r.method == "POST" and "delete" in r.query:
            out.append(re.findall(r"<Key>([^<]*)</Key>", r.body.decode()))
    return out


class SyncDelete(unittest.TestCase):
    """sync --delete never removes what the source has: a listing out of
    order or with a key twice ends the sync with nothing deleted, and what
    is extra is removed only once both sides have been walked to their end
    and nothing failed."""

    def sync_up_refused(self, pages, needle, held):
        with tempfile.TemporaryDirectory() as d, ScriptedS3(paged(pages)) as s3:
            local_files(d, ["a", "b", "c"], mtime=BEFORE_LISTED)  # listed, unchanged
            r = floe(s3, "sync", "--delete", d, "s3://b/p/")
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, err)
            self.assertIn(needle, err)
            self.assertIn(f"--delete removed nothing ({held} the source lacks)", err)
            self.assertEqual(s3.count("POST"), 0)
            j = floe(s3, "--json", "sync", "--delete", d, "s3://b/p/")
            self.assertEqual(j.returncode, 1)
            doc = json.loads(j.stdout)
            self.assertEqual((doc["deleted"], doc["exit_code"]), ([], 1))
            self.assertGreaterEqual(doc["not_deleted"], 1)
            self.assertEqual(s3.count("POST"), 0)

    def test_a_destination_listed_out_of_order_deletes_nothing(self):
        # Taken as sorted, p/b would look extra (after p/x) and be deleted
        # (b is sent again first, as p/x came in its place: harmless).
        self.sync_up_refused([["p/0", "p/a", "p/x", "p/b", "p/c"]], "key 'p/b' came after 'p/x'",
                             "2 entries")  # p/0 and p/x

    def test_a_key_listed_twice_at_a_page_boundary_deletes_nothing(self):
        # Taken as sorted, the second p/b would look extra and be deleted.
        self.sync_up_refused([["p/0", "p/a", "p/b"], ["p/b", "p/c"]], "key 'p/b' came twice", "1 entry")  # p/0

    def test_a_source_listed_out_of_order_deletes_no_local_file(self):
        with tempfile.TemporaryDirectory() as d, ScriptedS3(paged([["p/a", "p/c", "p/b"]])) as s3:
            local_files(d, ["a", "b", "c"])  # newer than the objects, same size: unchanged
            inodes = {n: os.stat(os.path.join(d, n)).st_ino for n in "abc"}
            r = floe(s3, "sync", "--delete", "s3://b/p/", d)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, err)
            self.assertIn("key 'p/b' came after 'p/c'", err)
            self.assertEqual({n: os.stat(os.path.join(d, n)).st_ino for n in "abc"}, inodes)  # none removed or fetched
            self.assertEqual(s3.count_where(lambda q: q.method == "GET" and "list-type" not in q.query), 0)

    def test_a_listing_that_fails_after_a_thousand_extra_keys_deletes_nothing(self):
        pages = [[f"p/k{i:05d}" for i in range(j, j + 1000)] for j in (0, 1000)] + [["p/later"]]
        with tempfile.TemporaryDirectory() as d, ScriptedS3(paged(pages, fail_page=2)) as s3:
            r = floe(s3, "sync", "--delete", d, "s3://b/p/")
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 1, err)
            self.assertEqual(s3.count("POST"), 0)
            self.assertIn("AccessDenied", err)
            self.assertIn("--delete removed nothing (2000 entries the source lacks)", err)
            self.assertEqual(r.stdout, b"")

    def test_a_failed_download_deletes_no_local_file(self):
        def get(conn, req):
            if req.path.endswith("/b"):
                reply(conn, 403, b"<Error><Code>AccessDenied</Code><Message>no</Message></Error>",
                      {"Content-Type": "application/xml"})
            else:
                reply(conn, 200, b"x", {"ETag": ETAG})
        with tempfile.TemporaryDirectory() as d, ScriptedS3(paged([["p/a", "p/b"]], get=get)) as s3:
            local_files(d, ["a", "x"])
            r = floe(s3, "sync", "--delete", "s3://b/p/", d)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertTrue(os.path.exists(os.path.join(d, "x")))
            self.assertIn("--delete removed nothing (1 entry the source lacks)", r.stderr.decode())

    def test_thousands_of_extra_keys_go_in_batches_once_both_walks_have_ended(self):
        keys = [f"p/k{i:05d}" for i in range(2500)]
        pages = [keys[i:i + 1000] for i in range(0, 2500, 1000)] + [["p/z-kept"]]
        with tempfile.TemporaryDirectory() as d, ScriptedS3(paged(pages)) as s3:
            local_files(d, ["z-kept"], mtime=BEFORE_LISTED)
            r = floe(s3, "sync", "--delete", d, "s3://b/p/")
            self.assertEqual(r.returncode, 0, r.stderr)
            batches = deleted_keys(s3)
            self.assertEqual(sorted(len(b) for b in batches), [500, 1000, 1000])  # up to 8 at once: any order
            self.assertEqual(sorted(k for b in batches for k in b), keys)
            self.assertEqual(sorted(r.stdout.decode().splitlines()), [f"delete: s3://b/{k}" for k in keys])
            kinds = [q.method for q in s3.requests if q.method in ("GET", "POST")]
            self.assertEqual(kinds, ["GET"] * 4 + ["POST"] * 3)  # every page read before the first delete


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: test_hostile_sync.py PATH_TO_FLOE")
    test_hostile.FLOE = sys.argv[1]
    return cli_support.run_suite(unittest.TestLoader().loadTestsFromTestCase(SyncDelete))


if __name__ == "__main__":
    sys.exit(main())
