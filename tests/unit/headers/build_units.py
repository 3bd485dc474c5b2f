#!/usr/bin/env python3
"""Build units (ROOT/units/*.cpp) include every source under ROOT exactly
once, and every test file is named by its folder's meson tests.

  build_units.py ROOT [--alone REL]... [--tests]

The CLI (src/cli), the unit tests (tests/unit) and the integration tests
(tests/integration) compile their sources in units of several files each,
which include them by relative paths ("../verbs/cp.cpp"). A source in no
unit is never compiled (a CLI verb quietly absent, a test file's cases
never run); one in two units is compiled twice. --alone names a source
compiled on its own (REL to ROOT), never in a unit. With --tests, each
source included by a unit must also be named in its folder's meson.build
(a test's --source-file filter, or a list of files the filters are made
from): a test file that no meson test runs is as lost as one in no unit.
Exit 0 when all holds; else 1, naming each difference.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"\.\./([^"]+\.cpp)"', re.M)


_meson_builds = {}


def meson_build(root, folder):
    """A folder's meson.build, read once."""
    if folder not in _meson_builds:
        with open(os.path.join(root, folder, "meson.build"), encoding="utf-8") as f:
            _meson_builds[folder] = f.read()
    return _meson_builds[folder]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--alone", action="append", default=[])
    ap.add_argument("--skip-dir", action="append", default=[])
    ap.add_argument("--tests", action="store_true")
    a = ap.parse_args()
    root = a.root
    units_dir = os.path.join(root, "units")
    units = sorted(f for f in os.listdir(units_dir) if f.endswith(".cpp"))
    seen = {}
    for u in units:
        with open(os.path.join(units_dir, u), encoding="utf-8") as f:
            for inc in INCLUDE.findall(f.read()):
                seen.setdefault(inc, []).append(u)
    sources = set()
    skip = {"units", *a.skip_dir}
    for dirpath, dirs, files in os.walk(root):
        if dirpath == root:
            dirs[:] = [d for d in dirs if d not in skip]
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            if f.endswith(".cpp") and rel not in a.alone:
                sources.add(rel)
    problems = []
    for s in sorted(sources - set(seen)):
        problems.append(f"{s}: in no unit of {units_dir}")
    for inc, where in sorted(seen.items()):
        if inc not in sources:
            problems.append(f"{inc}: included by {', '.join(where)}, not a source under {root}")
        if len(where) > 1:
            problems.append(f"{inc}: in {len(where)} units ({', '.join(where)}): compiled twice")
        if a.tests and inc in sources:
            folder, name = os.path.split(inc)
            if not re.search(r"[/']" + re.escape(name) + r"[',]", meson_build(root, folder)):
                problems.append(f"{inc}: named by no test in {folder}/meson.build: its cases never run")
    for p in problems:
        print(p)
    print(f"{len(sources)} sources, {len(units)} units, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
