#!/usr/bin/env python3
"""bench_ratio.py: ghz (speed mode, and ratio mode where ghz-cli has it) against SZ3 and
zfp on every real field, at the same absolute bound, in one run on one CPU core.

    python3 scripts/bench_ratio.py [--dirs DIR...] [--cli PATH] [--bounds 1e-2,1e-3,1e-4]
                                   [--repeat 5] [--json OUT] [--fields NAME,...]

scripts/bench_ratio.sh installs what is missing, extracts the fields and runs this.

Fields: every record of DIR/manifest.json for each DIR (datasets/real/extract.py
--extra and datasets/real_frames/extract.py write them): file, dims (x fastest), dtype
and fill value (null: none) come from there and nowhere else.

For each field and REL bound r, the absolute bound is eb = r * (max - min) over the
finite non-fill values, and every compressor gets that eb:
  ghz speed  ghz-cli compress -M ABS -E eb -n 1 [--fill F] -1/-2/-3 dims
             (and --prefer speed where ghz-cli has --prefer)
  ghz ratio  the same with --prefer ratio; "-" where ghz-cli has no --prefer in its
             --help or refuses --prefer ratio as a usage error (exit 2, the message on
             stderr); any other failure is FAIL
  rat-h5     ghz's ratio mode as SZ3 and zfp are run: h5py with ghz's own HDF5 filter,
             ghz.h5.filter("abs", eb, fill=F, prefer="ratio"), one chunk holding the
             whole array (the same frame as ghz ratio); from the ghz package of --ghz-py
             (scripts/bench_ratio.sh passes the build tree's), "-" without one
  SZ3        h5py with hdf5plugin.SZ3(absolute=eb), one chunk holding the whole array
             (its dims slowest first, so SZ3 sees the 2-D/3-D shape)
  zfp        h5py with hdf5plugin.Zfp(accuracy=eb), one chunk, the same dims
SZ3 and zfp know no fill value: they compress the fill cells as data.

Columns: ratio = raw bytes / compressed bytes (ghz: the .ghz file, frame headers and
CRC included; SZ3, zfp: the HDF5 chunk's bytes, HDF5's own metadata excluded). PSNR =
20 log10(max - min) - 10 log10(MSE) and err/eb = max |x - x'| / eb, both over the finite
non-fill values, every element checked. For ghz err/eb must be <= 1 and every NaN, Inf
and fill value must come back bit for bit, else the row says FAIL (and the exit status
is 1). For SZ3 and zfp fill cells are reported (fill_exact in the JSON), not judged.
MB/s = raw bytes / 1e6 / CPU seconds (user + system), the shortest of --repeat runs, one
thread (OMP_NUM_THREADS=1, ghz-cli -n 1), nothing subtracted:
  ghz   the CPU time of the ghz-cli process (os.wait4's rusage): process start, reading
        the raw file, compressing, writing the frame to stdout = /dev/null (decompress:
        reading the .ghz file, decoding, writing the values to /dev/null; the untimed
        first run of each writes a file, for the size and the check);
  SZ3,  the CPU time of this Python process around h5py: creating the file, writing the
  zfp,  dataset (the filter compresses), closing it; reading: opening the file, reading
  rat-h5 the dataset whole (the filter decompresses), closing it.
The two ways favour different sides: a ghz-cli run pays a process start (printed below,
about 0.5 ms) and a fresh process's first touch of every page it writes, which a warm
Python process that has run the same sizes before does not; so ghz ratio's speed is also
given as rat-h5, timed exactly as SZ3 is.
All files go to a temporary folder (--tmp) on the same disk for every compressor.

Output: the table on stdout, then the geometric means of ghz / SZ3 (and ghz / zfp)
ratios per bound over all fields and over the fields without fill values, then those of
ghz ratio's MB/s over SZ3's (ghz-cli and rat-h5, compress and decompress, with the
lowest field); and JSON lines (--json, one object per line as scripts/bench_json.py
reads them): one object per (field, bound, compressor) with "bench": "ratio", then one
"bench": "ratio_geomean" per (bound, subset, mode) and one "bench":
"ratio_speed_geomean" per (bound, subset, timing, direction). Every object names the
device (this machine's CPU model).
"""

