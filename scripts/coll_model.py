#!/usr/bin/env python3
"""coll_model.py: an alpha-beta MODEL of collective time, ghz compressed against
uncompressed ring/tree, from 8 to 1024 GPUs on 100/200/400 Gb/s networks.

THIS IS A MODEL, NOT A MEASUREMENT. It projects times from a handful of rates (link
bandwidth and latency, the codec's compress/decompress rates, the homomorphic combine
rate, the compression ratio) with the textbook cost formulas of /work/shared's
coll-anchors (alpha per message, beta per byte); it knows nothing of congestion,
topology beyond "GPUs per node", stragglers or overlap it is not told about.
docs/SCALE_MODEL.md states every assumption and formula.

    scripts/coll_model.py [--size 256MiB] [--ratio 4] [--measured FILE.jsonl ...]
                          [--plots DIR] [options]

--measured reads ghz-coll-bench (or ghz-image-stacking --json) output, one JSON object
per line with at least size (bytes, nccl-tests convention), nranks, coll, path, time_us
and, for compressed paths, ratio; it prints the model's time for each point next to
the measured one (model / measured). Without matplotlib the plots are skipped.
"""

import argparse
import math
import os
import sys

from bench_json import json_lines

GB = 1e9


def parse_size(s):
    s = s.strip()
    units = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    for suffix in ("KiB", "MiB", "GiB", "K", "M", "G"):
        if s.endswith(suffix):
            return int(float(s[: -len(suffix)]) * units[suffix[0]])
    return int(float(s))


# ---- parameters -------------------------------------------------------------------------

class Net:
    """The machine: per-GPU network share, NVLink inside a node, latencies."""

    def __init__(self, gbps, gpus_per_node=8, nvlink_GBps=370.0, alpha_inter_us=8.0,
                 alpha_intra_us=3.0):
        self.B = gbps / 8.0 * GB * 0.94  # usable share of the line rate (framing)
        self.g = gpus_per_node
        self.nvl = nvlink_GBps * GB
        self.a_inter = alpha_inter_us * 1e-6
        self.a_intra = alpha_intra_us * 1e-6

    def alpha(self, p):
        return self.a_intra if p <= self.g else self.a_inter

    def beta(self, p):
        """Seconds per byte of a ring step: the slowest link the ring crosses."""
        return 1.0 / (self.nvl if p <= self.g else self.B)


class Codec:
    """ghz's rates in bytes per second of UNCOMPRESSED data, and per-launch overhead."""

    def __init__(self, compress, decompress, homo, doc, ratio, launch_us, reduce_rate):
        self.C, self.D, self.H, self.DOC = compress, decompress, homo, doc
        self.R = ratio
        self.launch = launch_us * 1e-6
        self.gamma = 1.0 / reduce_rate  # exact elementwise reduction


# ---- uncompressed collectives (NCCL-like) -------------------------------------------------
# S follows nccl-tests: allreduce S = per-rank buffer; allgather S = total output;
# alltoall S = per-rank buffer (count * nranks elements).

def ring_allreduce(S, p, net, c):
    if p == 1:
        return 0.0
    return 2 * (p - 1) * net.alpha(p) + 2 * (p - 1) / p * S * net.beta(p) + (p - 1) / p * S * c.gamma


def tree_allreduce(S, p, net, c):
    """NCCL's pipelined double binary tree: every byte goes up and down once."""
    if p == 1:
        return 0.0
    return 2 * math.ceil(math.log2(p)) * net.alpha(p) + 2 * S * net.beta(p) + S * c.gamma


def ring_allgather(S, p, net, c):
    return (p - 1) * net.alpha(p) + (p - 1) / p * S * net.beta(p)


def alltoall_bytes_time(Sbytes, p, net):
    """Pairwise alltoall moving Sbytes per rank: the off-node share over the network, the
    on-node share over NVLink, in parallel."""
    if p <= net.g:
        return (p - 1) / p * Sbytes / net.nvl
    off = (p - net.g) / p * Sbytes / net.B
    on = (net.g - 1) / p * Sbytes / net.nvl
    return max(off, on)


def pairwise_alltoall(S, p, net, c):
    return (p - 1) * net.alpha(p) + alltoall_bytes_time(S, p, net)


def exact_best(coll, S, p, net, c):
    if coll == "allreduce":
        return min(ring_allreduce(S, p, net, c), tree_allreduce(S, p, net, c))
    if coll == "allgather":
        return ring_allgather(S, p, net, c)
    return pairwise_alltoall(S, p, net, c)


