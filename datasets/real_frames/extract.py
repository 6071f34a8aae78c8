#!/usr/bin/env python3
"""Turn scikit-image's real sample images into frame-stack scenes for ghz.

    extract.py --src SKIMAGE_DATA_DIR --copyright FILE --version V --out DIR

For each image in IMAGES, writes DIR/<name>.f32: the image as a scene in photo-
electrons per pixel (raw little-endian float32, x fastest, top row first), a line
"<name> <width> <height>" in DIR/scenes.txt (what extract.sh hands to ghz-frames
--scene), DIR/manifest.json (one record per scene in the format of
datasets/real/extract.py's manifest: file, dims, fill null, min, max, sha256; what
scripts/bench_ratio.py reads), and DIR/PROVENANCE.md with the origin, license and sha256 of every input and
output, plus a copy of the package's debian/copyright. Deterministic: a second run
writes byte-identical files.
"""

import argparse
import hashlib
import json
import os
import shutil

import numpy as np
from PIL import Image

# name: (file, what it is, origin and license, sky e-, peak e-, gamma)
# The scene is sky + peak * v, v in [0, 1] from the 8-bit image: gamma 2.2 undoes the
# display encoding of the JPEG (the Hubble image was published as a display image), the
# phase image is linear already.
IMAGES = {
    "hubble_xdf": (
        "hubble_deep_field.jpg",
        "Hubble eXtreme Deep Field (XDF, 2012), a 1000 x 872 RGB display image; "
        "converted to luminance (Rec. 709 weights) and linearised (gamma 2.2)",
        "NASA/ESA, released through HubbleSite (news release 2012-37); NASA imagery "
        "may be freely used (public domain unless noted otherwise), as the scikit-image "
        "docstring of skimage.data.hubble_deep_field() states",
        150.0, 40000.0, 2.2),
    "cell_qpi": (
        "cell.png",
        "quantitative phase image of a cell floating in saline, retrieved from a "
        "digital hologram (pixel 0.107 um), 550 x 660 8-bit gray",
        "Paul Mueller et al., Optics Express 26(8):10729 (2018); dedicated to the "
        "public domain (CC0), as the scikit-image docstring of skimage.data.cell() "
        "states",
        200.0, 5000.0, 1.0),
}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def scene_of(path, sky, peak, gamma):
    img = Image.open(path)
    a = np.asarray(img.convert("RGB") if img.mode not in ("L", "I;16") else img,
                   dtype=np.float64)
    if a.ndim == 3:
        a = a[..., 0] * 0.2126 + a[..., 1] * 0.7152 + a[..., 2] * 0.0722
    v = (a / 255.0) ** gamma
    return (sky + peak * v).astype("<f4")


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--copyright", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows, scenes, recs = [], [], []
    for name, (fname, what, origin, sky, peak, gamma) in IMAGES.items():
        src = os.path.join(args.src, fname)
        s = scene_of(src, sky, peak, gamma)
        h, w = s.shape
        dst = os.path.join(args.out, name + ".f32")
        write_atomic(dst, s.tobytes())
        scenes.append(f"{name} {w} {h}\n")
        data = s.tobytes()
        recs.append({
            "name": name, "file": name + ".f32", "dtype": "float32", "byte_order": "little",
            "dims": [w, h, 1], "nx": w, "ny": h, "nz": 1, "z_axis": None,
            "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "fill": None, "fill_count": 0, "fill_fraction": 0.0,
            "min": float(s.min()), "max": float(s.max()), "units": "e-",
            "description": what, "source_file": "skimage/data/" + fname,
            "origin": origin})
        rows.append(f"| `{name}.f32` | {w} x {h} | {s.min():.1f} .. {s.max():.1f} | "
                    f"`skimage/data/{fname}` ({sha256(src)[:16]}...) | {what} | {origin} | "
                    f"{sha256(dst)[:16]}... |\n")
        print(f"extract.py: {name}: {w} x {h}, {s.min():.1f} .. {s.max():.1f} e- -> {dst}")

    write_atomic(os.path.join(args.out, "scenes.txt"), "".join(scenes).encode())
    manifest = {
        "format": "ghz-real-fields/1",
        "description": "Real scenes from scikit-image's sample images (Debian's "
                       "python3-skimage), raw little-endian float32 in e- per pixel, x "
                       "fastest, top row first",
        "layout": "C order [ny][nx]: x fastest, then y (top row first)",
        "source_package": {"name": "python3-skimage", "version": args.version},
        "generator": "datasets/real_frames/extract.py",
        "total_bytes": sum(r["bytes"] for r in recs),
        "fields": recs,
    }
    write_atomic(os.path.join(args.out, "manifest.json"),
                 (json.dumps(manifest, indent=2) + "\n").encode())
    shutil.copyfile(args.copyright, os.path.join(args.out, "skimage-copyright.txt"))
    prov = (
        "# Real frame-stack scenes (generated by datasets/real_frames/extract.sh)\n\n"
        f"Source: the Debian package `python3-skimage` {args.version} (scikit-image's "
        "sample images, `skimage/data/`), fetched with `apt-get download` and unpacked "
        "with `dpkg-deb -x`, not installed. scikit-image's code is BSD-3-Clause "
        "(`skimage-copyright.txt`, the package's debian/copyright); the images carry "
        "their own terms, below.\n\n"
        "Each scene is sky + peak * v in e- per pixel, v the 8-bit image scaled to "
        "[0, 1] (and linearised where it was a display image). The noisy frames "
        "`<name>_frame_NNN.f32`, when present, are ghz-frames --scene: the real scene, "
        "simulated jitter, photon and read noise, hot pixels and cosmic rays.\n\n"
        "| file | size | e- | from | what | origin and license | sha256 |\n"
        "|---|---|---|---|---|---|---|\n" + "".join(rows))
    write_atomic(os.path.join(args.out, "PROVENANCE.md"), prov.encode())


if __name__ == "__main__":
    main()