import argparse
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

os.environ["OMP_NUM_THREADS"] = "1"  # before numpy, h5py and the filters load

import numpy as np  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CODECS = ("ghz_speed", "ghz_ratio", "sz3", "zfp")  # the ratio, PSNR and err/eb columns
TIMED = ("ghz_speed", "ghz_ratio", "ghz_ratio_h5", "sz3", "zfp")  # the MB/s columns
LABEL = {"ghz_speed": "ghz-spd", "ghz_ratio": "ghz-rat", "ghz_ratio_h5": "rat-h5", "sz3": "SZ3",
         "zfp": "zfp"}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def find_cli(path):
    if path:
        return path
    for b in ("build-cpu", "build"):
        p = os.path.join(ROOT, b, "ghz", "tools", "ghz-cli")
        if os.access(p, os.X_OK):
            return p
    sys.exit("bench_ratio: no ghz-cli in build-cpu/ or build/ (--cli PATH, or build it: "
             "cmake --build build-cpu --target ghz-cli)")


def run_cpu(cmd):
    """Runs cmd; returns (exit status, CPU seconds of the child: user + system, stderr,
    wall seconds)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    p.stderr.close()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return (p.returncode, ru.ru_utime + ru.ru_stime, err.decode(errors="replace").strip(),
            wall)


def load_fields(dirs, only):
    out = []
    for d in dirs:
        path = os.path.join(d, "manifest.json")
        if not os.path.exists(path):
            print(f"bench_ratio: {path} missing, skipped (run scripts/bench_ratio.sh, or "
                  "the extract.sh of that folder)", file=sys.stderr)
            continue
        with open(path) as f:
            m = json.load(f)
        for r in m["fields"]:
            if only and r["name"] not in only:
                continue
            dims = [int(x) for x in r["dims"]]
            while len(dims) > 1 and dims[-1] == 1:
                dims.pop()
            dt = np.dtype("<f4" if r["dtype"] == "float32" else "<f8")
            out.append({"name": r["name"], "path": os.path.join(d, r["file"]), "dims": dims,
                        "dtype": dt, "fill": r.get("fill"), "set": os.path.basename(d)})
    return out


def valid_mask(a, fill):
    keep = np.isfinite(a)
    if fill is not None:
        keep &= a != a.dtype.type(fill)
    return keep


def check(a, b, keep, eb, rng):
    """(max |err| / eb, PSNR, kept cells bit-exact) of b against a."""
    if b is None or b.shape != a.shape:
        return None, None, False
    d = np.abs(a[keep].astype(np.float64) - b[keep].astype(np.float64))
    maxerr = float(d.max()) if d.size else 0.0
    mse = float(np.mean(d * d)) if d.size else 0.0
    psnr = math.inf if mse == 0 else 20 * math.log10(rng) - 10 * math.log10(mse)
    iu = np.uint32 if a.dtype.itemsize == 4 else np.uint64
    exact = bool(np.array_equal(a[~keep].view(iu), b[~keep].view(iu)))
    return maxerr / eb, psnr, exact


def ghz_run(cli, fld, a, eb, prefer, has_prefer, tmp, repeat):
    """ghz-cli compress and decompress; prefer is None (no --prefer), 'speed' or 'ratio'.
    One untimed run each into files (the size, the values to check), then the timed runs
    with the output on stdout into /dev/null, as h5py's reads land in memory."""
    z, o = os.path.join(tmp, "f.ghz"), os.path.join(tmp, "f.out")
    dims = fld["dims"]
    if len(dims) > 3:  # ghz-cli takes -1, -2, -3: the slow dimensions as one
        dims = dims[:2] + [int(np.prod(dims[2:]))]
    cmd = [cli, "compress", "-i", fld["path"],
           "-t", "f32" if a.dtype.itemsize == 4 else "f64",
           "-M", "ABS", "-E", repr(eb), "-n", "1", "-q", "--no-progress",
           "-%d" % len(dims), *map(str, dims)]
    if fld["fill"] is not None:
        cmd += ["--fill", repr(float(fld["fill"]))]
    if has_prefer and prefer:
        cmd += ["--prefer", prefer]
    dcmd = [cli, "decompress", "-z", z, "-n", "1", "-q", "--no-progress"]
    for c, out in ((cmd, ["-z", z]), (dcmd, ["-o", o])):
        rc, _, err, _ = run_cpu(c + out)
        if rc != 0:
            return {"error": f"{c[1]} exit {rc}: {err}", "rc": rc, "cmd": " ".join(c + out)}
    size = os.path.getsize(z)
    b = np.fromfile(o, dtype=a.dtype).reshape(a.shape) if os.path.getsize(o) == a.nbytes \
        else None
    os.remove(o)
    tc = td = wc = wd = math.inf
    for _ in range(repeat):
        rc, t, err, w = run_cpu(cmd + ["-z", "-"])
        if rc != 0:
            return {"error": f"compress exit {rc}: {err}", "cmd": " ".join(cmd)}
        tc, wc = min(tc, t), min(wc, w)
    for _ in range(repeat):
        rc, t, err, w = run_cpu(dcmd + ["-o", "-"])
        if rc != 0:
            return {"error": f"decompress exit {rc}: {err}", "cmd": " ".join(dcmd)}
        td, wd = min(td, t), min(wd, w)
    os.remove(z)
    return {"bytes_out": size, "comp_cpu_s": tc, "decomp_cpu_s": td, "comp_wall_s": wc,
            "decomp_wall_s": wd, "decoded": b, "cmd": " ".join(cmd + ["-z", z])}


