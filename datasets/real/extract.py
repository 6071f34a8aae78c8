#!/usr/bin/env python3
"""Extract real scientific fields from Debian's ferret-datasets package into raw
little-endian float32 files for the ghz codec benchmark.

    extract.py --out DIR [--src DATA_DIR] [--etopo-full] [--extra]

Reads the netCDF-3 classic files of ferret-datasets (scipy.io.netcdf_file) and writes
into DIR, for each field in FIELDS:

    <name>_<nx>x<ny>[x<nz>].f32   float32, little-endian, C order with x (longitude)
                                  fastest, then y (latitude, south to north, as stored),
                                  then z (depth level or month)

plus manifest.json (one record per field: dims, fill value, min/max over non-fill
values, fill fraction, source, units, sha256) and PROVENANCE.md (package version,
upstream origin of each dataset, license summary), and a copy of the package's
debian/copyright file. Values are written exactly as stored in the source (the source
is big-endian float32; only the byte order changes), fill values included.

--extra also writes the fields of EXTRA_FIELDS (the codec-ratio benchmark,
scripts/bench_ratio.sh, uses them; 28.1 MB more, so it writes them into a folder of its
own and datasets/out/real stays the six fields the other benchmarks and the GPU runs
carry).

Output is deterministic: running it twice gives byte-identical files.
"""

import argparse
import datetime
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import scipy.io

PACKAGE = "ferret-datasets"
DEFAULT_SRC = "/usr/share/ferret-vis/data"
COPYRIGHT = "/usr/share/doc/ferret-datasets/copyright"

# ETOPO5 is 4320 x 2161 (37 MB). By default a 2160 x 2160 window is kept at full
# 5-minute resolution: longitudes 60E..239.92E (Himalaya/Karakoram, the Mariana
# Trench, most of the Pacific), all latitudes from 90S up to 89.92N (the +90 row, a
# single repeated value, is dropped). --etopo-full keeps 4320 x 2160 (whole globe,
# still without the +90 row).
ETOPO_X0, ETOPO_NX_CROP = 720, 2160  # 720 = 60 degrees * 12 points per degree
# --extra's second window: the other half of the globe, x indices 2880..4319 then
# 0..719 (longitude 240E = 120W eastward across 0 to 59.92E: the Americas, the Atlantic
# with its mid-ocean ridge, Africa and Europe), the same latitudes.
ETOPO_ATL_X = (2880, 720)

ORIGINS = {
    "etopo5": (
        "ETOPO5 5-arc-minute global relief (land elevation and ocean depth), NOAA "
        "National Geophysical Data Center (NGDC, now NCEI): Data Announcement "
        "88-MGG-02, 'Digital relief of the Surface of the Earth', Boulder, CO, 1988. "
        "The Ferret file says it was made from IRI/LDEO's worldbath.nc, 'updated 27 Feb "
        "1998 from NGDC CD-ROM 29 April 1993'."
    ),
    "levitus": (
        "Levitus, S., 1982: Climatological Atlas of the World Ocean, NOAA Professional "
        "Paper 13 (U.S. Government Printing Office), distributed by the NOAA National "
        "Oceanographic Data Center (NODC, now NCEI; the predecessor of the World Ocean "
        "Atlas series). Ferret's levitus_climatology is a subset: annual mean "
        "temperature and salinity on a 1x1 degree grid at 20 standard depths 0-5000 m."
    ),
    "coads": (
        "COADS (Comprehensive Ocean-Atmosphere Data Set; Woodruff et al. 1987, "
        "NOAA/CIRES/NCAR/NCDC), a compilation of ship reports. Ferret's "
        "coads_climatology is a 2x2 degree 12-month climatology, the simple average of "
        "all data for each month of 1946-1989."
    ),
    "navy": (
        "Monthly-averaged global marine surface winds from the U.S. Navy Fleet "
        "Numerical Oceanography Center (FNOC), 2.5x2.5 degree grid, as distributed with "
        "Ferret (monthly_navy_winds)."
    ),
}

