#!/usr/bin/env python3
"""The CLI's build units (src/cli/units/*.cpp) include every source of the
CLI exactly once.

  cli_units.py SRC_CLI_DIR

The CLI compiles its sources in units of several files each; a source in
no unit is never compiled (its symbols missing at link time, or worse, a
verb quietly absent), one in two is compiled twice. main.cpp and
static_resolver.cpp (the static build's) are compiled alone. Exit 0 when
every source is in exactly one unit; else 1, naming each difference.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"\.\./([^"]+\.cpp)"', re.M)
ALONE = {"main.cpp", "static_resolver.cpp"}


def main(root):
    units_dir = os.path.join(root, "units")
    units = sorted(f for f in os.listdir(units_dir) if f.endswith(".cpp"))
    seen = {}
    for u in units:
        with open(os.path.join(units_dir, u), encoding="utf-8") as f:
            for inc in INCLUDE.findall(f.read()):
                seen.setdefault(inc, []).append(u)
    sources = set()
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "units"]
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            if f.endswith(".cpp") and rel not in ALONE:
                sources.add(rel)
    problems = []
    for s in sorted(sources - set(seen)):
        problems.append(f"{s}: in no unit of src/cli/units/")
    for inc, where in sorted(seen.items()):
        if inc not in sources:
            problems.append(f"{inc}: included by {', '.join(where)}, not a source of the CLI")
        if len(where) > 1:
            problems.append(f"{inc}: in {len(where)} units ({', '.join(where)}): compiled twice")
    for p in problems:
        print(p)
    print(f"{len(sources)} sources, {len(units)} units, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
