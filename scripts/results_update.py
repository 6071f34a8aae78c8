#!/usr/bin/env python3
"""Rewrites the marked result tables of docs/RESULTS.md and README.md from benchmark JSON.

    python3 scripts/results_update.py [--doc FILE]... [--check] JSON...

JSON files: what `ghz-bench codec|homo|fixed --json FILE` writes (one document, the
rows under "results") and what `ghz-coll-bench --json FILE` writes (one object per
line); both may be given in any mix. Each row's kind (codec, homo, fixed, coll) is
told by its keys.

A table to regenerate sits between two comment lines in a markdown file:

    <!-- results:codec:begin -->
    ... replaced by the table of every codec row, in the order of the JSON ...
    <!-- results:codec:end -->

Everything outside the markers is kept byte for byte; a marked section whose kind has
no rows in the JSON given is kept too. The begin marker may name filters, KEY=V1,V2
(a row is kept when its KEY equals one of the values; numbers compare as numbers),
e.g. `<!-- results:codec:begin rel=1e-3,1e-4 -->` or
`<!-- results:coll:begin coll=allreduce nranks=2,8 -->`.

The codec, homo and fixed tables are the ones ghz-bench prints (same columns and
digits; JSON carries full doubles, so a table regenerated from the run that printed it
is identical). The coll table is markdown: one row per rank count and path, the
out-of-place time per size, and the ratio and max error / bound at the largest size.
Captions (device, commit, options) stay hand-written: the script prints what the JSON
says about them so that they can be checked.

--doc FILE (repeatable) picks the files (default docs/RESULTS.md and README.md of this
repository); --check writes nothing and exits 1 when a file would change; --print
prints every table the JSON makes and touches no file. Exit 2: bad
markers or unreadable JSON. Plain Python 3, no numpy.
"""
import argparse
import json
import math
import os
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_json import json_lines  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARK = re.compile(r"^<!-- results:([a-z0-9_-]+):(begin|end)((?:\s+[A-Za-z0-9_]+=[^\s]+)*)\s*-->\s*$")


class Bad(Exception):
    """A problem that leaves every file untouched (exit 2)."""


# --- reading the JSON ------------------------------------------------------------------

def kind_of(row):
    """Which table a row belongs to, from the keys each benchmark writes; None if none."""
    if "compress_known_range_gbs" in row:
        return "codec"
    if "homo_gbs" in row:
        return "homo"
    if "encode_gbs" in row:
        return "fixed"
    if "coll" in row and "nranks" in row:
        return "coll"
    return None


def load_rows(paths):
    """Every row of the files, each with its kind and (for ghz-bench documents) the
    document's device and copy_gbs; rows of no known kind are left out."""
    rows = []
    for path in paths:
        try:
            text = pathlib.Path(path).read_text()
        except OSError as e:
            raise Bad(f"{path}: {e.strerror}")
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("results"), list):
            extra = {k: v for k, v in doc.items() if k != "results"}
            found = [dict(extra, **r) for r in doc["results"] if isinstance(r, dict)]
        elif isinstance(doc, dict):
            found = [doc]
        else:
            found = [o for _, _, o in json_lines([path], required=())]
        found = [r for r in found if kind_of(r)]
        if not found:
            raise Bad(f"{path}: no ghz-bench or ghz-coll-bench rows")
        for r in found:
            r["_kind"] = kind_of(r)
        rows += found
    return rows


def matches(value, wanted):
    """Whether a row's value equals a filter value (numbers as numbers)."""
    try:
        a, b = float(value), float(wanted)
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    except (TypeError, ValueError):
        return str(value) == wanted


def select(rows, kind, filters):
    out = [r for r in rows if r["_kind"] == kind]
    for key, values in filters.items():
        out = [r for r in out if any(matches(r.get(key), v) for v in values)]
    return out


# --- the tables (formats of ghz/tools/bench/*.cu and ghz-coll-bench's columns) ----------

GIB = float(1 << 30)


def yes(flag):
    return "yes" if flag else "NO"


def codec_pct_known(r):
    # older JSON lacks it; same roofline time, so it scales with the speed
    if "compress_known_range_roofline_pct" in r:
        return r["compress_known_range_roofline_pct"]
    return r["compress_roofline_pct"] * r["compress_known_range_gbs"] / r["compress_gbs"]


