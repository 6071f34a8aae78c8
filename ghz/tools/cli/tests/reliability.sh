#!/usr/bin/env bash
# ghz/tools/cli/tests/reliability.sh: ghz-cli against hostile input and a hostile file
# system: the reader limit, empty frames in add/sub/min/max, long output names,
# dangling links, files that change while read, conflicting options, bad bounds and
# the wording of checksum errors.
# Usage: reliability.sh PATH/TO/ghz-cli [PYTHON3] (python3: standard library only).
set -u
CLI=$1
PY=${2:-python3}
. "$(dirname "$0")/lib.sh"

"$PY" - <<'PYEOF' || exit 1
import array, math, struct
array.array('f', (math.sin(i * 0.01) * 10 for i in range(200000))).tofile(open('a.f32', 'wb'))
open('empty.f32', 'wb').close()

def header(dtype, n, payload, flags=0, fill=0.0):
    h = bytearray(64)
    h[0:4] = bytes([0xF9, 0x47, 0x48, 0x5A])
    struct.pack_into('<HH', h, 4, 2, 64)
    h[8], h[9], h[10], h[11] = dtype, 1, 5, flags   # dtype 1 f32 / 2 f64, mode ABS
    nb = (n + 31) // 32
    struct.pack_into('<QQQdd', h, 16, n, nb, payload, 1e-3, 1e-3)
    if flags & 1: struct.pack_into('<d', h, 56, fill)
    return h, nb

# A 64-byte header announcing 2^34 f32 values, then 1 MiB of zeros: a reader must
# refuse it from the header, before it buffers what follows.
h, _ = header(1, 1 << 34, 0)
open('huge_hdr.ghz', 'wb').write(bytes(h) + bytes(1 << 20))
# A valid 4 MiB frame of FILLED f64 blocks (no payload) that decodes to 1 GiB + 8
# bytes: one value above the default limit of 1 GiB.
n = (1 << 27) + 1
h, nb = header(2, n, 0, flags=1, fill=-9999.0)
open('zeros.ghz', 'wb').write(bytes(h) + b'\x5f' * nb + bytes(((nb + 15) & ~15) - nb))
PYEOF

echo "# reader limit"
"$CLI" compress -i a.f32 -z a.ghz -t f32 -A 1e-3 --frame-elems 50000 || bad "compress a.f32"
expect 1 "a header announcing 2^34 values, from a pipe" -- \
    sh -c "cat huge_hdr.ghz | '$CLI' decompress - -o out.raw"
says "frame larger than the reader's limit"
says "--max-frame-bytes"
[ ! -e out.raw ] && ok "  no output left" || bad "  output left behind"
# With no limit the reader reads on, and reports the truncation of what is there.
expect 1 "the same with no limit: truncated" -- \
    sh -c "cat huge_hdr.ghz | '$CLI' decompress --max-frame-bytes 0 - -o out.raw"
says "truncated input"
expect 1 "a small valid frame that decodes to more than 1 GiB" -- \
    "$CLI" decompress -z zeros.ghz -o out.raw
says "--max-frame-bytes"
expect 1 "  info refuses it too" -- "$CLI" info zeros.ghz
says "--max-frame-bytes"
expect 1 "  and add" -- "$CLI" add zeros.ghz zeros.ghz -o sum.ghz
says "--max-frame-bytes"
# a.ghz: frames of 50000 f32 values = 200000 bytes decoded
expect 1 "a limit below the frame" -- "$CLI" decompress --max-frame-bytes 199999 -z a.ghz -o out.raw
says "the limit is 199999 bytes"
expect 0 "a limit at the frame" -- "$CLI" decompress --max-frame-bytes 200000 -z a.ghz -o out.raw
[ "$(wc -c < out.raw)" = "$(wc -c < a.f32)" ] && ok "  all values decoded" || bad "  decoded size"
expect 0 "a limit with a suffix" -- "$CLI" info --max-frame-bytes 1M a.ghz
"$CLI" compress -i a.f32 -z fx.ghz -t f32 --fixed 16 --frame-elems 50000 || bad "compress --fixed"
expect 1 "fixed-rate frames obey the limit" -- "$CLI" decompress --max-frame-bytes 100K -z fx.ghz -o out.raw
says "--max-frame-bytes"
expect 2 "a bad limit" -- "$CLI" decompress --max-frame-bytes 12Q -z a.ghz -o out.raw
expect 2 "the limit is for readers" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -A 1 --max-frame-bytes 1G
no_temp

echo "# add, sub, min, max on streams that open with an empty frame"
"$CLI" compress -i empty.f32 -z e.ghz -t f32 -A 1e-3 || bad "compress empty.f32"
cat e.ghz a.ghz > ea.ghz
for op in add sub min max; do
    expect 0 "$op" -- "$CLI" $op ea.ghz ea.ghz -o r.ghz
    expect 0 "  its result decompresses" -- "$CLI" decompress -z r.ghz -o r.raw
    [ "$(wc -c < r.raw)" = "$(wc -c < a.f32)" ] && ok "  all values" || bad "  $op: value count"
