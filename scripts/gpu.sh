#!/usr/bin/env bash
# scripts/gpu.sh: the one GPU entry point of ghz (docs/GPU.md says how to use it).
#
#   bash scripts/gpu.sh prebuild          # where nvcc is, no GPU needed: build the GPU binaries
#                                         # and pack them into .device-carry/ for a GPU machine
#   bash scripts/gpu.sh build             # build build-gpu/ on this machine (nvcc needed)
#   bash scripts/gpu.sh test              # ctest -L gpu: every GPU test, one-GPU and multi-rank
#   bash scripts/gpu.sh sanitize          # compute-sanitizer memcheck over the GPU tests
#   bash scripts/gpu.sh bench [SET...]    # SET: codec homo fixed reduce coll (default codec homo coll)
#   bash scripts/gpu.sh test sanitize bench coll   # several subcommands, in that order
#
# test, sanitize and bench use build-gpu/ as they find it, else unpack
# .device-carry/prebuilt.tar.xz (from `prebuild`), else build it. They need a GPU and
# exit non-zero at once where none is found (the GPU tests would otherwise skip and pass).
# The exit status is non-zero when anything that ran failed, timed out, or was left out
# for lack of time. Every log, JUnit report and JSON is written as it grows into
# $OUT/gpu-<subcommands>.d/ ($OUT: the device tool's output folder; ./gpu-out without
# it), so that a call cut short still brings back what ran, and packed into
# $OUT/gpu-<subcommands>.tgz after each step.
#
# Environment (defaults in brackets):
#   GHZ_GPU_TESTS      ctest -R regular expression for `test` [every test labelled gpu]
#   GHZ_GPU_JOBS       ctest -j for `test` [1: the multi-rank tests time-share the GPUs]
#   GHZ_GPU_SAN_TOOLS  compute-sanitizer tools for `sanitize` [memcheck]; also racecheck synccheck
#   GHZ_GPU_SAN_TIMEOUT  seconds one sanitizer run may take [420]
#   GHZ_GPU_RANKS      ranks of the collective bench [one per GPU, at least 2]
#   GHZ_GPU_TRANSPORTS the collective bench's GHZ_COLL_TRANSPORT values [ipc mpi; nccl
#                      first where ghz::coll has it and there are 2 or more GPUs]
#   GHZ_GPU_LINKS      NCCL link classes of the collective bench [nvlink]:
#                      nvlink (NCCL's default), pcie (NCCL_P2P_DISABLE=1), socket
#                      (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_SOCKET_IFNAME=lo)
#   GHZ_GPU_COLL_ARGS  ghz-coll-bench's sizes and counts [-b 4K -e 256M -f 4 -n 10 -w 3 -c 1]
#   GHZ_GPU_SHARED=1   the collective bench once more with every rank on GPU 0
#   GHZ_COLL_RANKS_PER_NODE  passed to the collective bench's ranks where set (simulated
#                      nodes: with `--algo two_level_multi` in GHZ_GPU_COLL_ARGS, the
#                      two-level allreduce; its rows are named ...-rpnN)
#   GHZ_GPU_DEADLINE   seconds from the start after which no step starts, and at which
#                      the test step stops [540]
#   GHZ_GPU_ARCH       CUDA architectures to build for [90]
#   GHZ_GPU_PREBUILD_DIR  the build folder `prebuild` configures, builds and packs
#                      [build-prebuilt]; an existing CUDA build (one configured with
#                      NCCL, say) is reconfigured for the GPU targets and rebuilt
#                      incrementally, which takes seconds where a fresh one takes minutes
# NCCL_NVLS_ENABLE=0 always: NVLink multicast can take a shared host's GPUs out of service.
# shellcheck disable=SC2030,SC2031 # CUDA_VISIBLE_DEVICES is set in subshells on purpose
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root=$PWD
# shellcheck source=scripts/criterion_copy.sh
. scripts/criterion_copy.sh
B=build-gpu
CARRY=.device-carry
ARCHIVE=$CARRY/prebuilt.tar.xz
CRIT=$CARRY/criterion
export NCCL_NVLS_ENABLE=0
export OMPI_MCA_rmaps_base_oversubscribe=1
# what `bench` runs; the tests' programs are read from the build's CTest files
BENCH_TARGETS=(ghz-bench ghz-coll-bench)
TARGETS=()
MPIRUN=(mpirun --oversubscribe --allow-run-as-root --bind-to none)

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
die() { echo "gpu.sh: $*" >&2; exit 2; }

