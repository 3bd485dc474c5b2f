#!/usr/bin/env python3
"""The folders of include/floe/ form an include graph without a cycle.

  include_graph.py INCLUDE_ROOT

A node is a folder right under include/floe/ (its detail/ and impl/
subfolders belong to it; the files directly in include/floe/ and their
impl/ are the node "floe"); an edge A -> B is a header or .ipp file of A that includes
<floe/B/...>. floe.hpp and src.hpp, which gather everything, are left out.
Exit 0 when the graph has no cycle; else 1, printing each cycle with the
include lines that make it.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*<floe/([^>]+)>', re.M)
UMBRELLAS = {"floe.hpp", "src.hpp"}


def node_of(rel):
    parts = rel.split("/")
    if len(parts) == 1 or (len(parts) == 2 and parts[0] == "impl"):
        return "floe"  # include/floe/*.hpp and their include/floe/impl/*.ipp
    return parts[0]


def graph(root):
    edges = {}  # a -> {b: [(file, line)]}
    base = os.path.join(root, "floe")
    for dirpath, _, files in os.walk(base):
        for name in files:
            if not name.endswith((".hpp", ".ipp")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, base)
            if rel in UMBRELLAS:
                continue
            a = node_of(rel)
            edges.setdefault(a, {})
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                b = node_of(m.group(1))
                if b != a:
                    edges[a].setdefault(b, []).append((rel, m.group(0).strip()))
    return edges


def cycles(edges):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: include_graph.py INCLUDE_ROOT", file=sys.stderr)
        return 2
    edges = graph(sys.argv[1])
    if len(edges) < 2:
        print("include_graph: no folders found under %s/floe" % sys.argv[1], file=sys.stderr)
        return 2
    found = cycles(edges)
    for comp in found:
        print("include cycle among folders: " + ", ".join(comp))
        for a in comp:
            for b, where in sorted(edges[a].items()):
                if b in comp:
                    for rel, line in where:
                        print("  %s -> %s: %s: %s" % (a, b, rel, line))
    if found:
        return 1
    print("include graph: %d folders, no cycle" % len(edges))
    return 0


if __name__ == "__main__":
    sys.exit(main())