# name, source file, variable, origin key, z-axis meaning, crop (callable on the
# (z,)y,x array or None), description
FIELDS = [
    ("etopo5_relief", "etopo5.cdf", "ROSE", "etopo5", None, "etopo",
     "ETOPO5 relief of the Earth's surface (elevation > 0, ocean depth < 0), "
     "5 arc-minute grid"),
    ("levitus_temp", "levitus_climatology.cdf", "TEMP", "levitus", "depth", None,
     "Levitus 1982 annual mean ocean temperature, 1 degree, 20 depth levels 0-5000 m; "
     "land and sea floor are fill"),
    ("levitus_salt", "levitus_climatology.cdf", "SALT", "levitus", "depth", None,
     "Levitus 1982 annual mean ocean salinity, 1 degree, 20 depth levels 0-5000 m; "
     "land and sea floor are fill"),
    ("coads_sst", "coads_climatology.cdf", "SST", "coads", "month", None,
     "COADS monthly climatology of sea surface temperature, 2 degree, 12 months; "
     "land and unobserved cells are fill"),
    ("coads_airt", "coads_climatology.cdf", "AIRT", "coads", "month", None,
     "COADS monthly climatology of marine air temperature, 2 degree, 12 months; "
     "land and unobserved cells are fill"),
    ("navy_uwnd", "monthly_navy_winds.cdf", "UWND", "navy", "month", None,
     "FNOC monthly mean zonal surface wind, 2.5 degree, 132 consecutive months "
     "(Jan 1982 - Dec 1992 per the time axis)"),
]

# Written only with --extra (same tuple layout as FIELDS). Preferred: fields without
# fill values; the other COADS variables have the land mask of SST.
EXTRA_FIELDS = [
    ("etopo5_atlantic", "etopo5.cdf", "ROSE", "etopo5", None, "etopo_atlantic",
     "ETOPO5 relief, 5 arc-minute grid, the half of the globe the default window leaves "
     "out: 120W eastward to 59.92E (the Americas, the Atlantic, Africa, Europe)"),
    ("navy_vwnd", "monthly_navy_winds.cdf", "VWND", "navy", "month", None,
     "FNOC monthly mean meridional surface wind, 2.5 degree, 132 consecutive months "
     "(Jan 1982 - Dec 1992 per the time axis)"),
    ("coads_slp", "coads_climatology.cdf", "SLP", "coads", "month", None,
     "COADS monthly climatology of sea level pressure, 2 degree, 12 months; land and "
     "unobserved cells are fill"),
    ("coads_speh", "coads_climatology.cdf", "SPEH", "coads", "month", None,
     "COADS monthly climatology of specific humidity, 2 degree, 12 months; land and "
     "unobserved cells are fill"),
    ("coads_wspd", "coads_climatology.cdf", "WSPD", "coads", "month", None,
     "COADS monthly climatology of wind speed, 2 degree, 12 months; land and "
     "unobserved cells are fill"),
    ("coads_uwnd", "coads_climatology.cdf", "UWND", "coads", "month", None,
     "COADS monthly climatology of zonal wind, 2 degree, 12 months; land and "
     "unobserved cells are fill"),
    ("coads_vwnd", "coads_climatology.cdf", "VWND", "coads", "month", None,
     "COADS monthly climatology of meridional wind, 2 degree, 12 months; land and "
     "unobserved cells are fill"),
]


