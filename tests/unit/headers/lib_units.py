#!/usr/bin/env python3
"""libfloe's units include exactly what <floe/src.hpp> includes, each once.

  lib_units.py SRC_HPP UNIT.cpp...

libfloe compiles floe's implementation in a few units (src/lib/) that build
in parallel; an embedder compiles all of it in one file through src.hpp.
A .ipp added to one list and not the other, or to two units (its
definitions twice in libfloe), fails here. Exit 0 when the lists agree;
else 1, naming each difference.
"""
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*<(floe/[^>]+\.ipp)>', re.M)


def includes(path):
    with open(path, encoding="utf-8") as f:
        return INCLUDE.findall(f.read())


def main(src_hpp, units):
    want = includes(src_hpp)
    seen = {}
    for u in units:
        for inc in includes(u):
            seen.setdefault(inc, []).append(u)
    problems = []
    for inc in want:
        if inc not in seen:
            problems.append(f"{inc}: in src.hpp, in no unit of libfloe")
    for inc, where in sorted(seen.items()):
        if inc not in want:
            problems.append(f"{inc}: in {', '.join(where)}, not in src.hpp")
        if len(where) > 1:
            problems.append(f"{inc}: in {len(where)} units ({', '.join(where)}): its definitions twice in libfloe")
    for p in problems:
        print(p)
    print(f"{len(want)} files in src.hpp, {len(units)} units, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: lib_units.py SRC_HPP UNIT.cpp...")
    sys.exit(main(sys.argv[1], sys.argv[2:]))
