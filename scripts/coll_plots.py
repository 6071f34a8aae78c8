#!/usr/bin/env python3
"""coll_plots.py: ghz-coll-bench JSON lines -> PNG plots and a markdown results table.

    scripts/coll_plots.py [--out DIR] [--title TEXT] FILE.jsonl...

Each input line is one JSON object; the fields used are size (bytes, nccl-tests
convention), nranks, coll, path (e.g. homo, doc, exact, mpi) and time_us, and when
present ratio, busbw / algbw (GB/s; computed from size and time with the nccl-tests
factors when absent), and the error check: maxerr with bound (or bound_abs), or
err_over_bound. Lines that are not JSON objects with the five required fields are
skipped (so whole logs can be passed). When a (coll, nranks, size, path) appears more
than once, the fastest time is kept.

Writes into DIR (default build/coll-plots):
  time_<coll>_<n>ranks.png    time and busbw against size, one line per path
  error_<coll>.png            measured max error / bound per path and size (<= 1 holds)
  results.md                  the table (also printed): time, algbw, busbw, ratio,
                              max error / bound, speedup over the MPI and exact paths
Plots need matplotlib (Debian python3-matplotlib); the table does not.
"""

import argparse
import os
import sys
from collections import defaultdict

from bench_json import json_lines


def bus_factor(coll, n):
    """nccl-tests' bus bandwidth factor (algbw computed from S as given)."""
    coll = coll.lower().replace("_", "")
    if n <= 1:
        return 1.0
    if coll == "allreduce":
        return 2.0 * (n - 1) / n
    if coll in ("reducescatter", "allgather", "alltoall", "scatter", "gather"):
        return (n - 1) / n
    return 1.0  # broadcast, reduce


def load(paths):
    best = {}
    for _, _, o in json_lines(paths):
        key = (o["coll"], int(o["nranks"]), int(o["size"]), str(o["path"]))
        if key not in best or float(o["time_us"]) < float(best[key]["time_us"]):
            best[key] = o
    return best


def err_over_bound(o):
    if "err_over_bound" in o:
        return float(o["err_over_bound"])
    b = o.get("bound", o.get("bound_abs"))
    if "maxerr" in o and b:
        return float(o["maxerr"]) / float(b)
    return None


def derived(o):
    t = float(o["time_us"]) * 1e-6
    algbw = float(o["algbw"]) if "algbw" in o else (int(o["size"]) / t / 1e9 if t > 0 else 0.0)
    busbw = float(o["busbw"]) if "busbw" in o else algbw * bus_factor(o["coll"], int(o["nranks"]))
    return algbw, busbw


def human(n):
    for unit, s in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= s and n % (s // 1024 or 1) == 0:
            return f"{n / s:g} {unit}"
    return f"{n} B"


def table(best):
    rows = ["| coll | ranks | size | path | time (us) | algbw (GB/s) | busbw (GB/s) | ratio | "
            "max err / bound | vs mpi | vs exact |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(best, key=lambda k: (k[0], k[1], k[2], k[3])):
        coll, n, size, path = key
        o = best[key]
        algbw, busbw = derived(o)
        t = float(o["time_us"])
        eob = err_over_bound(o)
        ref = {}
        for r in ("mpi", "exact"):
            other = best.get((coll, n, size, r))
            ref[r] = f"{float(other['time_us']) / t:.2f}x" if other and t > 0 else "-"
        ratio = o.get("ratio")
        rows.append(f"| {coll} | {n} | {human(size)} | {path} | {t:.1f} | {algbw:.2f} | "
                    f"{busbw:.2f} | {'%.2f' % float(ratio) if ratio is not None else '-'} | "
                    f"{'%.3f' % eob if eob is not None else '-'} | {ref['mpi']} | {ref['exact']} |")
    return "\n".join(rows) + "\n"


def plots(best, out, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("coll_plots: matplotlib not found (apt-get install python3-matplotlib): "
              "table only", file=sys.stderr)
        return []
    written = []
    groups = defaultdict(lambda: defaultdict(list))  # (coll, n) -> path -> [(size, o)]
    for (coll, n, size, path), o in best.items():
        groups[(coll, n)][path].append((size, o))
    for (coll, n), bypath in sorted(groups.items()):
        fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=(12, 4.5))
        for path in sorted(bypath):
            pts = sorted(bypath[path], key=lambda x: x[0])
            sizes = [s for s, _ in pts]
            style = "--" if path in ("mpi", "exact", "nccl") else "-"
            ax_t.plot(sizes, [float(o["time_us"]) for _, o in pts], "o" + style, label=path)
            ax_b.plot(sizes, [derived(o)[1] for _, o in pts], "o" + style, label=path)
        for ax in (ax_t, ax_b):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("size (bytes, nccl-tests convention)")
            ax.grid(alpha=0.3, which="both")
        ax_t.set_yscale("log")
        ax_t.set_ylabel("time (us)")
        ax_b.set_ylabel("busbw (GB/s, logical bytes)")
        ax_t.legend(fontsize=8)
        fig.suptitle(f"{title}{coll}, {n} ranks (measured)", fontsize=11)
        fig.tight_layout()
        path_png = os.path.join(out, f"time_{coll}_{n}ranks.png")
        fig.savefig(path_png, dpi=110)
        plt.close(fig)
        written.append(path_png)

    errs = defaultdict(lambda: defaultdict(list))  # coll -> path -> [(size, n, eob)]
    for (coll, n, size, path), o in best.items():
        e = err_over_bound(o)
        if e is not None:
            errs[coll][path].append((size, n, e))
    for coll, bypath in sorted(errs.items()):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for path in sorted(bypath):
            pts = sorted(bypath[path])
            ax.plot([s for s, _, _ in pts], [e for _, _, e in pts], "o", label=path, alpha=0.8)
        ax.axhline(1.0, color="red", lw=1, label="bound")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, max(1.1, max(e for v in bypath.values() for _, _, e in v) * 1.1))
        ax.set_xlabel("size (bytes)")
        ax.set_ylabel("max |result - exact| / bound")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        ax.set_title(f"{title}{coll}: final-result error against its bound (measured)",
                     fontsize=10)
        fig.tight_layout()
        path_png = os.path.join(out, f"error_{coll}.png")
        fig.savefig(path_png, dpi=110)
        plt.close(fig)
        written.append(path_png)
    return written


def main():
    ap = argparse.ArgumentParser(description="plots and a table from ghz-coll-bench JSON lines")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default="build/coll-plots")
    ap.add_argument("--title", default="", help="prefix of the plot titles (e.g. the machine)")
    args = ap.parse_args()
    best = load(args.files)
    if not best:
        print("coll_plots: no usable JSON lines (need size, nranks, coll, path, time_us)",
              file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    title = args.title + ": " if args.title else ""
    md = table(best)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(md)
    print(md, end="")
    broken = [k for k, o in best.items() if (err_over_bound(o) or 0.0) > 1.0]
    for p in plots(best, args.out, title):
        print(f"wrote {p}")
    print(f"wrote {os.path.join(args.out, 'results.md')}")
    if broken:
        print(f"coll_plots: {len(broken)} points exceed their bound: {broken}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