# ---- ghz compressed collectives -----------------------------------------------------------
# Without --overlap every step is communication + compute, in sequence (conservative);
# with it a pipelined step costs the larger of the two (what chunked pipelines reach at
# best). Every compute step pays one launch overhead.

def step(comm, compute, overlap):
    return max(comm, compute) if overlap else comm + compute


def ghz_allreduce(S, p, net, c, path="homo", overlap=False):
    """Ring reduce-scatter + ring allgather on compressed pieces of S/p bytes.
    homo (ghZCCL): compress once, combine compressed pieces, decompress once.
    doc (gZCCL): decompress, add, recompress the piece at every reduce-scatter step."""
    if p == 1:
        return 0.0
    a, b, piece = net.alpha(p), net.beta(p), S / p
    wire = piece / c.R * b
    t = S / c.C + c.launch  # compress the whole buffer once
    rs_compute = piece / (c.H if path == "homo" else c.DOC) + c.launch
    t += (p - 1) * (a + step(wire, rs_compute, overlap))
    t += (p - 1) * (a + wire)  # allgather of the compressed reduced pieces
    t += S / c.D + c.launch  # decompress the result once
    return t


def ghz_allreduce_rhd(S, p, net, c, path="homo", overlap=False):
    """Recursive halving reduce-scatter + recursive doubling allgather on compressed data
    (Rabenseifner): lg p steps each way, message halving then doubling. Non-powers of
    two are rounded up (the fold-in step costs about one more exchange)."""
    if p == 1:
        return 0.0
    a, b = net.alpha(p), net.beta(p)
    steps = math.ceil(math.log2(p))
    t = S / c.C + c.launch + S / c.D + c.launch
    rate = c.H if path == "homo" else c.DOC
    for k in range(1, steps + 1):
        half = S / 2 ** k
        t += a + step(half / c.R * b, half / rate + c.launch, overlap)  # reduce-scatter
        t += a + half / c.R * b  # allgather
    return t


def ghz_allreduce_best(S, p, net, c, path="homo", overlap=False):
    """What an AUTO choice would run: the faster of the ring and halving/doubling."""
    return min(ghz_allreduce(S, p, net, c, path, overlap),
               ghz_allreduce_rhd(S, p, net, c, path, overlap))


def ghz_allgather(S, p, net, c, overlap=False):
    """Compress my block (S/p), ring allgather of compressed blocks, decompress the rest."""
    a, b, piece = net.alpha(p), net.beta(p), S / p
    t = piece / c.C + c.launch
    comm = (p - 1) * (a + piece / c.R * b)
    dec = (p - 1) * piece / c.D + c.launch
    return t + (step(comm, dec, True) if overlap else comm + dec)


def ghz_alltoall(S, p, net, c, overlap=False):
    """Compress the p blocks of my buffer, pairwise exchange, decompress what came in."""
    t = S / c.C + c.launch
    comm = (p - 1) * net.alpha(p) + alltoall_bytes_time(S / c.R, p, net)
    dec = (p - 1) / p * S / c.D + c.launch
    return t + (step(comm, dec, True) if overlap else comm + dec)


def ghz_time(coll, S, p, net, c, path="homo", overlap=False):
    if coll == "allreduce":
        return ghz_allreduce_best(S, p, net, c, path, overlap)
    if coll == "allgather":
        return ghz_allgather(S, p, net, c, overlap)
    return ghz_alltoall(S, p, net, c, overlap)


# ---- the papers' published figures (their hardware, their compressors) ------------------

PAPERS = [
    # (label, coll, GPUs, GPUs per node, per-node network Gb/s, speedup over NCCL)
    ("gZCCL allreduce, 512 A100, Slingshot 10 (100 Gb/s per 4-GPU node)", "allreduce", 512, 4, 100, 4.5),
    ("ghZCCL scalability (Fig. 11a), 512 A100, same system", "allreduce", 512, 4, 100, 5.81),
    ("ghZCCL allreduce (Fig. 10), 64 A100, same system", "allreduce", 64, 4, 100, 3.21),
]


def ratio_for(target, coll, S, p, net, c, overlap):
    """The compression ratio at which the model's homo speedup reaches target, by
    bisection (the speedup grows with the ratio); None when even 1000 falls short."""
    def speedup(r):
        cc = Codec(c.C, c.D, c.H, c.DOC, r, c.launch * 1e6, 1.0 / c.gamma)
        return exact_best(coll, S, p, net, cc) / ghz_time(coll, S, p, net, cc, "homo", overlap)
    lo, hi = 1.0, 1000.0
    if speedup(hi) < target:
        return None
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if speedup(mid) < target else (lo, mid)
    return hi