# ---- arguments -------------------------------------------------------------------------
cmds=() sets=()
[ $# -gt 0 ] || usage
for a in "$@"; do
    case $a in
    prebuild | build | test | sanitize | bench) cmds+=("$a") ;;
    codec | homo | fixed | reduce | coll)
        if [ ${#cmds[@]} -eq 0 ] || [ "${cmds[${#cmds[@]}-1]}" != bench ]; then
            die "'$a' is a bench set: write 'bench $a'"
        fi
        sets+=("$a") ;;
    -h | --help | help) usage ;;
    *) die "unknown subcommand '$a' (prebuild build test sanitize bench)" ;;
    esac
done
[ ${#sets[@]} -gt 0 ] || sets=(codec homo coll)

# the CUDA toolkit's tools (nvcc, compute-sanitizer) are often installed off PATH
if [ -d /usr/local/cuda/bin ] && [[ ":$PATH:" != *":/usr/local/cuda/bin:"* ]]; then
    export PATH=$PATH:/usr/local/cuda/bin
fi
if [ -d /usr/local/cuda/lib64 ]; then
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

# ---- logs and the archive ----------------------------------------------------------------
OUT=${OUT:-$root/gpu-out}
mkdir -p "$OUT" || die "cannot make $OUT"
tag=$(IFS=-; echo "${cmds[*]}")
# the logs are written under $OUT as they grow: a call cut short by the device tool's
# limit still brings back every line written so far (the archive is made at the end)
L=$OUT/gpu-$tag.d
rm -rf "$L" && mkdir -p "$L" || die "cannot make $L"
TGZ=$OUT/gpu-$tag.tgz
t0=$(date +%s)
DEADLINE=${GHZ_GPU_DEADLINE:-540}
status=0
since() { echo "$(($(date +%s) - t0)) s"; }
say() { echo "$*" | tee -a "$L/summary.txt"; }
pack() { tar czf "$TGZ" -C "$L" . 2>/dev/null; }
# fail WHAT: one failure, counted in the exit status and the summary
fail() { status=1; say "FAIL $*"; }
finish() {
    say "gpu.sh ${cmds[*]}: $([ $status = 0 ] && echo passed || echo FAILED) in $(since); logs: $TGZ"
    pack
    exit $status
}
# started STEP: 0 when STEP may start (the deadline not passed), else counted as not run
started() {
    if [ $(($(date +%s) - t0)) -gt "$DEADLINE" ]; then
        fail "$1: not run (past GHZ_GPU_DEADLINE=$DEADLINE s)"
        return 1
    fi
    say "== $1 ($(since))"
}
git log -1 --format='commit %h %s' >"$L/commit.txt" 2>/dev/null

# ---- building ----------------------------------------------------------------------------
# gpu_targets DIR: the programs the tests labelled gpu of the configured build DIR run
# (every argument of their commands that lies in DIR), one a line. Read from the
# CTestTestfile.cmake files: ctest itself names no program that is not built yet.
gpu_targets() {
    python3 - "$1" <<'PY'
import os, pathlib, re, sys
d = pathlib.Path(sys.argv[1]).resolve()
cmds, gpu = {}, set()
for f in d.rglob("CTestTestfile.cmake"):
    text = f.read_text()
    for m in re.finditer(r'^add_test\(\[=\[(.*?)\]=\] (.*)\)$', text, re.M):
        cmds[m[1]] = re.findall(r'"([^"]*)"', m[2])
    for m in re.finditer(r'^set_tests_properties\(\[=\[(.*?)\]=\] PROPERTIES (.*)\)$', text, re.M):
        if re.search(r'LABELS "(?:[^"]*;)?gpu(?:;[^"]*)?"', m[2]):
            gpu.add(m[1])
names = {os.path.basename(a) for t in gpu for a in cmds.get(t, []) if a.startswith(f"{d}/")}
print("\n".join(sorted(names)))
PY
}

# configure_build DIR: a Release CUDA build of every GPU target in DIR; Criterion from
# pkg-config, else from $CRIT (what `prebuild` packs, for a GPU machine without it).
configure_build() {
    local dir=$1 crit=()
    command -v nvcc >/dev/null 2>&1 || { fail "build: no nvcc (CUDA toolkit) here"; return 1; }
    if ! pkg-config --exists criterion 2>/dev/null && [ -e "$CRIT/lib/libcriterion.so" ]; then
        crit=(-DPKG_CONFIG_EXECUTABLE=/nonexistent -DGHZ_CRITERION_INCLUDE="$root/$CRIT/include"
            -DGHZ_CRITERION_LIBRARY="$root/$CRIT/lib/libcriterion.so")
        export LD_LIBRARY_PATH=$root/$CRIT/lib:$LD_LIBRARY_PATH
    fi
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DGHZ_ENABLE_CUDA=ON -DGHZ_BUILD_COLL=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${GHZ_GPU_ARCH:-90}" ${crit[@]+"${crit[@]}"} >"$L/configure.log" 2>&1 ||
        { tail -20 "$L/configure.log"; fail "build: configure (configure.log)"; return 1; }
    [ -n "$(gpu_targets "$dir")" ] || { fail "build: no test labelled gpu in $dir"; return 1; }
    mapfile -t TARGETS < <({ gpu_targets "$dir"; printf '%s\n' "${BENCH_TARGETS[@]}"; } | sort -u)
    cmake --build "$dir" -j"$(nproc)" --target "${TARGETS[@]}" >"$L/build.log" 2>&1 ||
        { grep -E "error" "$L/build.log" | head -20; fail "build: compile (build.log)"; return 1; }
    say "built ${TARGETS[*]} in $dir ($(since))"
}

# prebuild: builds build-prebuilt/ (GHZ_GPU_PREBUILD_DIR) here and packs what a GPU machine needs to run
# `ctest -L gpu` and the benchmarks without compiling (the build takes minutes of device
# time there): the stripped binaries and every CTestTestfile.cmake, their paths written as
# placeholders that `unpack` fills in ($ARCHIVE); Criterion's headers and shared library
# with the libraries it loads ($CRIT); the collectives' per-rank fields where
# datasets/out/real exists. The binaries need the same CUDA major version and Open MPI
# ABI (libmpi.so.40) on the GPU machine as here.
prebuild() {
    local P=${GHZ_GPU_PREBUILD_DIR:-build-prebuilt} stage f rel mpiexec kib
    configure_build "$P" || return 1
    stage=$(mktemp -d)
    mkdir -p "$stage/$B"
    for t in "${TARGETS[@]}"; do
        f=$(find "$P" -type f -name "$t" -perm -u+x | head -1)
        [ -n "$f" ] || { fail "prebuild: no binary for $t under $P"; return 1; }
        rel=${f#"$P"/}
        mkdir -p "$stage/$B/$(dirname "$rel")"
        cp "$f" "$stage/$B/$rel" && strip "$stage/$B/$rel"
    done
    mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$P/CMakeCache.txt")
    while IFS= read -r f; do
        rel=${f#"$P"/}
        mkdir -p "$stage/$B/$(dirname "$rel")"
        sed -e "s|$root/$P|@GHZ_BUILD@|g" -e "s|$root|@GHZ_SOURCE@|g" \
            ${mpiexec:+-e "s|$mpiexec|@GHZ_MPIEXEC@|g"} "$f" >"$stage/$B/$rel"
    done < <(find "$P" -name CTestTestfile.cmake)
    { echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (modified)')"
      echo "built: $(date -u '+%F %T') with $(nvcc --version | tail -1), sm_${GHZ_GPU_ARCH:-90}"
      echo "targets: ${TARGETS[*]}"; } >"$stage/$B/PREBUILT"
    mkdir -p "$CARRY"
    tar -cJf "$ARCHIVE" -C "$stage" "$B" || { fail "prebuild: packing $ARCHIVE"; return 1; }
    say "prebuilt: $(tr '\n' ' ' <"$stage/$B/PREBUILT")"
    rm -rf "$stage"
    criterion_copy "$CRIT" || { fail "prebuild: no Criterion here"; return 1; }
    rm -rf "$CARRY/fields"
    if python3 scripts/coll_rank_fields.py "$CARRY/fields" 8 >/dev/null 2>&1; then
        say "per-rank fields: $CARRY/fields"
    else
        say "no per-rank fields (datasets/out/real missing): ghz-coll-bench will synthesize its data"
    fi
    # what gpu.sh needs on the GPU machine; other things in $CARRY (the Python build of
    # gpu_python.sh, say) travel only when a call names them
    kib=$(du -sck "$ARCHIVE" "$CRIT" "$CARRY/fields" 2>/dev/null | awk 'END {print $1}')
    say "carry [\"$ARCHIVE\", \"$CRIT\", \"$CARRY/fields\"]: $((kib / 1024)) MiB of the 64 MiB the device tool carries with the tree"
    [ "$kib" -le $((56 * 1024)) ] || fail "prebuild: what gpu.sh carries is over 56 MiB: the tree and it may not fit in 64"
}

# unpack: build-gpu/ from $ARCHIVE, its placeholders filled in for this machine
unpack() {
    local mpiexec
    rm -rf "$B"
    tar -xJf "$ARCHIVE" || { fail "unpack $ARCHIVE"; return 1; }
    mpiexec=$(command -v mpiexec || command -v mpirun || echo mpiexec)
    find "$B" -name CTestTestfile.cmake -exec sed -i -e "s|@GHZ_BUILD@|$root/$B|g" \
        -e "s|@GHZ_SOURCE@|$root|g" -e "s|@GHZ_MPIEXEC@|$mpiexec|g" {} +
    touch "$B/PREBUILT" # unpacked now: newer than the archive until another one comes
    say "unpacked $ARCHIVE: $(tr '\n' ' ' <"$B/PREBUILT")"
}

# ready: a build-gpu/ to run from, and the libraries it loads: the one `build` made in this
# run; else $ARCHIVE's, unpacked unless that is done already; else one found here; else
# built now.
ready() {
    if [ -e "$CRIT/lib/libcriterion.so" ]; then
        export LD_LIBRARY_PATH=$root/$CRIT/lib:$LD_LIBRARY_PATH
    fi
    # libnccl.so.2 for an NCCL build: CUDA's folders, else the nvidia-nccl wheel of python3
    local wheel
    wheel=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)
    if [ -n "$wheel" ] && [ -d "$wheel/lib" ]; then
        export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$wheel/lib
    fi
    if [ "$built" = 1 ]; then
        return 0
    elif [ -e "$ARCHIVE" ]; then
        if [ -e "$B/PREBUILT" ] && [ ! "$ARCHIVE" -nt "$B/PREBUILT" ]; then
            return 0
        elif [ -d "$B" ] && [ ! -e "$B/PREBUILT" ]; then
            fail "$B/ is a build of its own and $ARCHIVE exists: remove one of them"
            return 1
        fi
        unpack
    elif [ -x "$B/test/gpu/test_cuda_codec" ] && [ -e "$B/CTestTestfile.cmake" ]; then
        say "using $B/ as found"
    else
        say "no $B/ and no $ARCHIVE: building"
        configure_build "$B"
    fi
}

# ---- the GPU -----------------------------------------------------------------------------
ngpu=0
gpu_check() {
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader >"$L/gpu.txt" 2>&1
        ngpu=$(grep -cE '^[0-9]+,' "$L/gpu.txt")
        nvidia-smi topo -m >>"$L/gpu.txt" 2>&1
    fi
    if [ "$ngpu" -eq 0 ]; then
        fail "no NVIDIA GPU found (nvidia-smi: $(head -1 "$L/gpu.txt" 2>/dev/null || echo missing)):" \
            "test, sanitize and bench need one (prebuild and build do not)"
        finish
    fi
    say "$ngpu GPU(s): $(cut -d, -f2 "$L/gpu.txt" | head -"$ngpu" | sort | uniq -c | xargs)"
}

# ---- test ----------------------------------------------------------------------------------
run_tests() {
    local rc
    # (stopped at the deadline, so that the summary below is still written)
    local left=$((DEADLINE - ($(date +%s) - t0)))
    [ "$left" -gt 30 ] || left=30
    timeout "$left" ctest --test-dir "$B" -L gpu -j "${GHZ_GPU_JOBS:-1}" --output-on-failure --timeout 900 \
        ${GHZ_GPU_TESTS:+-R "$GHZ_GPU_TESTS"} --output-junit "$L/ctest-gpu.xml" >"$L/ctest-gpu.log" 2>&1
    rc=$?
    grep -E "tests passed|\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Not Run" "$L/ctest-gpu.log" | tail -40 |
        tee -a "$L/summary.txt"
    # a skip passes in ctest: name them (the NCCL tests of 4 ranks skip with fewer GPUs)
    local skipped
    skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$L/ctest-gpu.log" | xargs)
    [ -z "$skipped" ] || say "skipped (passed in ctest's count): $skipped"
    if [ $rc = 124 ]; then
        fail "test: stopped at GHZ_GPU_DEADLINE=$DEADLINE s (ctest-gpu.log lists the tests that ran)"
    elif ! grep -qE "^Total Test time" "$L/ctest-gpu.log" || grep -q "No tests were found" "$L/ctest-gpu.log"; then
        fail "test: ctest ran no test (ctest-gpu.log)"
    elif [ $rc != 0 ]; then
        fail "test: ctest -L gpu exit $rc (ctest-gpu.log)"
    fi
}

# ---- sanitize ------------------------------------------------------------------------------
# One sanitizer run in the background: san_start NAME NP GPU CMD... (NP 0: no mpirun);
# its log $L/san-NAME.log, its exit status $L/san-NAME.rc.
san_names=()
san_start() {
    local name=$1 np=$2 gpu=$3
    shift 3
    while [ "$(jobs -rp | wc -l)" -ge "${GHZ_GPU_SAN_JOBS:-4}" ]; do wait -n; done
    (
        [ "$gpu" = all ] || export CUDA_VISIBLE_DEVICES=$gpu
        if [ "$np" = 0 ]; then
            timeout "${GHZ_GPU_SAN_TIMEOUT:-420}" "$@"
        else
            timeout "${GHZ_GPU_SAN_TIMEOUT:-420}" "${MPIRUN[@]}" -np "$np" -x GHZ_COLL_TRANSPORT "$@"
        fi >"$L/san-$name.log" 2>&1
        echo $? >"$L/san-$name.rc"
    ) &
    san_names+=("$name:$np")
}
# verdict: exit 0, and one clean summary per process (compute-sanitizer prints one each)
san_verdicts() {
    local entry name np rc clean want
    wait
    for entry in "${san_names[@]}"; do
        name=${entry%:*} np=${entry##*:}
        rc=$(cat "$L/san-$name.rc" 2>/dev/null || echo 99)
        clean=$(grep -cE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" "$L/san-$name.log")
        want=$((np > 0 ? np : 1))
        if [ "$rc" = 0 ] && [ "$clean" -ge "$want" ]; then
            say "ok   $name ($clean clean summaries)"
        else
            fail "sanitize $name: exit $rc$([ "$rc" = 124 ] && echo ' (timed out)'), $clean of $want clean"
            grep -E "=========|FAIL|rror" "$L/san-$name.log" | grep -v "SUMMARY: 0" | head -6
        fi
    done
    san_names=()
}
run_sanitize() {
    local tool bin name i=0 tr part extra
    command -v compute-sanitizer >/dev/null 2>&1 || { fail "sanitize: no compute-sanitizer"; return; }
    for tool in ${GHZ_GPU_SAN_TOOLS:-memcheck}; do
        extra=(--tool "$tool" --error-exitcode 9)
        [ "$tool" = racecheck ] && extra+=(--racecheck-report all)
        # each one-GPU test binary whole, spread over the GPUs; the collective reductions'
        # test on counts that still reach every path (the default ones take long under it)
        for bin in "$B"/test/gpu/test_cuda_*; do
            name=$(basename "$bin")
            GHZ_COLL_TEST_N=100003 GHZ_COLL_TEST_LARGE_N=300000 \
                san_start "$tool-$name" 0 $((i++ % ngpu)) compute-sanitizer "${extra[@]}" "$bin" --jobs 1
        done
        # the multi-rank test's bad-argument and edge parts, 2 ranks, over each transport
        for tr in mpi ipc; do
            for part in errors edge; do
                GHZ_COLL_TRANSPORT=$tr san_start "$tool-coll-$tr-$part" 2 all \
                    compute-sanitizer "${extra[@]}" "$B/test/coll/test_coll_mpi_cuda" "$part"
            done
        done
    done
    san_verdicts
}

# ---- bench ---------------------------------------------------------------------------------
# bench_run NAME LIMIT CMD...: one benchmark, its output in $L/NAME.txt, the tail here
bench_run() {
    local name=$1 limit=$2 rc
    shift 2
    started "bench $name" || return
    timeout "$limit" "$@" >"$L/$name.txt" 2>&1
    rc=$?
    tail -n 25 "$L/$name.txt"
    [ $rc = 0 ] || fail "bench $name: exit $rc$([ $rc = 124 ] && echo ' (timed out)')"
}
link_env() { # NCCL's environment for a link class
    case $1 in
    nvlink) echo "" ;;
    pcie) echo "NCCL_P2P_DISABLE=1" ;;
    socket) echo "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_SOCKET_IFNAME=lo" ;;
    *) return 1 ;;
    esac
}
run_bench() {
    local s raw=() gen=(--gen wave3d --gen smooth2d --gen noisy2d --gen ocean2d) bench=$B/ghz/tools/bench/ghz-bench
    mapfile -t raw < <(python3 scripts/real_raw_args.py 2>/dev/null)
    for s in "${sets[@]}"; do
        case $s in
        codec) bench_run codec 240 "$bench" codec --json "$L/bench_codec.json" "${gen[@]}" ${raw[@]+"${raw[@]}"} ;;
        homo) bench_run homo 240 "$bench" homo --json "$L/bench_homo.json" ;;
        fixed) bench_run fixed 240 "$bench" fixed --json "$L/bench_fixed.json" "${gen[@]}" ;;
        reduce) bench_run reduce 240 "$bench" reduce --json "$L/bench_reduce.json" ;;
        coll) bench_coll ;;
        esac
        pack
    done
    # the tables docs/RESULTS.md holds, made from this run's JSON (scripts/results_update.py)
    shopt -s nullglob
    local json=("$L"/*.json "$L"/*.jsonl)
    shopt -u nullglob
    if [ ${#json[@]} -gt 0 ]; then
        python3 scripts/results_update.py --print "${json[@]}" >"$L/tables.md" 2>&1 ||
            say "results_update.py could not make the tables (tables.md)"
    fi
}
# ghz-coll-bench, allreduce f32 SUM under REL 1e-4 on the final result, one rank per GPU
# (each rank takes GPU local-rank mod count), for each link class and transport
bench_coll() {
    local np=${GHZ_GPU_RANKS:-$((ngpu > 2 ? ngpu : 2))} link tr envs v xs data=() name gpus
    local cb=$B/ghz/tools/coll_bench/ghz-coll-bench transports=${GHZ_GPU_TRANSPORTS:-}
    # NCCL's transport needs a GPU per rank; ghz-coll-bench's nccl row comes with it
    if [ -z "$transports" ]; then
        transports="ipc mpi"
        if [ "$ngpu" -ge 2 ] && ldd "$cb" 2>/dev/null | grep -q libnccl; then transports="nccl $transports"; fi
    fi
    [ -d "$CARRY/fields" ] || python3 scripts/coll_rank_fields.py "$CARRY/fields" 8 >/dev/null 2>&1
    [ -e "$CARRY/fields/rank0.f32" ] && data=(--raw "$CARRY"/fields/rank*.f32)
    for gpus in all $([ "${GHZ_GPU_SHARED:-0}" = 1 ] && echo 0); do
        for link in ${GHZ_GPU_LINKS:-nvlink}; do
            envs=$(link_env "$link") || { fail "bench coll: unknown link class '$link' (nvlink pcie socket)"; continue; }
            say "link class $link: NCCL_NVLS_ENABLE=0 ${envs:-(NCCL defaults)}"
            for tr in $transports; do
                name=coll-$link-$tr-np$np${GHZ_COLL_RANKS_PER_NODE:+-rpn$GHZ_COLL_RANKS_PER_NODE}$([ "$gpus" = 0 ] && echo -shared)
                xs=(-x NCCL_NVLS_ENABLE -x GHZ_COLL_TRANSPORT)
                [ -n "${GHZ_COLL_RANKS_PER_NODE:-}" ] && xs+=(-x GHZ_COLL_RANKS_PER_NODE)
                for v in $envs; do xs+=(-x "${v%%=*}"); done
                # shellcheck disable=SC2086 # GHZ_GPU_COLL_ARGS: words
                (
                    [ "$gpus" = all ] || export CUDA_VISIBLE_DEVICES=$gpus
                    for v in $envs; do export "${v?}"; done
                    export GHZ_COLL_TRANSPORT=$tr
                    bench_run "$name" 400 "${MPIRUN[@]}" -np "$np" "${xs[@]}" "$cb" --backend cuda --rel 1e-4 -d float \
                        ${data[@]+"${data[@]}"} ${GHZ_GPU_COLL_ARGS:--b 4K -e 256M -f 4 -n 10 -w 3 -c 1} \
                        --json "$L/$name.jsonl"
                    # where it ran, for results_update.py's tables (one table per "backend")
                    [ -f "$L/$name.jsonl" ] && sed -i "s|^{|{\"backend\":\"cuda $tr $link${GHZ_COLL_RANKS_PER_NODE:+ rpn$GHZ_COLL_RANKS_PER_NODE}$([ "$gpus" = 0 ] && echo ' shared')\",|" "$L/$name.jsonl"
                    exit $status
                ) || status=1
            done
        done
    done
}

# ---- the subcommands, in order -------------------------------------------------------------
built=0 is_ready=0
for c in "${cmds[@]}"; do
    case $c in
    prebuild) started prebuild && prebuild ;;
    build) started build && configure_build "$B" && built=1 ;;
    test | sanitize | bench)
        [ "$ngpu" -gt 0 ] || gpu_check
        if [ "$is_ready" = 0 ]; then
            ready || finish
            is_ready=1
        fi
        started "$c" || continue
        case $c in
        test) run_tests ;;
        sanitize) run_sanitize ;;
        bench) run_bench ;;
        esac ;;
    esac
    pack
done
finish
