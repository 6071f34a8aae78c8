#!/usr/bin/env python3
"""coll.layers: ghz/coll's files call one another without a cycle, and only the MPI
transport, the bootstrap and their two neighbours call MPI (COLL.md, One call path).

Reads the library's object files with nm: a file calls another where it leaves a symbol
undefined that the other defines. A cycle of files is a layer calling up into one above
it; the test names every file of each cycle and the symbols that close it.

usage: coll_layers.py NM OBJECT...
"""
import collections
import os
import re
import subprocess
import sys

# The only files that may call MPI (COLL.md: "only four files call MPI").
MPI_FILES = {"comm_make", "transport_mpi", "algo_mpi", "cuda/transport_ipc"}
MPI_SYMBOL = re.compile(r"^_?(P?MPIX?_|ompi_)")


def file_name(obj):
    """ghz/coll's source file of an object, relative to ghz/coll, without its suffix."""
    path = obj.replace(os.sep, "/")
    marker = "ghz_coll.dir/"
    if marker in path:
        path = path.split(marker, 1)[1]
    return re.sub(r"\.(c|cu|cpp)\.o(bj)?$", "", path)


def symbols(nm, obj):
    defined, undefined = set(), set()
    out = subprocess.run([nm, "-g", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] not in "Uw":
            defined.add(f[2])
    return defined, undefined


def cycles(edges):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
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
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    nm, objs = argv[1], argv[2:]
    owner, needs = {}, {}
    for obj in objs:
        name = file_name(obj)
        defined, undefined = symbols(nm, obj)
        needs[name] = undefined
        for s in defined:
            owner[s] = name
    edges = collections.defaultdict(set)
    why = collections.defaultdict(set)
    for name, undefined in needs.items():
        edges[name]
        for s in undefined:
            other = owner.get(s)
            if other and other != name:
                edges[name].add(other)
                why[(name, other)].add(s)
    bad = 0
    for comp in cycles(edges):
        bad += 1
        print("coll.layers: these files call one another in a cycle: " + ", ".join(comp))
        for a in comp:
            for b in comp:
                if b in edges[a]:
                    print("  %s -> %s: %s" % (a, b, ", ".join(sorted(why[(a, b)]))))
    for name in sorted(needs):
        mpi = sorted(s for s in needs[name] if MPI_SYMBOL.match(s))
        if mpi and name not in MPI_FILES and name != "comm_no_mpi":
            bad += 1
            print("coll.layers: %s calls MPI (%s); only %s may" % (name, ", ".join(mpi[:4]), ", ".join(sorted(MPI_FILES))))
    print("coll.layers: %d files, %d calls between them, %s" %
          (len(needs), sum(len(e) for e in edges.values()), "no cycle, MPI in its files only" if not bad else "%d problem%s" % (bad, "" if bad == 1 else "s")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