# ---- measured points ---------------------------------------------------------------------

def read_points(paths):
    pts = []
    for _, _, o in json_lines(paths):
        pts.append(dict(o))
        if "time_exact_us" in o:  # ghz-image-stacking: its exact run too
            pts.append(dict(o, path="exact", time_us=o["time_exact_us"]))
    return pts


def model_point(o, net, c, overlap):
    coll = o["coll"].lower().replace("_", "")
    coll = {"allreduce": "allreduce", "allgather": "allgather", "alltoall": "alltoall"}.get(coll)
    if coll is None:
        return None
    S, p, path = float(o["size"]), int(o["nranks"]), o["path"].lower()
    if path in ("exact", "mpi", "nccl", "ring", "tree", "auto"):
        if coll == "allreduce" and path in ("ring", "tree"):
            return (ring_allreduce if path == "ring" else tree_allreduce)(S, p, net, c)
        return exact_best(coll, S, p, net, c)
    cc = Codec(c.C, c.D, c.H, c.DOC, float(o.get("ratio") or c.R), c.launch * 1e6, 1.0 / c.gamma)
    return ghz_time(coll, S, p, net, cc, "doc" if path == "doc" else "homo", overlap)


# ---- output ------------------------------------------------------------------------------

def fmt_t(s):
    return f"{s * 1e3:9.3f} ms" if s >= 1e-3 else f"{s * 1e6:9.1f} us"


def brief(args, S, c, mknet):
    """The allreduce of S bytes on args.brief ranks over each link of --gbps, a few lines."""
    p = args.brief
    print(f"MODEL (alpha-beta, docs/SCALE_MODEL.md), NOT a measurement: allreduce of "
          f"{S / 2**20:.2f} MiB on {p} ranks, {args.gpus_per_node} GPU(s) per node,")
    print(f"ghz homomorphic at ratio {c.R:.2f} with GPU codec rates (compress "
          f"{args.compress_GBps:.0f} GB/s, decompress {args.decompress_GBps:.0f}, homo "
          f"{args.homo_GBps:.0f}), steps {'overlapped' if args.overlap else 'in sequence'}:")
    print(f"{'link':>10} {'uncompressed':>13} {'ghz':>12} {'speedup':>8}")
    for g in (float(x) for x in args.gbps.split(",")):
        net = mknet(g)
        te = exact_best("allreduce", S, p, net, c)
        tg = ghz_time("allreduce", S, p, net, c, "homo", args.overlap)
        link = f"{g:g} Gb/s" if p > net.g else "NVLink"
        print(f"{link:>10} {fmt_t(te):>13} {fmt_t(tg):>12} {te / tg:7.2f}x")