def h5_run(filt, a, tmp, repeat):
    import h5py
    path = os.path.join(tmp, "f.h5")
    tc = td = wc = wd = math.inf
    size, b = None, None
    for _ in range(repeat):
        w0, t0 = time.perf_counter(), time.process_time()
        with h5py.File(path, "w") as f:
            ds = f.create_dataset("x", data=a, chunks=a.shape, **filt)
            size = ds.id.get_storage_size()
        tc, wc = min(tc, time.process_time() - t0), min(wc, time.perf_counter() - w0)
    for _ in range(repeat):
        w0, t0 = time.perf_counter(), time.process_time()
        with h5py.File(path, "r") as f:
            b = f["x"][...]
        td, wd = min(td, time.process_time() - t0), min(wd, time.perf_counter() - w0)
    os.remove(path)
    return {"bytes_out": size, "comp_cpu_s": tc, "decomp_cpu_s": td, "comp_wall_s": wc,
            "decomp_wall_s": wd, "decoded": b}


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt(x, w, spec):
    if x is None:
        return "-".rjust(w)
    if isinstance(x, str):
        return x.rjust(w)
    if isinstance(x, float) and math.isinf(x):
        return "inf".rjust(w)
    if abs(x) >= 1e5:  # zfp's error on fields with fill values (the fill is data there)
        return format(x, ".0e").rjust(w)
    return format(x, spec).rjust(w)


def fmt_ratio(x, w=7):
    if x is None:
        return "-".rjust(w)
    return fmt(x, w, ".1f" if x < 1000 else ".0f")


