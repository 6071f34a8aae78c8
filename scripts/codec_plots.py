#!/usr/bin/env python3
"""codec_plots.py: codec benchmark JSON -> two PNG plots per device.

    scripts/codec_plots.py [--out DIR] [--data TEXT] FILE...

Inputs, in any mix:
  - `ghz-demo --json FILE`: JSON lines, one per (field, REL bound), with ratio,
    bits_per_value and psnr (the CPU reference codec; "device": "CPU");
  - `ghz-bench codec --json FILE`: one document {"device", "results": [...]}, rows with
    field, rel and ratio (the CUDA codec; no PSNR, so these feed the ratio plot only).

Writes into DIR (default build/codec-plots), one pair per device found:
  ratio_vs_bound_<device>.png   compression ratio against the REL error bound (log-log),
                                one line per field
  psnr_vs_bits_<device>.png     rate-distortion: PSNR (dB) against bits per value, one
                                line per field (rows that have a PSNR)
--data names the data set in the titles (default: "generated fields (datasets/)" when
only generated fields appear, else "fields"). When a (device, field, bound) appears
more than once, the last one read is kept. Needs matplotlib (Debian
python3-matplotlib, or pip); exit 1 when no usable row is found.
"""

import argparse
import json
import os
import re
import sys
from collections import defaultdict

import bench_json  # scripts/bench_json.py: the JSON-lines reader

# the fields datasets/ generates (ghz_ds_generate); the rest are real data
GENERATED = {"wave3d", "smooth2d", "noisy2d", "ocean2d"}


def rows_of(path):
    """The usable rows of one file, each with its device; a ghz-bench document or JSON
    lines (ghz-demo; lines that are not objects are skipped)."""
    with open(path) as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("results"), list):
        objs = [dict(r, device=doc.get("device", "GPU")) for r in doc["results"]
                if isinstance(r, dict)]
    else:
        objs = [o for _, o in bench_json.objects(text.splitlines())]
    out = []
    for o in objs:
        if "field" not in o or "ratio" not in o or o.get("rel") is None:
            continue
        if o.get("eb_mode", "rel") != "rel":
            continue
        r = dict(o)
        r.setdefault("device", "CPU")
        # ghz-bench codec is float32 only: a ratio R is 32/R bits per value
        if "bits_per_value" not in r and float(r["ratio"]) > 0:
            r["bits_per_value"] = 32.0 / float(r["ratio"])
        out.append(r)
    return out


def load(paths):
    best = {}
    for p in paths:
        for r in rows_of(p):
            best[(r["device"], r["field"], float(r["rel"]))] = r
    bydev = defaultdict(lambda: defaultdict(list))  # device -> field -> rows by bound
    for (dev, field, _), r in best.items():
        bydev[dev][field].append(r)
    for fields in bydev.values():
        for rows in fields.values():
            rows.sort(key=lambda r: float(r["rel"]))
    return bydev


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "device"


def data_name(fields, given):
    if given:
        return given
    if set(fields) <= GENERATED:
        return "generated fields (datasets/)"
    if set(fields) & GENERATED:
        return "real and generated fields"
    return "real fields"


def where(dev):
    return "CPU reference codec, 1 thread" if dev == "CPU" else f"CUDA codec on {dev}"


def plot_ratio(plt, dev, fields, data, out):
    fig, ax = plt.subplots(figsize=(7, 4.6))
    for field in sorted(fields):
        rows = fields[field]
        ax.plot([float(r["rel"]) for r in rows], [float(r["ratio"]) for r in rows], "o-",
                label=field)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = plt.FuncFormatter(lambda v, _: f"{v:g}")  # 20, not 2 x 10^1
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.invert_xaxis()  # tighter bounds to the right
    ax.set_xlabel("error bound (REL: fraction of the field's value range, log scale)")
    ax.set_ylabel("compression ratio (uncompressed / compressed bytes)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, title="field", title_fontsize=8)
    ax.set_title(f"Compression ratio against the bound: {data}, float32\n{where(dev)}",
                 fontsize=10)
    fig.tight_layout()
    png = os.path.join(out, f"ratio_vs_bound_{slug(dev)}.png")
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def plot_psnr(plt, dev, fields, data, out):
    with_psnr = {f: [r for r in rows if r.get("psnr") is not None]
                 for f, rows in fields.items()}
    with_psnr = {f: rows for f, rows in with_psnr.items() if rows}
    if not with_psnr:
        return None
    # The bound of each point, written once, beside the field that spends the most bits
    # (PSNR follows the bound closely, so the other fields' points sit at its height).
    widest = max(with_psnr, key=lambda f: max(float(r["bits_per_value"]) for r in with_psnr[f]))
    fig, ax = plt.subplots(figsize=(7, 4.6))
    for field in sorted(with_psnr):
        # joined in the order of the bound, not of the bits: where a tighter bound
        # costs fewer bits, the line turns back and shows it
        rows = with_psnr[field]
        x = [float(r["bits_per_value"]) for r in rows]
        y = [float(r["psnr"]) for r in rows]
        line, = ax.plot(x, y, "o-", label=field)
        if field == widest:
            for r, xi, yi in zip(rows, x, y):
                ax.annotate(f"REL {float(r['rel']):.0e}", (xi, yi), textcoords="offset points",
                            xytext=(6, -3), fontsize=7, color=line.get_color())
    ax.set_xlabel("bits per value (compressed bits / values; float32 = 32)")
    ax.set_ylabel("PSNR (dB, over non-fill values, range = max - min)")
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, title="field", title_fontsize=8,
              loc="lower right")
    ax.set_title(f"Rate-distortion: {data}, float32\n{where(dev)}", fontsize=10)
    fig.tight_layout()
    png = os.path.join(out, f"psnr_vs_bits_{slug(dev)}.png")
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def main():
    ap = argparse.ArgumentParser(description="ratio-bound and rate-distortion plots from "
                                 "ghz-demo / ghz-bench codec JSON")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default="build/codec-plots")
    ap.add_argument("--data", default="", help="the data set's name for the titles")
    args = ap.parse_args()
    bydev = load(args.files)
    if not bydev:
        print("codec_plots: no usable rows (need field, rel, ratio)", file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("codec_plots: matplotlib not found (apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for dev in sorted(bydev):
        fields = bydev[dev]
        data = data_name(fields, args.data)
        for png in (plot_ratio(plt, dev, fields, data, args.out),
                    plot_psnr(plt, dev, fields, data, args.out)):
            if png:
                print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