def sh(*cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def package_info():
    fmt = "${Package}\t${Version}\t${source:Package}\t${Homepage}\t${Status}"
    out = sh("dpkg-query", "-W", "-f=" + fmt, PACKAGE)
    if not out:
        return {"name": PACKAGE, "version": None}
    name, version, source, homepage, status = out.split("\t")
    return {"name": name, "version": version, "source_package": source,
            "homepage": homepage, "status": status}


def find_src():
    out = sh("dpkg", "-L", PACKAGE)
    if out:
        for line in out.splitlines():
            if line.endswith("/etopo5.cdf"):
                return os.path.dirname(line)
    return DEFAULT_SRC


def f32_bits(x):
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", x))[0]


def f32_repr(x):
    """The shortest decimal that reads back as the float32 x, written as Python writes a
    float ('-1e+34', '-10000000000.0', '-99.9'): the same under numpy 1 and 2 (numpy 2's
    repr of a float32 is 'np.float32(...)')."""
    x = np.float32(x)
    for digits in range(1, 10):
        s = "%.*g" % (digits, float(x))
        if np.float32(float(s)) == x:
            return repr(float(s))
    return repr(float(x))


def as_json_float(x):
    """The exact value of a float32, as a double (round-trips through float32)."""
    return float(np.float32(x))


def attr(var, key):
    v = var._attributes.get(key)
    if isinstance(v, bytes):
        return v.decode("latin-1").strip()
    if isinstance(v, np.ndarray):
        v = v.reshape(-1)[0]
    return v


def axis_info(nc, dimname, sel=slice(None)):
    if dimname not in nc.variables:
        return {"name": dimname}
    v = nc.variables[dimname]
    c = np.asarray(v.data)[sel]
    info = {"name": dimname, "n": int(c.size), "first": float(c[0]),
            "last": float(c[-1]), "units": attr(v, "units")}
    if dimname == "TIME" and info["units"] and info["units"].startswith("hour since"):
        origin = datetime.datetime.strptime(info["units"][len("hour since "):],
                                            "%Y-%m-%d %H:%M:%S") \
            if not info["units"].endswith("0000-01-01 00:00:00") else None
        if origin is not None:
            t0 = origin + datetime.timedelta(hours=float(c[0]))
            t1 = origin + datetime.timedelta(hours=float(c[-1]))
            info["first_date"] = t0.strftime("%Y-%m-%d")
            info["last_date"] = t1.strftime("%Y-%m-%d")
        else:
            info["note"] = "climatological months Jan..Dec"
    if dimname.startswith("ZAX"):
        info["values"] = [float(z) for z in c]
    return info


def extract(src, out, name, fname, var, origin, zmeaning, crop, desc, etopo_full):
    path = os.path.join(src, fname)
    nc = scipy.io.netcdf_file(path, "r", mmap=False, maskandscale=False)
    try:
        v = nc.variables[var]
        if v.typecode() != "f":
            raise SystemExit(f"{fname}:{var}: expected float32, got {v.typecode()!r}")
        a = np.asarray(v.data)
        dims = list(v.dimensions)
        sel = [slice(None)] * a.ndim
        crop_note = None
        if crop == "etopo":
            # drop the last latitude row (+90, a single repeated value)
            sel[-2] = slice(0, a.shape[-2] - 1)
            if etopo_full:
                crop_note = "whole globe; the +90 latitude row is dropped"
            else:
                sel[-1] = slice(ETOPO_X0, ETOPO_X0 + ETOPO_NX_CROP)
                crop_note = ("x index %d..%d of %d (longitude 60E to 239.92E), "
                             "y index 0..%d of %d (latitude 90S to 89.92N; the +90 row "
                             "is dropped)" % (ETOPO_X0, ETOPO_X0 + ETOPO_NX_CROP - 1,
                                              a.shape[-1], a.shape[-2] - 2, a.shape[-2]))
        elif crop == "etopo_atlantic":
            x0, x1 = ETOPO_ATL_X
            sel[-2] = slice(0, a.shape[-2] - 1)
            sel[-1] = np.r_[x0:a.shape[-1], 0:x1]
            crop_note = ("x index %d..%d then 0..%d of %d (longitude 240E = 120W eastward "
                         "to 59.92E), y index 0..%d of %d (latitude 90S to 89.92N; the +90 "
                         "row is dropped)" % (x0, a.shape[-1] - 1, x1 - 1, a.shape[-1],
                                              a.shape[-2] - 2, a.shape[-2]))
        a = a[tuple(sel)]
        a = np.ascontiguousarray(a, dtype="<f4")
        axes = [axis_info(nc, d, s) for d, s in zip(dims, sel)]

        fills = {}
        for k in ("_FillValue", "missing_value"):
            x = attr(v, k)
            if x is not None:
                fills[k] = np.float32(x)
        distinct = sorted(set(float(x) for x in fills.values()))
        if len(distinct) > 1:
            raise SystemExit(f"{fname}:{var}: _FillValue and missing_value differ: {fills}")
        declared = np.float32(distinct[0]) if distinct else None

        if np.isnan(a).any() or np.isinf(a).any():
            raise SystemExit(f"{fname}:{var}: NaN or Inf in the data")
        mask = (a == declared) if declared is not None else np.zeros(a.shape, bool)
        nfill = int(mask.sum())
        valid = a[~mask]
        if valid.size == 0:
            raise SystemExit(f"{fname}:{var}: all values are fill")
        if np.abs(valid).max() >= 1e30:
            raise SystemExit(f"{fname}:{var}: huge non-fill values (a second fill value?)")

        shape = a.shape  # (z, y, x) or (y, x)
        nx, ny = shape[-1], shape[-2]
        nz = shape[0] if a.ndim == 3 else 1
        tag = f"{nx}x{ny}" + (f"x{nz}" if a.ndim == 3 else "")
        fout = f"{name}_{tag}.f32"
        data = a.tobytes()
        tmp = os.path.join(out, "." + fout + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, os.path.join(out, fout))

        rec = {
            "name": name,
            "file": fout,
            "dtype": "float32",
            "byte_order": "little",
            "dims": [nx, ny, nz],
            "nx": nx, "ny": ny, "nz": nz,
            "z_axis": zmeaning,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "fill": as_json_float(declared) if (declared is not None and nfill) else None,
            "fill_f32": f32_repr(declared) if declared is not None else None,
            "fill_bits": f32_bits(declared) if declared is not None else None,
            "fill_attributes": {k: as_json_float(x) for k, x in fills.items()},
            "fill_count": nfill,
            "fill_fraction": round(nfill / a.size, 6),
            "min": as_json_float(valid.min()),
            "max": as_json_float(valid.max()),
            "mean": round(float(valid.astype(np.float64).mean()), 6),
            "units": attr(v, "units"),
            "long_name": attr(v, "long_name"),
            "description": desc,
            "source_file": fname,
            "source_path": path,
            "source_variable": var,
            "source_dims": dims,
            "source_shape": list(v.shape),
            "source_dtype": "float32 big-endian (netCDF-3 classic)",
            "crop": crop_note,
            "axes": {"x": axes[-1], "y": axes[-2], **({"z": axes[0]} if a.ndim == 3 else {})},
            "origin": origin,
        }
        return rec
    finally:
        nc.close()


PROVENANCE = """# Provenance of the extracted fields

Generated by `datasets/real/extract.py`; regenerate rather than edit.

## Source package

- Debian package: `{pkg}` version `{ver}` (source package `{srcpkg}`), from the
  Debian archive (`apt-get install {pkg}`); homepage {home}
- Files read from `{src}` (netCDF-3 classic, big-endian float32)
- `dpkg-query -W {pkg}` at extraction time: `{pkg} {ver}`

Debian's package description:

```
{descr}
```

## Fields and their upstream origin

| field | file | source file : variable | origin |
|---|---|---|---|
{table}

Origins:

{origins}

Values are copied exactly (only the byte order changes, big- to little-endian);
fill values are kept as stored. `etopo5_relief` is {etopo_note}.

## License

{license}

The full `debian/copyright` of the package is copied next to this file as
`COPYRIGHT.ferret-datasets`.
"""

LICENSE = """\
The package's `debian/copyright` (`/usr/share/doc/ferret-datasets/copyright`, shared by
all binary packages of the `ferret-vis` source) has no separate stanza for the data
files, so they fall under its general stanza: "Copyright: 2010 NOAA, US.gov",
"License: Ferret License Agreement". That agreement states that the software and its
documentation are in the public domain and are distributed under the Open Source
Definition; redistribution in source and binary form, modified or not, is permitted
provided the notice, conditions and disclaimer are kept (binary redistributions must
give access to the notice and to the source), modifications are documented and are the
modifier's responsibility, and the developers are notified of significant changes. It is
provided "as is" with no warranty or support. (The other stanzas - GPL-2, BSD, IBM,
UCAR, Visual Edge, NOAA-PMEL-TMAP - cover parts of the Ferret program source, not these
data.) The package is in Debian main, so Debian considers it DFSG-free. The underlying
data were produced by U.S. Government agencies (NOAA NGDC, NOAA NODC, NOAA and partners
for COADS, U.S. Navy FNOC); works of the U.S. Government are not subject to copyright in
the United States. Credit the original producers (see Origins) when publishing results
on these data. The extracted raw files are not committed to this repository; they are
regenerated from the Debian package by `datasets/real/extract.sh`."""


def write_provenance(out, src, pkg, recs, etopo_full):
    descr = sh("dpkg-query", "-W", "-f=${Description}", PACKAGE) or "(dpkg-query unavailable)"
    table = "\n".join(
        f"| `{r['name']}` | `{r['file']}` | `{r['source_file']}` : `{r['source_variable']}` "
        f"| {r['origin']} |" for r in recs)
    used = []
    for r in recs:
        if r["origin"] not in used:
            used.append(r["origin"])
    notes = {}
    for r in recs:
        z = r["axes"].get("z", {})
        if r["origin"] == "navy" and "first_date" in z:
            notes["navy"] = (" The file's time axis has %d monthly means, %s to %s (the "
                             "Debian description says 1982-1990)."
                             % (z["n"], z["first_date"][:7], z["last_date"][:7]))
    origins = "\n".join(f"- **{k}**: {ORIGINS[k]}{notes.get(k, '')}" for k in used)
    etopo_note = ("the whole globe (4320 x 2160, --etopo-full)" if etopo_full else
                  "a full-resolution 2160 x 2160 window of ETOPO5 (60E-240E, 90S-89.92N) "
                  "to keep the total output under ~40 MB; run with --etopo-full for the "
                  "whole 4320 x 2160 globe")
    if any(r["name"] == "etopo5_atlantic" for r in recs):
        etopo_note += ("; `etopo5_atlantic` (--extra) is the other 2160 x 2160 half "
                       "(240E = 120W eastward to 59.92E, the same latitudes)")
    text = PROVENANCE.format(
        pkg=PACKAGE, ver=pkg.get("version"), srcpkg=pkg.get("source_package"),
        home=pkg.get("homepage"), src=src, descr=descr.rstrip(), table=table,
        origins=origins, etopo_note=etopo_note, license=LICENSE)
    with open(os.path.join(out, "PROVENANCE.md"), "w") as fh:
        fh.write(text)
    if os.path.exists(COPYRIGHT):
        shutil.copyfile(COPYRIGHT, os.path.join(out, "COPYRIGHT.ferret-datasets"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--src", help="directory holding the ferret-datasets .cdf files "
                    "(default: found with dpkg -L, else " + DEFAULT_SRC + ")")
    ap.add_argument("--etopo-full", action="store_true",
                    help="write the whole ETOPO5 globe (4320x2160, 37 MB) instead of "
                    "the 2160x2160 window")
    ap.add_argument("--extra", action="store_true",
                    help="also write EXTRA_FIELDS (the other half of ETOPO5, the navy "
                    "VWND, five more COADS variables: 28.1 MB more; without "
                    "--etopo-full only, which holds the ETOPO half already)")
    args = ap.parse_args()

    src = args.src or find_src()
    if not os.path.exists(os.path.join(src, "etopo5.cdf")):
        raise SystemExit(f"extract.py: no etopo5.cdf in {src}; install {PACKAGE}")
    os.makedirs(args.out, exist_ok=True)
    pkg = package_info()

    fields = list(FIELDS)
    if args.extra:
        fields += [f for f in EXTRA_FIELDS if not (args.etopo_full and f[0] == "etopo5_atlantic")]
    recs = []
    for name, fname, var, origin, zm, crop, desc in fields:
        r = extract(src, args.out, name, fname, var, origin, zm, crop, desc, args.etopo_full)
        recs.append(r)
        print("%-14s %-24s dims %-16s fill %-14s %5.1f%% fill  min %10.4g  max %10.4g  %6.2f MB"
              % (r["name"], r["file"], "x".join(map(str, r["dims"])),
                 r["fill_f32"] if r["fill"] is not None else "none",
                 100 * r["fill_fraction"], r["min"], r["max"], r["bytes"] / 1e6))

    # remove the other ETOPO variant left by an earlier run with the other option
    keep = {r["file"] for r in recs}
    for stale in ("etopo5_relief_2160x2160.f32", "etopo5_relief_4320x2160.f32"):
        p = os.path.join(args.out, stale)
        if stale not in keep and os.path.exists(p):
            os.remove(p)
    # and the extra fields of an earlier run with --extra
    for f in EXTRA_FIELDS:
        for stale in os.listdir(args.out):
            if (stale.startswith(f[0] + "_") and stale.endswith(".f32")
                    and stale not in keep):
                os.remove(os.path.join(args.out, stale))

    total = sum(r["bytes"] for r in recs)
    manifest = {
        "format": "ghz-real-fields/1",
        "description": "Real scientific fields from Debian's ferret-datasets package, "
                       "as raw little-endian float32, x fastest (C order [nz][ny][nx]).",
        "layout": "C order [nz][ny][nx]: x (longitude, eastward) fastest, then y "
                  "(latitude, south to north as stored), then z (depth level or month)",
        "fill_semantics": "'fill' is the source's _FillValue/missing_value as an exact "
                          "float32 value when at least one element equals it, else null; "
                          "'fill_attributes' always lists the declared attributes",
        "source_package": dict(pkg, data_dir=src),
        "generator": "datasets/real/extract.py" + (" --etopo-full" if args.etopo_full else "")
                     + (" --extra" if args.extra else ""),
        "total_bytes": total,
        "fields": recs,
    }
    tmp = os.path.join(args.out, ".manifest.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(manifest, fh, indent=2)
        fh.write("\n")
    os.replace(tmp, os.path.join(args.out, "manifest.json"))
    write_provenance(args.out, src, pkg, recs, args.etopo_full)
    print("%d fields, %.1f MB (%.1f MiB) in %s" % (len(recs), total / 1e6, total / 2**20,
                                                   args.out))


if __name__ == "__main__":
    sys.exit(main())
