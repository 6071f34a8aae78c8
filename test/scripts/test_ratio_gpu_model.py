#!/usr/bin/env python3
"""Test of scripts/ratio_gpu_model.py (CTest scripts.ratio_gpu_model, label cpu). Checked:
the output says it is a model; its passes hold every symbol (n - 1 of them: the script
asserts it, so a wrong pass count exits nonzero); the critical path is never below the
work bound; a shrink (fewer steps a chunk) never lengthens it; one resident warp makes
the path the sum of every chunk's steps; navy_uwnd tiled to 1 GiB gives the 6269 steps
without shrink and 4735 with the writers' shrink of 2 that docs/history/ratio-gpu-profile.md
quotes."""
import pathlib
import re
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parent.parent.parent / "scripts" / "ratio_gpu_model.py"


def run(*args):
    out = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"critical path (\d+) steps, work bound ([\d.]+) steps", out)
    return out, int(m[1]), float(m[2])


def main():
    fails = []
    out, path, work = run(144, 73, 25608)
    if "MODEL" not in out:
        fails.append("the output does not say it is a model")
    if path != 4735 or round(work) != 3983:
        fails.append(f"navy_uwnd tiled: {path} / {work:.0f} steps, expected 4735 / 3983")
    _, path0, _ = run(144, 73, 25608, "--shrink", 0)
    if path0 != 6269:
        fails.append(f"navy_uwnd tiled without shrink: {path0} steps, expected 6269")
    for dims in [(1000,), (300, 201), (64, 33, 40), (2160, 125280), (1, 1, 3000), (5000, 7000)]:
        _, p0, w = run(*dims, "--shrink", 0)
        _, p2, _ = run(*dims, "--shrink", 2)
        if p0 < w or p2 < w:
            fails.append(f"{dims}: path {p0} or {p2} below the work bound {w}")
        if p2 > p0:
            fails.append(f"{dims}: shrink 2 gives a longer path ({p2} > {p0})")
        # one warp: every chunk one after another, so the path is the chunks' steps
        out1, p1, _ = run(*dims, "--warps", 1, "--passes")
        _, pr, _ = run(*dims)
        total = sum(int(r.split()[4]) * int(r.split()[6]) for r in out1.splitlines()[1:-1])
        if p1 != total or p1 < pr:
            fails.append(f"{dims}: one warp's path {p1}, its chunks' steps {total}, R warps' path {pr}")
    if fails:
        sys.exit("\n".join("FAIL: " + f for f in fails))
    print("ok")


if __name__ == "__main__":
    main()