def main():
    ap = argparse.ArgumentParser(description="alpha-beta MODEL of ghz collectives at scale")
    ap.add_argument("--size", default="256MiB", help="message size, nccl-tests convention")
    ap.add_argument("--ratio", type=float, default=4.0, help="compression ratio (REL 1e-4: 3-9)")
    ap.add_argument("--compress-GBps", type=float, default=1400.0,
                    help="ghz compress rate with the range given (H100: 1400-1800)")
    ap.add_argument("--decompress-GBps", type=float, default=2000.0, help="H100: 1900-2300")
    ap.add_argument("--homo-GBps", type=float, default=600.0,
                    help="homomorphic SUM rate, uncompressed bytes (H100: 545-738)")
    ap.add_argument("--doc-GBps", type=float, default=370.0,
                    help="decompress-add-recompress rate, uncompressed bytes (H100: 358-393)")
    ap.add_argument("--reduce-GBps", type=float, default=1000.0,
                    help="exact elementwise reduction (HBM-bound: ~3 TB/s / 3 streams)")
    ap.add_argument("--launch-us", type=float, default=10.0, help="overhead of each kernel step")
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--nvlink-GBps", type=float, default=370.0)
    ap.add_argument("--alpha-us", type=float, default=8.0, help="inter-node latency per message")
    ap.add_argument("--alpha-intra-us", type=float, default=3.0)
    ap.add_argument("--overlap", action="store_true",
                    help="pipelined steps cost max(comm, compute) instead of the sum")
    ap.add_argument("--measured", nargs="*", default=[], help="JSON-lines files of measured points")
    ap.add_argument("--meas-gbps", type=float, default=None,
                    help="network of the measured system, Gb/s per GPU (default: NVLink when "
                         "the ranks fit in one node)")
    ap.add_argument("--plots", default=None, help="write PNG plots into this directory")
    ap.add_argument("--brief", type=int, default=None, metavar="RANKS",
                    help="only the allreduce on RANKS ranks, one line per --gbps link")
    ap.add_argument("--gbps", default="10,25,100",
                    help="with --brief: the links, Gb/s per GPU, comma-separated")
    args = ap.parse_args()

    S = parse_size(args.size)
    c = Codec(args.compress_GBps * GB, args.decompress_GBps * GB, args.homo_GBps * GB,
              args.doc_GBps * GB, args.ratio, args.launch_us, args.reduce_GBps * GB)

    def mknet(gbps, g=None):
        return Net(gbps, g or args.gpus_per_node, args.nvlink_GBps, args.alpha_us,
                   args.alpha_intra_us)

    if args.brief:
        brief(args, S, c, mknet)
        return

    print("=" * 78)
    print("THIS IS A MODEL (alpha-beta), NOT A MEASUREMENT. Assumptions: docs/SCALE_MODEL.md")
    print("=" * 78)
    print(f"size {S / 2**20:.0f} MiB (nccl-tests convention), ratio {c.R}, compress "
          f"{args.compress_GBps:.0f} GB/s, decompress {args.decompress_GBps:.0f}, homo "
          f"{args.homo_GBps:.0f}, DOC {args.doc_GBps:.0f}, launch {args.launch_us} us,")
    print(f"{args.gpus_per_node} GPUs per node on NVLink {args.nvlink_GBps:.0f} GB/s, alpha "
          f"{args.alpha_us} us between nodes, steps {'overlapped' if args.overlap else 'in sequence'}")

    gpus = [8, 16, 32, 64, 128, 256, 512, 1024]
    nets = [100, 200, 400]
    colls = ["allreduce", "allgather", "alltoall"]
    table = {}
    for coll in colls:
        print(f"\n{coll}: modelled time, uncompressed (allreduce: best of ring/tree) vs ghz "
              f"({'homo, best of ring/halving-doubling' if coll == 'allreduce' else 'compressed'}),"
              f" and speedup")
        print(f"{'GPUs':>6} " + " ".join(f"{str(g) + ' Gb/s':>30}" for g in nets))
        for p in gpus:
            row = []
            for g in nets:
                net = mknet(g)
                te = exact_best(coll, S, p, net, c)
                tg = ghz_time(coll, S, p, net, c, "homo", args.overlap)
                table[(coll, p, g)] = (te, tg)
                row.append(f"{fmt_t(te)} {fmt_t(tg)} {te / tg:5.2f}x")
            print(f"{p:>6} " + " ".join(f"{r:>30}" for r in row))

    print("\nThe papers' published speedups over NCCL (their A100 systems and compressors) "
          "beside this model\nwith ghz's rates on their network (per-GPU share = node "
          "bandwidth / GPUs per node):")
    for label, coll, p, g, node_gbps, paper in PAPERS:
        net = mknet(node_gbps / g, g)
        te = exact_best(coll, S, p, net, c)
        th = ghz_time(coll, S, p, net, c, "homo", args.overlap)
        td = ghz_time(coll, S, p, net, c, "doc", args.overlap)
        need = ratio_for(paper, coll, S, p, net, c, args.overlap)
        print(f"  {label}: paper {paper:.2f}x | model at ratio {c.R:g}: homo {te / th:.2f}x, "
              f"doc {te / td:.2f}x | ratio the model needs for {paper}x: "
              f"{'%.1f' % need if need else 'none (codec time caps it)'}")

    pts = read_points(args.measured)
    if args.measured:
        print(f"\nModel vs measured ({len(pts)} points; the model uses each point's own ratio):")
        print(f"{'coll':>10} {'path':>6} {'ranks':>5} {'size':>11} {'measured':>12} "
              f"{'model':>12} {'model/meas':>10}")
        for o in pts:
            p = int(o["nranks"])
            net = mknet(args.meas_gbps) if args.meas_gbps else mknet(100)
            if args.meas_gbps is None and p > net.g:
                net = mknet(100)  # ranks span nodes: say so below
            tm = model_point(o, net, c, args.overlap)
            meas = float(o["time_us"]) * 1e-6
            if tm is None:
                print(f"{o['coll']:>10} {o['path']:>6} {p:>5}  (no model for this collective)")
                continue
            print(f"{o['coll']:>10} {o['path']:>6} {p:>5} {int(o['size']):>11} {fmt_t(meas):>12} "
                  f"{fmt_t(tm):>12} {tm / meas:>10.2f}")
        print("(measured points on one node are modelled with NVLink; CPU-backend or "
              "shared-memory runs need --compress-GBps etc. of that backend and --nvlink-GBps "
              "of that transport to be comparable)")
    else:
        print("\nNo measured points given (--measured FILE.jsonl): nothing validated here.")

    if args.plots:
        plot(args, S, c, mknet, gpus, nets, colls, table)
    print("\nReminder: every number above except the papers' and the measured ones is a MODEL.")