def table_codec(rows):
    head = "%-14s %10s %7s %8s %8s %9s %8s %7s %8s %7s %8s %7s %9s %6s" % (
        "field", "GiB(tiled)", "REL", "ratio", "cuSZp2*", "maxerr/eb", "comp", "%roof", "comp-rg",
        "%roof", "decomp", "%roof", "identical", "bad")
    lines = [head]
    for r in rows:
        lines.append("%-14s %10.2f %7.0e %8.2f %8.2f %9.6f %8.1f %7.1f %8.1f %7.1f %8.1f %7.1f %9s %6d" % (
            r["field"], r["elements"] * r["tiles"] * 4.0 / GIB, r["rel"], r["ratio"],
            r["cuszp2_outlier_ratio"], r["max_err_over_eb"], r["compress_gbs"],
            r["compress_roofline_pct"], r["compress_known_range_gbs"], codec_pct_known(r),
            r["decompress_gbs"], r["decompress_roofline_pct"], yes(r["cpu_gpu_identical"]),
            r["violations"]))
    return fenced(lines)


def table_homo(rows):
    lines = ["%-10s %9s %7s %8s %9s %9s %8s %7s %9s" % (
        "field", "GiB", "REL", "ratio", "homo", "DOC", "speedup", "%roof", "identical")]
    for r in rows:
        lines.append("%-10s %9.2f %7.0e %8.2f %9.1f %9.1f %8.2f %7.1f %9s" % (
            r["field"], r["elements"] * r["tiles"] * 4.0 / GIB, r["rel"], r["ratio"], r["homo_gbs"],
            r["doc_gbs"], r["speedup"], r["roofline_pct"], yes(r["identical_to_doc"])))
    return fenced(lines)


def table_fixed(rows):
    lines = ["%-10s %-4s %3s %8s %6s %8s %6s %8s %6s %8s %6s %7s %9s %5s" % (
        "field", "type", "l", "GiB", "ratio", "encode", "%roof", "decomp", "%roof", "in-reg", "%roof",
        "worst", "identical", "bad")]
    for r in rows:
        elem = 8 if r["dtype"] == "f64" else 4
        lines.append("%-10s %-4s %3d %8.2f %6.2f %8.1f %6.1f %8.1f %6.1f %8.1f %6.1f %7.4f %9s %5d" % (
            r["field"], r["dtype"], r["bits"], r["elements"] * r["tiles"] * elem / GIB, r["ratio"],
            r["encode_gbs"], r["encode_copy_roofline_pct"], r["decompress_gbs"],
            r["decompress_copy_roofline_pct"], r["decode_in_registers_gbs"],
            r["decode_read_roofline_pct"], r["worst_err_over_unit"], yes(r["cpu_gpu_identical"]),
            r["violations"]))
    return fenced(lines)


def fenced(lines):
    return ["```text"] + [ln.rstrip() for ln in lines] + ["```"]


def size_name(b):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"


def duration(us):
    """A time to three significant digits (at least), in us below 1 ms, else in ms."""
    if us < 999.5:
        return f"{us:.0f} us" if us >= 99.95 else f"{us:.1f} us"
    v = us / 1000.0
    return f"{v:.0f} ms" if v >= 99.95 else f"{v:.1f} ms" if v >= 9.995 else f"{v:.2f} ms"


PATH_NAMES = {"homo": "ghz homomorphic", "doc": "ghz DOC", "exact": "ghz exact"}


def coll_cell(r):
    if not r.get("oop_ok", False):
        return "failed"
    cell = duration(r["oop_time_us"])
    if r.get("oop_wrong"):
        cell += f" ({r['oop_wrong']:.0f} wrong)"
    return cell


def table_coll(rows):
    """One markdown table; several collectives or types in the rows get one table each."""
    out = []
    groups = {}
    for r in rows:
        # "backend" is not ghz-coll-bench's own: scripts/gpu.sh bench coll adds it
        groups.setdefault((r["coll"], r.get("type"), r.get("redop"), r.get("backend")), []).append(r)
    for (coll, dtype, op, backend), grp in groups.items():
        sizes = sorted({r["size"] for r in grp})
        keys = []
        for r in grp:
            k = (r["nranks"], r["path"])
            if k not in keys:
                keys.append(k)
        keys.sort(key=lambda k: k[0])  # stable: paths keep the benchmark's order
        if out:
            out.append("")
        title = " ".join(x for x in (coll, dtype, op) if x) + (f" ({backend} backend)" if backend else "")
        out.append("| " + " | ".join([title] + [size_name(s) for s in sizes]
                                     + ["ratio", "max err / bound"]) + " |")
        out.append("|---|" + "---:|" * (len(sizes) + 2))
        for nranks, path in keys:
            by_size = {r["size"]: r for r in grp if (r["nranks"], r["path"]) == (nranks, path)}
            name = PATH_NAMES.get(path, "MPI_" + coll.capitalize() if path == "mpi" else path)
            cells = [coll_cell(by_size[s]) if s in by_size else "-" for s in sizes]
            last = by_size[max(by_size)]
            ratio, err = last.get("oop_ratio"), last.get("oop_maxerr_over_bound")
            cells.append(f"{ratio:.2f}" if isinstance(ratio, (int, float)) else "")
            cells.append(f"{err:.2f}" if isinstance(err, (int, float)) and math.isfinite(err) else "")
            out.append("| " + " | ".join([f"{nranks} ranks: {name}"] + cells) + " |")
    return out