def write_markdown(path, recs, gm_recs, speed_recs, fields, bounds, device, version, h5v,
                   has_prefer, repeat):
    by = {(r["field"], r["rel"], r["codec"]): r for r in recs}
    info = {r["field"]: r for r in recs}

    def cell(f, rel, c, key, spec):
        r = by.get((f, rel, c), {})
        if c.startswith("ghz") and r.get("ok") is False and key in ("ratio", "err_over_eb"):
            return "FAIL"
        v = r.get(key)
        if v is None:
            return "-"
        if key == "ratio":
            return fmt_ratio(v, 0)
        return fmt(v, 0, spec)

    heads = " | ".join(LABEL[c] for c in CODECS)
    out = [f"Device: {device} (CPU, one thread); {version}; {h5v}; shortest of {repeat} "
           f"runs; ghz-cli --prefer: {'yes' if has_prefer else 'no (ghz-rat is -)'}.", "",
           f"| field | dims (x first) | fill | REL | ratio {heads} | PSNR dB {heads} | "
           f"err/eb {heads} |",
           "|---|---|---|---|" + "---:|" * (3 * len(CODECS))]
    rows = [(fld, rel) for fld in fields if fld["name"] in info for rel in bounds]
    for fld, rel in rows:
        f = fld["name"]
        out.append("| %s | %s | %s | %.0e | %s | %s | %s |" % (
            f, "x".join(map(str, fld["dims"])), "yes" if info[f]["has_fill"] else "no",
            rel, " | ".join(cell(f, rel, c, "ratio", "") for c in CODECS),
            " | ".join(cell(f, rel, c, "psnr", ".1f") for c in CODECS),
            " | ".join(cell(f, rel, c, "err_over_eb", ".3f") for c in CODECS)))
    theads = " | ".join(LABEL[c] for c in TIMED)
    out += ["", f"| field | REL | compress MB/s {theads} | decompress MB/s {theads} |",
            "|---|---|" + "---:|" * (2 * len(TIMED))]
    out += ["| %s | %.0e | %s | %s |" % (
        fld["name"], rel,
        " | ".join(cell(fld["name"], rel, c, "comp_mbs", ".0f") for c in TIMED),
        " | ".join(cell(fld["name"], rel, c, "decomp_mbs", ".0f") for c in TIMED))
        for fld, rel in rows]
    gm = {(g["rel"], g["subset"], g["num"], g["den"]): g for g in gm_recs}
    out += ["", "| REL | fields | n | ghz-spd / SZ3 | ghz-rat / SZ3 | ghz-spd / zfp | "
            "ghz-rat / zfp |", "|---|---|---:|---:|---:|---:|---:|"]
    for rel in bounds:
        for subset in ("all", "no fill"):
            gs = [gm[(rel, subset, n, d)] for n, d in (("ghz_speed", "sz3"),
                                                       ("ghz_ratio", "sz3"),
                                                       ("ghz_speed", "zfp"),
                                                       ("ghz_ratio", "zfp"))]
            out.append("| %.0e | %s | %d | %s |" % (
                rel, subset, max(g["n"] for g in gs),
                " | ".join(fmt(g["geomean"], 0, ".3f") for g in gs)))
    sg = {(g["rel"], g["subset"], g["num"], g["dir"]): g for g in speed_recs}
    out += ["", "| REL | fields | n | " + " | ".join(
        f"{LABEL[num]} / SZ3 {d}" for num in ("ghz_ratio", "ghz_ratio_h5")
        for d in ("compress", "decompress")) + " |", "|---|---|---:|" + "---:|" * 4]
    for rel in bounds:
        for subset in ("all", "no fill"):
            gs = [sg.get((rel, subset, num, d), {}) for num in ("ghz_ratio", "ghz_ratio_h5")
                  for d in ("comp", "decomp")]
            out.append("| %.0e | %s | %d | %s |" % (
                rel, subset, max(g.get("n", 0) for g in gs),
                " | ".join("-" if g.get("geomean") is None else "%.2f (%.2f %s)" % (
                    g["geomean"], g["min"], g["min_field"]) for g in gs)))
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dirs", nargs="+",
                    default=[os.path.join(ROOT, "datasets", "out", "real_bench"),
                             os.path.join(ROOT, "datasets", "out", "real_frames")],
                    help="folders holding a manifest.json (default: datasets/out/real_bench "
                    "datasets/out/real_frames)")
    ap.add_argument("--cli", help="ghz-cli (default: build-cpu/ or build/ghz/tools/ghz-cli)")
    ap.add_argument("--bounds", default="1e-2,1e-3,1e-4", help="REL bounds, comma-separated")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs, the shortest counts "
                    "(5: on a shared machine, 3 left the noise of others in the minimum)")
    ap.add_argument("--fields", help="only these fields (comma-separated names)")
    ap.add_argument("--json", default=os.path.join(ROOT, "build-bench", "bench_ratio.json"),
                    help="JSON lines output (default build-bench/bench_ratio.json)")
    ap.add_argument("--tmp", help="folder for the temporary files (default: a new one "
                    "under the system's temporary folder)")
    ap.add_argument("--no-h5", action="store_true", help="ghz-cli only (no SZ3, zfp, rat-h5)")
    ap.add_argument("--ghz-py", help="folder holding the ghz Python package (with its HDF5 "
                    "filter), for rat-h5; default: an installed ghz, else rat-h5 is -")
    ap.add_argument("--markdown", help="also write the tables as Markdown to this file")
    args = ap.parse_args()

    cli = find_cli(args.cli)
    helptext = subprocess.run([cli, "--help"], capture_output=True, text=True).stdout
    has_prefer = "--prefer" in helptext
    version = subprocess.run([cli, "-V"], capture_output=True, text=True).stdout.strip()
    version = " ".join(version.split())
    t_start = min(run_cpu([cli, "-V"])[1] for _ in range(3))
    bounds = [float(x) for x in args.bounds.split(",")]
    only = set(args.fields.split(",")) if args.fields else None
    fields = load_fields(args.dirs, only)
    if not fields:
        sys.exit("bench_ratio: no fields (run scripts/bench_ratio.sh, which extracts them)")

    h5v = "no h5py"
    ghz_h5 = None  # ghz.h5, for rat-h5
    if not args.no_h5:
        import h5py
        import hdf5plugin
        h5v = f"h5py {h5py.__version__}, HDF5 {h5py.version.hdf5_version}, " \
              f"hdf5plugin {hdf5plugin.version}"
        if args.ghz_py:
            sys.path.insert(0, os.path.abspath(args.ghz_py))
        try:
            import ghz
            import ghz.h5
            ghz.h5.filter("abs", 1.0, prefer="ratio")  # the plugin found, ratio known
            ghz_h5 = ghz.h5
            h5v += f", ghz {ghz.__version__}'s HDF5 filter"
        except Exception as e:  # noqa: BLE001 (no package, no plugin, an older ghz)
            print(f"bench_ratio: no ghz Python package with its HDF5 filter ({e}); rat-h5 "
                  "is -", file=sys.stderr)
    device = cpu_model()
    tmp = args.tmp or tempfile.mkdtemp(prefix="ghz-bench-ratio.")
    os.makedirs(tmp, exist_ok=True)
    print(f"device: {device} (CPU, 1 thread); {version}; {h5v}")
    print(f"ghz-cli --prefer: {'yes' if has_prefer else 'no (ghz-rat column is -)'}; "
          f"ghz-cli process start (-V) {t_start * 1e3:.1f} ms CPU, counted in ghz's MB/s; "
          f"shortest of {args.repeat} runs")

    recs, fails = [], 0
    hdr = ("%-16s %-14s %-3s %-4s %5s | %s | %s | %s | %s | %s" % (
        "field", "dims (x first)", "dt", "fill", "REL",
        "ratio: " + " ".join(LABEL[c].rjust(7) for c in CODECS),
        "PSNR dB: " + " ".join(LABEL[c].rjust(7) for c in CODECS),
        "err/eb: " + " ".join(LABEL[c].rjust(7) for c in CODECS),
        "comp MB/s: " + " ".join(LABEL[c].rjust(7) for c in TIMED),
        "decomp MB/s: " + " ".join(LABEL[c].rjust(7) for c in TIMED)))
    print(hdr)
    print("-" * len(hdr))
    for fld in fields:
        a = np.fromfile(fld["path"], dtype=fld["dtype"]).reshape(fld["dims"][::-1])
        keep = valid_mask(a, fld["fill"])
        lo, hi = float(a[keep].min()), float(a[keep].max())
        rng = hi - lo
        for rel in bounds:
            eb = rel * rng
            row = {}
            for c in TIMED:
                if c == "ghz_ratio_h5":
                    if ghz_h5 is None:
                        r = {"error": "no ghz Python package"}
                    else:
                        try:
                            r = h5_run(ghz_h5.filter("abs", eb, fill=fld["fill"], prefer="ratio"),
                                       a, tmp, args.repeat)
                        except Exception as e:  # noqa: BLE001 (reported as a failure)
                            r = {"error": f"{type(e).__name__}: {e}"}
                elif c.startswith("ghz"):
                    if c == "ghz_ratio" and not has_prefer:
                        r = {"error": "ghz-cli has no --prefer"}
                    else:
                        r = ghz_run(cli, fld, a, eb, c[4:] if has_prefer else None,
                                    has_prefer, tmp, args.repeat)
                elif args.no_h5:
                    r = {"error": "--no-h5"}
                else:
                    import hdf5plugin
                    filt = hdf5plugin.SZ3(absolute=eb) if c == "sz3" else \
                        hdf5plugin.Zfp(accuracy=eb)
                    try:
                        r = h5_run(filt, a, tmp, args.repeat)
                    except Exception as e:  # noqa: BLE001 (a filter error is a result)
                        r = {"error": f"{type(e).__name__}: {e}"}
                if "error" not in r:
                    err_eb, psnr, exact = check(a, r.pop("decoded"), keep, eb, rng)
                    r.update(ratio=a.nbytes / r["bytes_out"], psnr=psnr, err_over_eb=err_eb,
                             fill_exact=exact,
                             comp_mbs=a.nbytes / 1e6 / r["comp_cpu_s"],
                             decomp_mbs=a.nbytes / 1e6 / r["decomp_cpu_s"])
                    ok = err_eb is not None and err_eb <= 1 and exact
                    r["ok"] = ok if c.startswith("ghz") else None
                    if c.startswith("ghz") and not ok:
                        fails += 1
                elif c == "ghz_ratio" and has_prefer and r.get("rc") == 2:
                    # a usage error: this ghz-cli has --prefer but not (yet) ratio, or
                    # not for these dims; shown as "-", not as a failure
                    print(f"bench_ratio: {fld['name']} REL {rel:g} ratio mode refused "
                          f"(usage): {r['error']}", file=sys.stderr)
                elif c == "ghz_speed" or (c == "ghz_ratio" and has_prefer) or \
                        (c == "ghz_ratio_h5" and ghz_h5 is not None):
                    fails += 1  # ghz failed where it should have run
                    r["ok"] = False
                    print(f"bench_ratio: {fld['name']} REL {rel:g} {c}: {r['error']}",
                          file=sys.stderr)
                row[c] = r
                rec = {"bench": "ratio", "device": device, "backend": "cpu", "threads": 1,
                       "field": fld["name"], "set": fld["set"], "dims": fld["dims"],
                       "dtype": "f32" if a.dtype.itemsize == 4 else "f64",
                       "fill": fld["fill"], "has_fill": bool((~keep).any()),
                       "rel": rel, "eb_abs": eb, "range": rng, "codec": c,
                       "bytes_in": a.nbytes, **r}
                recs.append(rec)

            def col(key, spec):
                out = []
                for c in (TIMED if key.endswith("_mbs") else CODECS):
                    r = row[c]
                    if "error" in r:
                        out.append("FAIL".rjust(7) if r.get("ok") is False else "-".rjust(7))
                    elif key == "ratio":
                        out.append(fmt_ratio(r["ratio"]))
                    elif key == "err_over_eb" and r["ok"] is False:
                        out.append("FAIL".rjust(7))  # the value is in the JSON
                    else:
                        out.append(fmt(r[key], 7, spec))
                return " ".join(out)
            has_fill = bool((~keep).any())
            print("%-16s %-14s %-3s %-4s %5s | %s | %s | %s | %s | %s" % (
                fld["name"][:16], "x".join(map(str, fld["dims"])),
                "f32" if a.dtype.itemsize == 4 else "f64", "yes" if has_fill else "no",
                "%.0e" % rel,
                " " * 7 + col("ratio", ""), " " * 9 + col("psnr", ".1f"),
                " " * 8 + col("err_over_eb", ".3f"),
                " " * 11 + col("comp_mbs", ".1f"), " " * 13 + col("decomp_mbs", ".1f")),
                flush=True)
    shutil.rmtree(tmp, ignore_errors=True) if not args.tmp else None

    # geometric means of ghz / SZ3 and ghz / zfp per bound
    print()
    print("geometric mean of ratio quotients (per bound; 'all' = every field, 'no fill' = "
          "the fields without fill values, n = fields counted)")
    by = {}
    for r in recs:
        if "ratio" in r:
            by[(r["field"], r["rel"], r["codec"])] = r
    names = sorted({r["field"] for r in recs}, key=[f["name"] for f in fields].index)
    nofill = {r["field"] for r in recs if not r["has_fill"]}
    print("%-8s %-8s %4s %14s %14s %14s %14s" % ("REL", "fields", "n", "ghz-spd/SZ3",
                                                 "ghz-rat/SZ3", "ghz-spd/zfp", "ghz-rat/zfp"))
    gm_recs = []
    for rel in bounds:
        for subset, pick in (("all", names), ("no fill", [n for n in names if n in nofill])):
            vals = {}
            n = 0
            for num in ("ghz_speed", "ghz_ratio"):
                for den in ("sz3", "zfp"):
                    q = [by[(f, rel, num)]["ratio"] / by[(f, rel, den)]["ratio"] for f in pick
                         if (f, rel, num) in by and (f, rel, den) in by]
                    vals[(num, den)] = (geomean(q), len(q))
                    n = max(n, len(q))
                    gm_recs.append({"bench": "ratio_geomean", "device": device, "rel": rel,
                                    "subset": subset, "num": num, "den": den,
                                    "geomean": vals[(num, den)][0], "n": len(q)})
            print("%-8s %-8s %4d %14s %14s %14s %14s" % (
                "%.0e" % rel, subset, n,
                *(fmt(vals[k][0], 14, ".3f") for k in (("ghz_speed", "sz3"),
                                                      ("ghz_ratio", "sz3"),
                                                      ("ghz_speed", "zfp"),
                                                      ("ghz_ratio", "zfp")))))
    # geometric means of ghz ratio's MB/s / SZ3's per bound, both timings, both ways
    print()
    print("geometric mean of MB/s quotients, ghz ratio / SZ3 (ghz-rat: the ghz-cli process; "
          "rat-h5: through h5py, timed as SZ3), the lowest field in brackets")
    print("%-8s %-8s %4s %24s %24s %24s %24s" % (
        "REL", "fields", "n", "ghz-rat/SZ3 compress", "ghz-rat/SZ3 decompress",
        "rat-h5/SZ3 compress", "rat-h5/SZ3 decompress"))
    speed_recs = []
    for rel in bounds:
        for subset, pick in (("all", names), ("no fill", [n for n in names if n in nofill])):
            cells, n = [], 0
            for num in ("ghz_ratio", "ghz_ratio_h5"):
                for d in ("comp", "decomp"):
                    q = [(by[(f, rel, num)][d + "_mbs"] / by[(f, rel, "sz3")][d + "_mbs"], f)
                         for f in pick if (f, rel, num) in by and (f, rel, "sz3") in by]
                    low = min(q) if q else (None, None)
                    g = geomean([x for x, _ in q])
                    speed_recs.append({"bench": "ratio_speed_geomean", "device": device,
                                       "rel": rel, "subset": subset, "num": num, "den": "sz3",
                                       "dir": d, "geomean": g, "min": low[0],
                                       "min_field": low[1], "n": len(q)})
                    n = max(n, len(q))
                    cells.append("-" if g is None else "%.3f (%.2f %s)" % (g, low[0], low[1]))
            print("%-8s %-8s %4d %s" % ("%.0e" % rel, subset, n,
                                        " ".join(c.rjust(24) for c in cells)))
    if args.markdown:
        write_markdown(args.markdown, recs, gm_recs, speed_recs, fields, bounds, device,
                       version, h5v, has_prefer, args.repeat)
        print(f"Markdown: {args.markdown}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            for r in recs + gm_recs + speed_recs:
                r = {k: (None if isinstance(v, float) and math.isinf(v) else v)
                     for k, v in r.items()}  # PSNR of an exact result: null
                f.write(json.dumps(r) + "\n")
        print(f"\nJSON lines: {args.json}")
    if fails:
        print(f"bench_ratio: {fails} ghz case(s) FAILED (bound, fill/NaN exactness or an "
              "error)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