def plot(args, S, c, mknet, gpus, nets, colls, table):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("coll_model: matplotlib not found (apt-get install python3-matplotlib): no plots",
              file=sys.stderr)
        return
    os.makedirs(args.plots, exist_ok=True)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), sharey=True)
    colors = {100: "tab:red", 200: "tab:orange", 400: "tab:blue"}
    for ax, coll in zip(axes, colls):
        for g in nets:
            sp = [table[(coll, p, g)][0] / table[(coll, p, g)][1] for p in gpus]
            ax.plot(gpus, sp, "o-", color=colors[g], label=f"ghz model, {g} Gb/s per GPU")
        if coll == "allreduce":
            # the papers' system: 100 Gb/s per node of 4 GPUs, i.e. 25 Gb/s per GPU
            pnet = [mknet(100 / 4, 4) for _ in gpus]
            sp = [exact_best(coll, S, p, n, c) / ghz_time(coll, S, p, n, c, "homo", args.overlap)
                  for p, n in zip(gpus, pnet)]
            ax.plot(gpus, sp, "s--", color="black", lw=1,
                    label="ghz model on the papers' network (25 Gb/s per GPU)")
            for label, _, p, gg, node, paper in PAPERS:
                ax.plot([p], [paper], "k*", markersize=12)
                ax.annotate(label.split(",")[0].split(" (")[0] + f": {paper}x", (p, paper),
                            textcoords="offset points", xytext=(-12, 7), fontsize=8,
                            ha="right")
        ax.axhline(1.0, color="gray", lw=0.8, ls="--")
        ax.set_xscale("log", base=2)
        ax.set_xticks(gpus)
        ax.set_xticklabels([str(p) for p in gpus])
        ax.set_title(f"{coll}, {S / 2**20:.0f} MiB, ratio {c.R}")
        ax.set_xlabel("GPUs")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("speedup over uncompressed (model)")
    axes[0].set_ylim(0, 7)
    axes[0].legend(fontsize=7.5, loc="lower right")
    fig.suptitle("MODEL (alpha-beta) of ghz compressed collectives vs uncompressed ring/tree; "
                 "stars: published measurements on A100 systems", fontsize=11)
    fig.tight_layout()
    out1 = os.path.join(args.plots, "scale_model_speedup.png")
    fig.savefig(out1, dpi=110)
    plt.close(fig)

    # time against size at 64 and 512 GPUs, 100 Gb/s: where compression starts to pay
    sizes = [2 ** k for k in range(16, 31)]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
    for ax, p in zip(axes, (64, 512)):
        net = mknet(100)
        ax.plot(sizes, [ring_allreduce(s, p, net, c) for s in sizes], label="ring (uncompressed)")
        ax.plot(sizes, [tree_allreduce(s, p, net, c) for s in sizes], label="tree (uncompressed)")
        ax.plot(sizes, [ghz_allreduce_best(s, p, net, c, "homo", args.overlap) for s in sizes],
                label="ghz homo (ghZCCL-style), best of ring / halving-doubling")
        ax.plot(sizes, [ghz_allreduce_best(s, p, net, c, "doc", args.overlap) for s in sizes],
                label="ghz DOC (gZCCL-style), best of ring / halving-doubling", ls="--")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("allreduce size per rank (bytes)")
        ax.set_title(f"allreduce, {p} GPUs, 100 Gb/s per GPU, ratio {c.R}")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("time (s), MODEL")
    axes[0].legend(fontsize=8)
    fig.suptitle("MODEL (alpha-beta): allreduce time against size", fontsize=11)
    fig.tight_layout()
    out2 = os.path.join(args.plots, "scale_model_allreduce_size.png")
    fig.savefig(out2, dpi=110)
    plt.close(fig)
    print(f"\nplots: {out1}, {out2}")


if __name__ == "__main__":
    main()
