#!/usr/bin/env python3
"""The CUDA ratio reader's critical path in rANS steps, from RATIO.md's rules.

    python3 scripts/ratio_gpu_model.py 144 73 25608            # navy_uwnd tiled to 1 GiB
    python3 scripts/ratio_gpu_model.py 2160 125280 --passes    # ETOPO5 tiled, per pass
    python3 scripts/ratio_gpu_model.py 144 73 25608 --shrink 0        # as frames were before the shrink

The reader (ghz/codec/cuda/ratio.cu) decodes a chunk a warp, its lanes one rANS state
each: a chunk of K symbols on W lanes takes ceil(K / W) dependent steps. Pass by pass,
a pass of c chunks on R resident warps takes ceil(c / R) rounds of its chunks' steps,
and the sum over the passes is the critical path; the reader now lets a pass's chunks
start before the pass before it ends (chunks in flow), which
scripts/ratio_reader_schedule.c models, and gains little over this sum. The work bound
is n / (32 R) steps, every warp busy all the time. Their quotient is what the pass
structure (small coarse passes, chunks as long as 2048 steps) can cost at most. Chunks (RATIO.md, Chunks),
with shrink k: c = chunk_log2 for arrays of at most 2^26 values, else
c = min(chunk_log2, max(12 - k, ceil(log2 K) - S)) with S = ceil(log2 n) - 17;
W = min(32, ceil(K_chunk / 2^(7 - k))). k is what writers choose (2 with spread, else 0)
unless --shrink says otherwise. The pass order within a level does not change the sums
much; the model takes axes 0, 1, 2.
"""
import argparse
import math


def levels(d):
    m, l = max(d), 0
    while (1 << l) < m:
        l += 1
    return l


def mults(d, s):
    return (d + s - 1) // s


def odds(d, s):
    return (d - s + 2 * s - 1) // (2 * s) if d > s else 0


def passes(d):
    """(level, pass, symbols) of every non-empty pass, coarse to fine."""
    out = []
    for l in range(levels(d), 0, -1):
        s = 1 << (l - 1)
        for q in range(3):
            k = 1
            for r in range(3):
                k *= odds(d[r], s) if r == q else (mults(d[r], s) if r < q else mults(d[r], 2 * s))
            if k:
                out.append((l, q, k))
    return out


def model(d, warps, shrink=None, chunk_log2=16):
    n = d[0] * d[1] * d[2]
    b = math.ceil(math.log2(n)) if n > 1 else 0
    spread = b - 17 if b > 26 else 0
    if shrink is None:
        shrink = 2 if spread else 0
    min_steps, min_log2 = 1 << (7 - shrink), 12 - shrink
    rows, path, symbols = [], 0, 0
    for l, q, k in passes(d):
        c = chunk_log2 if spread == 0 else min(chunk_log2, max(min_log2, math.ceil(math.log2(k)) - spread))
        chunks = (k + (1 << c) - 1) >> c
        ck = min(k, 1 << c)
        lanes = min(32, math.ceil(ck / min_steps))
        steps = math.ceil(ck / lanes)
        rounds = math.ceil(chunks / warps)
        path += rounds * steps
        symbols += k
        rows.append((l, q, k, c, chunks, lanes, steps, rounds))
    assert symbols == n - 1, (symbols, n)  # element 0 is not a symbol
    return rows, path, n / (32.0 * warps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dims", type=int, nargs="+", help="extents, fastest first (1 to 3)")
    ap.add_argument("--warps", type=int, default=132 * 16,
                    help="resident warps (default 2112: 132 SMs, two CTAs of 8 warps)")
    ap.add_argument("--shrink", type=int, choices=(0, 1, 2), default=None,
                    help="the frame's shrink k (RATIO.md, Chunks; default: the writers' choice)")
    ap.add_argument("--passes", action="store_true", help="print every pass")
    a = ap.parse_args()
    if len(a.dims) > 3 or min(a.dims) < 1 or a.warps < 1:
        ap.error("1 to 3 extents, each at least 1, and a positive --warps")
    d = (a.dims + [1, 1])[:3]
    rows, path, work = model(d, a.warps, a.shrink)
    if a.passes:
        print("level pass     symbols  log2c   chunks lanes steps rounds")
        for r in rows:
            print("%5d %4d %11d %6d %8d %5d %5d %6d" % r)
    print("%s (a MODEL, not a measurement): %d passes, critical path %d steps, work bound %.0f steps (%.2fx)"
          % ("x".join(map(str, d)), len(rows), path, work, path / work))


if __name__ == "__main__":
    main()
