#!/usr/bin/env python3
"""Prints `--raw NAME:PATH[:FILL]` arguments of ghz-bench, one word a line, for every
real field of datasets/out/real/manifest.json (made by datasets/real/extract.sh); prints
nothing when the manifest is absent, so callers can run it unconditionally:

    mapfile -t raw < <(python3 scripts/real_raw_args.py [DIR])
"""
import json
import os
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "datasets/out/real"
path = os.path.join(d, "manifest.json")
if os.path.exists(path):
    with open(path) as f:
        m = json.load(f)
    for field in m["fields"] if isinstance(m, dict) else m:
        spec = field["name"] + ":" + os.path.join(d, field["file"])
        if field.get("fill") is not None:
            spec += ":" + repr(float(field["fill"]))
        print("--raw")
        print(spec)
