#!/usr/bin/env python3
"""Test of scripts/coll_model.py --brief (CTest scripts.coll_model, label cpu): what
scripts/demo.sh prints after its collective demo. Checked: the output says it is a
model; one row per link; the uncompressed time is the bandwidth term of the ring
(2 (p-1)/p S over the link's usable rate) plus two steps' latency; compression that
saves no bytes (ratio 1) never wins; at ratio 5 ghz wins on every link, and by more
on a slower link."""
import pathlib
import re
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parent.parent.parent / "scripts" / "coll_model.py"
S = 1 << 20


def brief(ratio, gbps="10,25,100"):
    out = subprocess.run([sys.executable, str(SCRIPT), "--brief", "2", "--gpus-per-node", "1",
                          "--size", str(S), "--ratio", str(ratio), "--gbps", gbps],
                         check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+) Gb/s\s+([\d.]+) (us|ms)\s+([\d.]+) (us|ms)\s+([\d.]+)x$", line)
        if m:
            scale = {"us": 1e-6, "ms": 1e-3}
            rows[float(m[1])] = (float(m[2]) * scale[m[3]], float(m[4]) * scale[m[5]], float(m[6]))
    return out, rows


def main():
    fails = []
    out, rows = brief(5)
    if "MODEL" not in out or "NOT a measurement" not in out:
        fails.append("the output does not say it is a model")
    if sorted(rows) != [10.0, 25.0, 100.0]:
        fails.append(f"rows for {sorted(rows)}, expected 10, 25, 100 Gb/s")
    for g, (te, tg, sp) in rows.items():
        wire = S / (g / 8 * 1e9 * 0.94)  # 2 (p-1)/p S bytes over the usable rate, p = 2
        # plus two steps' latency (8 us between nodes) and the reduction at 1 TB/s
        if not wire <= te <= wire + 20e-6:
            fails.append(f"{g} Gb/s: uncompressed {te:.6f} s, bandwidth term {wire:.6f} s")
        if sp <= 1.0:
            fails.append(f"{g} Gb/s: ratio 5 gives speedup {sp}")
    if rows and not rows[10.0][2] > rows[25.0][2] > rows[100.0][2]:
        fails.append("the speedup does not grow as the link slows")
    _, rows1 = brief(1)
    for g, (_, _, sp) in rows1.items():
        if sp >= 1.0:
            fails.append(f"{g} Gb/s: ratio 1 gives speedup {sp} (compression saving nothing won)")
    for f in fails:
        print("FAIL:", f)
    print("ok" if not fails else f"{len(fails)} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
