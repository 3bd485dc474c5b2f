#!/usr/bin/env python3
"""Issue 31's 1 GiB PUT, checksums on against off, in pairs and nothing else.

The harness's big-put scenario (harness.py) checks every upload as it goes
(decoding the framed parts in Python, about 2.5 s) and runs the peers
beside floe; this runs only `floe cp` of the harness's 1 GiB file to the
same nginx stand-in, on and off in pairs whose order swaps every pair,
with nothing between the uploads (each overwrites the same two keys), for
one or more builds of the CLI. It prints per build the medians of MB/s and
CPU seconds and the median of the pairs' own on ÷ off ratios.

  python3 bench/scenarios/checksum_pairs.py --pairs 16 \\
      --floe build-bench/src/cli/floe --floe /tmp/other/floe
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=16)
    ap.add_argument("--floe", action="append", required=True, help="a floe CLI binary (repeatable)")
    a = ap.parse_args()
    opts = argparse.Namespace(quick=False, rounds=1, build_dir=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(a.floe[0])))), npm_dir=os.path.expanduser("~/.cache/floe-bench/npm"),
        json=os.devnull, only="big-put")
    h = harness.Harness(opts)
    h.setup()
    rows = [(f, on) for f in a.floe for on in (False, True)]
    got = {}
    try:
        for i in range(a.pairs):
            for f, on in (rows if i % 2 == 0 else rows[::-1]):
                cmd = [f, "--endpoint-url", h.ep, "--region", "us-east-1", "--path-style", "cp", h.big_path,
                       f"s3://bench/up/pair{int(on)}"]
                c = harness.run(cmd, h.checksums_on() if on else h.env)
                got.setdefault((f, on), []).append((h.big / c.wall / 1e6, c.cpu))
    finally:
        h.stop()
    for f in a.floe:
        off, on = got[(f, False)], got[(f, True)]
        ratios = [b[0] / o[0] for o, b in zip(off, on)]
        print(f"{f}: MB/s off {statistics.median(x[0] for x in off):,.0f} on {statistics.median(x[0] for x in on):,.0f}"
              f"; on/off median {statistics.median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f})"
              f"; CPU s off {statistics.median(x[1] for x in off):.3f} on {statistics.median(x[1] for x in on):.3f}")


if __name__ == "__main__":
    main()
