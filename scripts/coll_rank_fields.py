#!/usr/bin/env python3
"""Per-rank real fields for the collective benchmarks and tests.

    python3 scripts/coll_rank_fields.py OUTDIR [NRANKS] [--src datasets/out/real]

Writes OUTDIR/rank<r>.f32 for r < NRANKS (default 8): rank r gets 16 consecutive monthly
time steps of the Navy surface wind (navy_uwnd, 144 x 73 per step, no fill values),
starting at step 16 r: a different time window of the same real field on every rank,
the shape of an ensemble or time-parallel reduction. Extract the source first with
datasets/real/extract.sh. Plain Python (no numpy needed).
"""
import argparse
import array
import math
import pathlib
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("nranks", nargs="?", type=int, default=8)
    ap.add_argument("--src", default="datasets/out/real")
    a = ap.parse_args()
    src = pathlib.Path(a.src) / "navy_uwnd_144x73x132.f32"
    if not src.exists():
        sys.exit(f"coll_rank_fields: {src} missing: run datasets/real/extract.sh first")
    vals = array.array("f")
    vals.frombytes(src.read_bytes())
    if sys.byteorder != "little":
        vals.byteswap()
    step = 73 * 144
    if len(vals) != 132 * step:
        sys.exit(f"coll_rank_fields: {src} holds {len(vals)} values, expected {132 * step}")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    per = 16
    for r in range(a.nranks):
        start = (r * per) % (132 - per)
        block = vals[start * step:(start + per) * step]
        if not all(math.isfinite(v) for v in block):
            sys.exit("coll_rank_fields: non-finite values in the source")
        data = array.array("f", block)
        if sys.byteorder != "little":
            data.byteswap()
        (out / f"rank{r}.f32").write_bytes(data.tobytes())
        print(f"{out / f'rank{r}.f32'}: navy_uwnd steps {start}..{start + per - 1}, "
              f"{len(block)} values in [{min(block):.2f}, {max(block):.2f}]")


if __name__ == "__main__":
    main()