TABLES = {"codec": table_codec, "homo": table_homo, "fixed": table_fixed, "coll": table_coll}


# --- the markdown files -----------------------------------------------------------------

def parse_filters(text):
    f = {}
    for item in text.split():
        key, _, values = item.partition("=")
        f[key] = values.split(",")
    return f


def rewrite(text, name, rows, report):
    """text with every marked section whose kind has rows replaced; raises Bad on
    unbalanced or unknown markers."""
    lines = text.split("\n")
    out, open_at = [], None
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            if open_at is None or open_at[2] is None:
                out.append(line)
            continue
        kind, edge = m.group(1), m.group(2)
        where = f"{name}:{i + 1}"
        if kind not in TABLES:
            raise Bad(f"{where}: unknown table kind '{kind}' (known: {', '.join(TABLES)})")
        if edge == "begin":
            if open_at is not None:
                raise Bad(f"{where}: begin of '{kind}' inside the '{open_at[0]}' section of line {open_at[1]}")
            chosen = select(rows, kind, parse_filters(m.group(3)))
            out.append(line)
            if chosen:
                out += TABLES[kind](chosen)
                report.append(f"{where}: {kind}: {len(chosen)} rows{describe(chosen)}")
            else:
                report.append(f"{where}: {kind}: no rows given, kept")
            open_at = (kind, i + 1, chosen or None)
        else:
            if open_at is None or open_at[0] != kind:
                raise Bad(f"{where}: end of '{kind}' without its begin")
            out.append(line)
            open_at = None
    if open_at is not None:
        raise Bad(f"{name}:{open_at[1]}: '{open_at[0]}' section never ends")
    return "\n".join(out)


def describe(rows):
    devs = sorted({r["device"] for r in rows if r.get("device")})
    copies = sorted({round(r["copy_gbs"]) for r in rows if isinstance(r.get("copy_gbs"), (int, float))})
    s = f" from {', '.join(devs)}" if devs else ""
    return s + (f" (copy kernel {', '.join(map(str, copies))} GB/s)" if copies else "")


def print_tables(paths):
    try:
        rows = load_rows(paths)
    except Bad as e:
        print(f"results_update: {e}", file=sys.stderr)
        return 2
    for kind, table in TABLES.items():
        chosen = select(rows, kind, {})
        if chosen:
            print(f"{kind}: {len(chosen)} rows{describe(chosen)}")
            print("\n".join(table(chosen)) + "\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+", help="ghz-bench or ghz-coll-bench JSON files")
    ap.add_argument("--doc", action="append", help="markdown file to update (repeatable)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    ap.add_argument("--print", action="store_true", help="print every table of the JSON; touch no file")
    a = ap.parse_args()
    if a.print:
        return print_tables(a.json)
    docs = [pathlib.Path(d) for d in a.doc] if a.doc else [ROOT / "docs/RESULTS.md", ROOT / "README.md"]
    try:
        rows = load_rows(a.json)
        new, report = {}, []
        for d in docs:
            old = d.read_text()
            new[d] = (old, rewrite(old, str(d), rows, report))
    except (Bad, OSError) as e:
        print(f"results_update: {e}", file=sys.stderr)
        return 2
    for line in report:
        print(line)
    placed = {m.group(1) for d in docs for m in map(MARK.match, new[d][1].split("\n")) if m}
    for kind in sorted({r["_kind"] for r in rows} - placed):
        print(f"note: no marked '{kind}' section in {', '.join(map(str, docs))}: its rows are not shown")
    changed = [d for d in docs if new[d][0] != new[d][1]]
    for d in changed:
        print(f"{d}: {'would change' if a.check else 'updated'}")
        if not a.check:
            tmp = d.with_name(d.name + ".tmp")
            tmp.write_text(new[d][1])
            os.replace(tmp, d)
    if not changed:
        print("no change")
    print("captions (device, commit, options) above each table are hand-written: check them")
    return 1 if a.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
