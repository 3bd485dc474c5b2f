#!/usr/bin/env python3
"""Counts individual test cases from a meson testlog.json.

Each meson test is one executable; what we report is the number of test
cases inside them. Recognised summaries, taken from the test's stdout:
  doctest:  "[doctest] test cases: 12 | 11 passed | 1 failed | 0 skipped"
            (the skipped count replaced by our runner's "[floe] cases left
            out: N": a program holds many tests' files, and doctest counts
            the other files' cases as skipped)
  pytest:   "== 3 passed, 1 failed in 0.2s =="  (any subset of the counts)
  ours:     "floe-cases: N passed, M failed"    (fuzz replay, shell tests)
An executable with none of these counts as one case, passed or failed by
its result. An executable that printed a summary but still failed (crash
after the summary, timeout) adds one failure so it can never look green.
Prints per-test lines for failures, then the closing line
"tests: N passed, M failed".

  count_results.py TESTLOG [--reports DIR]
With --reports (scripts/test --sanitize), every file in DIR is a sanitizer
report (the sanitizers' log_path) and counts as one more failure: a report
from a program a test runs as a child (the CLI under a Python test) fails
the run even when the test itself does not look at how the child ended.
"""
import json
import os
import re
import sys

DOCTEST = re.compile(r"\[doctest\] test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed(?:\s*\|\s*(\d+) skipped)?")
PYTEST = re.compile(r"^=+ (.*) in [\d.]+s.*=+$", re.M)
LEFT_OUT = re.compile(r"^\[floe\] cases left out: (\d+)$", re.M)
OURS = re.compile(r"floe-cases: (\d+) passed, (\d+) failed")


def count(stdout):
    m = DOCTEST.findall(stdout)
    if m:
        p = sum(int(x[1]) for x in m)
        f = sum(int(x[2]) for x in m)
        s = sum(int(x[3] or 0) for x in m)
        ours = LEFT_OUT.findall(stdout)
        if ours:
            s = sum(int(x) for x in ours)
        return p, f, s
    m = OURS.findall(stdout)
    if m:
        return sum(int(x[0]) for x in m), sum(int(x[1]) for x in m), 0
    m = PYTEST.findall(stdout)
    if m:
        last = m[-1]
        def grab(word):
            mm = re.search(r"(\d+) " + word, last)
            return int(mm.group(1)) if mm else 0
        return grab("passed"), grab("failed") + grab("error"), grab("skipped")
    return None


def digest(stdout, limit=24):
    """The first lines of each failed doctest case (its name, the failing
    check and its values), so a CI log's tail says what broke."""
    out = []
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if "TEST CASE:" in line:
            out.append(line.strip())
        elif re.search(r"\b(ERROR|FATAL ERROR)\b", line):
            out.extend(x.rstrip() for x in lines[i:i + 4] if x.strip())
        if len(out) >= limit:
            out = out[:limit] + ["..."]
            break
    return out


def reports_in(directory):
    """Failures for the sanitizer reports in `directory`, each with its
    opening lines (the kind of error and the top of its stack)."""
    out = []
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return out
    for n in names:
        with open(os.path.join(directory, n), errors="replace") as fh:
            lines = [x.rstrip() for x in fh if x.strip()]
        out.append((f"sanitizer report {n}", "REPORT", lines[:16] + (["..."] if len(lines) > 16 else [])))
    return out


def main(path, reports=None):
    passed = failed = skipped = 0
    bad = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            t = json.loads(line)
            ok = t.get("result") in ("OK", "EXPECTEDFAIL")
            skip = t.get("result") == "SKIP"
            c = count(t.get("stdout", "") or "")
            if skip:
                # A skipped executable is not green: a needed server is missing.
                failed += 1
                bad.append((t["name"], "SKIP"))
                continue
            if c is None:
                if ok:
                    passed += 1
                else:
                    failed += 1
                    bad.append((t["name"], t.get("result")))
                continue
            p, f, s = c
            passed += p
            failed += f
            skipped += s
            if not ok and f == 0:
                failed += 1
            if not ok:
                bad.append((t["name"], t.get("result"), digest(t.get("stdout", "") or "")))
    if reports:
        found = reports_in(reports)
        failed += len(found)
        bad.extend(found)
    for name, res, *why in bad:
        print(f"FAILED: {name} ({res})")
        for w in (why[0] if why else []):
            print(f"    {w}")
    if skipped:
        print(f"note: {skipped} test cases were skipped (counted as neither)")
    print(f"tests: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) == 2:
        sys.exit(main(sys.argv[1]))
    if len(sys.argv) == 4 and sys.argv[2] == "--reports":
        sys.exit(main(sys.argv[1], sys.argv[3]))
    sys.exit(__doc__)