done
expect 0 "an empty stream with itself" -- "$CLI" add e.ghz e.ghz -o r.ghz
expect 0 "  gives an empty stream" -- "$CLI" decompress -z r.ghz -o r.raw
[ ! -s r.raw ] && ok "  of no values" || bad "  values out of nothing"

echo "# output names and links"
long=$(printf 'n%.0s' $(seq 255))
expect 0 "an output name of 255 bytes" -- "$CLI" compress -i a.f32 -z "$long" -t f32 -A 1e-3
[ -s "$long" ] && ok "  written" || bad "  not written"
rm -f "$long"
long=$(printf 'm%.0s' $(seq 240))
expect 0 "an output name of 240 bytes" -- "$CLI" compress -i a.f32 -z "$long" -t f32 -A 1e-3
rm -f "$long"
mkdir -p sub
ln -s sub/target.ghz dangling.ghz
expect 1 "failing output through a dangling link" -- \
    sh -c "printf abc | '$CLI' compress -t f32 -A 1 -o dangling.ghz"
[ ! -e sub/target.ghz ] && ok "  no empty target left" || bad "  target left behind"
[ -L dangling.ghz ] && ok "  the link is kept" || bad "  the link is gone"
expect 0 "output through a dangling link" -- "$CLI" compress -i a.f32 -z dangling.ghz -t f32 -A 1e-3
[ -L dangling.ghz ] && [ -s sub/target.ghz ] && ok "  the target is created, the link kept" ||
    bad "  link or target wrong"
(cd sub && ls -a | grep -q 'ghz-tmp-') && bad "  temporary file left in sub" || ok "  no temporary file in sub"
no_temp

echo "# input that changes while it is read"
# /proc files claim size 0 and hold more: the input grew after it was opened.
if [ -r /proc/self/status ]; then
    expect 1 "a file larger than its size (/proc)" -- "$CLI" compress -i /proc/self/status -z p.ghz -t f32 -A 1
    says "changed size while it was read"
    [ ! -e p.ghz ] && ok "  no output left" || bad "  output left behind"
fi
# /sys files claim 4096 bytes and hold fewer: the input shrank after it was opened.
short=
for f in /sys/devices/system/cpu/online /sys/devices/system/cpu/possible /sys/kernel/mm/transparent_hugepage/enabled; do
    if [ -r "$f" ]; then
        k=$(wc -c < "$f")
        if [ "$k" -gt 0 ] && [ $((k % 4)) = 0 ] && [ "$(stat -c %s "$f")" -gt "$k" ]; then short=$f; break; fi
    fi
done
if [ -n "$short" ]; then
    for m in "-A 1" "-R 1e-3"; do
        expect 1 "a file shorter than its size ($short, $m)" -- "$CLI" compress -i "$short" -z s.ghz -t f32 $m
        says "changed size while it was read"
    done
else
    ok "# skipped: no /sys file shorter than its size here"
fi

echo "# conflicting options and bad bounds (usage errors, exit 2)"
expect 2 "-M ABS -E 1 -R 1e-3" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -M ABS -E 1 -R 1e-3
says "conflicting options"
expect 2 "two -t" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -t f64 -A 1
says "conflicting options"
expect 2 "-f and -d" -- "$CLI" compress -i a.f32 -z x.ghz -f -d -A 1
expect 2 "two bounds" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -A 1 -E 2
expect 2 "two --fixed rates" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 --fixed 8 --fixed 16
expect 2 "--checksum and --no-checksum" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -A 1 --checksum --no-checksum
expect 2 "two outputs" -- "$CLI" compress -i a.f32 -z x.ghz -z y.ghz -t f32 -A 1
expect 0 "the same setting twice is no conflict" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -t f32 -M ABS -A 1e-3
for b in 1e308 1e400 0 -1 nan inf 1x; do
    expect 2 "bound $b" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -A "$b"
done
expect 2 "REL bound 1e308" -- "$CLI" stat -i a.f32 -t f32 -R 1e308
no_temp

echo "# checksum errors name their place once"
"$PY" - <<'PYEOF'
d = bytearray(open('a.ghz', 'rb').read())
d[len(d) - 100] ^= 1          # in the last frame's payload
open('bad.ghz', 'wb').write(d)
PYEOF
expect 1 "a changed payload byte" -- "$CLI" decompress -z bad.ghz -o out.raw
says "checksum mismatch"
[ "$(grep -o 'frame [0-9]* at byte' last.err | wc -l)" = 1 ] && ok "  one place named" ||
    { bad "  the place is named more than once"; sed 's/^/     /' last.err; }
expect 1 "  add names it once too" -- "$CLI" add bad.ghz a.ghz -o r.ghz
[ "$(grep -o 'frame [0-9]' last.err | wc -l)" = 1 ] && ok "  one frame named" ||
    { bad "  the frame is named more than once"; sed 's/^/     /' last.err; }
no_temp

echo "# $fails failure(s)"
[ "$fails" = 0 ]
