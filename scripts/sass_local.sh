#!/usr/bin/env bash
# scripts/sass_local.sh: static SASS statistics of one CUDA source's kernels, without a
# GPU: compiles FILE for sm_90 with the library's flags into a cubin and prints, for
# each kernel whose name matches REGEX, its instruction count and the instructions
# that usually tell a story (register-array zeroing CS2R, generic loads LD.E that lost
# the shared address space, shared loads, local-memory spills, branches), its loops'
# bodies (instructions from a backward branch's target to it), plus ptxas's register
# and spill report. Device time is scarce: count here before measuring there.
#
#   bash scripts/sass_local.sh FILE REGEX [extra nvcc flags, e.g. -DGHZ_CUDA_COMPRESS_CTAS=8]
#
# Needs nvcc and cuobjdump (CUDA toolkit; without the full toolkit the pip wheel
# nvidia-cuda-cuobjdump has it: set CUOBJDUMP=/path/to/cuobjdump) and a configured
# build/ (for build/include). The SASS of each kernel goes to $SASS_OUT (default
# /tmp/ghz-sass/KERNEL.txt) for reading.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,14p "$0"; exit 2; }
cd "$(dirname "$0")/.."
file=$1 regex=$2
shift 2
out=${SASS_OUT:-/tmp/ghz-sass}
mkdir -p "$out"
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -n "$cuobjdump" ] || { echo "sass_local.sh: no cuobjdump (set CUOBJDUMP)" >&2; exit 1; }
[ -d build/include ] || { echo "sass_local.sh: configure build/ first (scripts/setup.sh)" >&2; exit 1; }
nvcc -DGHZ_WITH_CUDA=1 -DGHZ_ADVANCED -I. -Ibuild/include -O3 -DNDEBUG -arch=sm_90 --fmad=false -std=c++17 -cubin \
    -Xptxas -v "$@" -o "$out/out.cubin" "$file" 2>"$out/ptxas.txt"
grep -A3 -E "Compiling entry function '[^']*($regex)" "$out/ptxas.txt" | grep -E "Function properties|Compiling|spill|registers" || true
"$cuobjdump" -sass "$out/out.cubin" >"$out/all.sass"
python3 - "$regex" "$out" <<'EOF'
import re, sys
regex, out = sys.argv[1], sys.argv[2]
funcs, cur = {}, None
for line in open(out + "/all.sass"):
    m = re.match(r"\s+Function : (\S+)", line)
    if m:
        cur = m.group(1)
        funcs[cur] = []
    elif cur:
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s*([^;]*)", line)
        if m and m.group(2).strip():
            funcs[cur].append((int(m.group(1), 16), m.group(2).strip()))
pats = [("CS2R", r"CS2R"), ("LD.E", r"(^|\s)LD\.E"), ("LDS", r"LDS"), ("STL", r"STL"), ("LDL", r"LDL"),
        ("BRA", r"BRA")]
for name, code in funcs.items():
    if not re.search(regex, name):
        continue
    ops = [o for _, o in code]
    open("%s/%s.txt" % (out, name[:80]), "w").write("\n".join(ops) + "\n")
    counts = " ".join("%s=%d" % (n, sum(1 for o in ops if re.search(p, o))) for n, p in pats)
    print("%s instructions=%d %s" % (name[:90], len(ops), counts))
    # loops: a backward branch and its target; the body's size is what a trip costs
    # on its longest path (inner loops counted inside their outer ones)
    at = {a: k for k, (a, _) in enumerate(code)}
    for k, (a, o) in enumerate(code):
        m = re.search(r"BRA\b.*0x([0-9a-f]+)", o)
        target = int(m.group(1), 16) if m else None
        if target is not None and target <= a and target in at:
            body = ops[at[target]:k + 1]
            if len(body) < 2:
                continue  # the branch to itself after EXIT
            tags = [t for t in ("LDGSTS", "LDG", "STG", "LDS", "ATOMS", "DMUL", "SHFL")
                    if any(re.search(r"\b%s\b" % t, b) for b in body)]
            print("  loop at %5d: %4d instructions %s" % (at[target], len(body), " ".join(tags)))
EOF
