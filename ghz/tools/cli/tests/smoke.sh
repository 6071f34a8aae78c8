#!/usr/bin/env bash
# ghz/tools/cli/tests/smoke.sh: end-to-end checks of ghz-cli (exit codes, round trips,
# bounds, corrupted and truncated streams, stdin/stdout, multi-frame streams).
# Usage: smoke.sh PATH/TO/ghz-cli [PYTHON3]. Needs python3 (standard library only) to
# make the test data and check the error bound independently of ghz-cli.
set -u
CLI=$1
PY=${2:-python3}
. "$(dirname "$0")/lib.sh"

"$PY" - <<'PYEOF' || exit 1
import array, math, random
random.seed(7)
def wave(n, t):
    return array.array(t, (math.sin(i * 0.001) * 100 + math.cos(i * 0.0137) * 3
                           + random.gauss(0, 0.01) for i in range(n)))
wave(200003, 'f').tofile(open('a.f32', 'wb'))
wave(50001, 'd').tofile(open('a.f64', 'wb'))
s = wave(20011, 'f')
for i in range(0, len(s), 997): s[i] = float('nan')
for i in range(5, len(s), 1231): s[i] = float('inf')
for i in range(2000, 5000): s[i] = -9999.0
s.tofile(open('sp.f32', 'wb'))
open('empty.f32', 'wb').close()
open('odd.f32', 'wb').write(b'\0' * 4001)
array.array('f', (math.sin(0.02 * i) * math.cos(0.03 * j) * 50 + 0.01 * i * j
                  for j in range(200) for i in range(300))).tofile(open('t2.f32', 'wb'))
PYEOF
cat > check.py <<'PYEOF'
import array, math, sys
orig, dec, t, eb = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
fill = float(sys.argv[5]) if len(sys.argv) > 5 else None
a = array.array(t); a.frombytes(open(orig, 'rb').read())
b = array.array(t); b.frombytes(open(dec, 'rb').read())
if len(a) != len(b): sys.exit("length %d != %d" % (len(a), len(b)))
worst = 0.0
for x, y in zip(a, b):
    if math.isnan(x):
        if not math.isnan(y): sys.exit("NaN lost")
    elif math.isinf(x) or (fill is not None and x == fill):
        if x != y: sys.exit("special value changed")
    else:
        worst = max(worst, abs(x - y))
if worst > eb: sys.exit("max error %r > %r" % (worst, eb))
PYEOF
# eb_abs of a stream's first frame, from 'info -v'.
eb_abs() { "$CLI" info -v "$1" | awk '/eb_abs/ { print $2; exit }'; }
bound_ok() { if "$PY" check.py "$@"; then ok "  values within eb_abs $4"; else
    bad "  bound check of $2"; fi; }

echo "# basics"
expect 0 "--help" -- "$CLI" --help
grep -q '^Usage:' last.out && ok "  help on stdout" || bad "  help not on stdout"
expect 0 "-V" -- "$CLI" -V
grep -Eq 'format [0-9]+' last.out && ok "  prints the format version" || bad "  -V lacks the format"
expect 2 "no arguments" -- "$CLI"
expect 2 "unknown option" -- "$CLI" compress --frobnicate
expect 2 "unknown command" -- "$CLI" frobnicate
expect 2 "missing bound" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -M REL
expect 2 "bad bound" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -M REL -E -1
expect 2 "option that does not apply" -- "$CLI" decompress -z x.ghz -o x.raw -E 1
expect 2 "same input and output" -- "$CLI" compress -i a.f32 -z a.f32 -t f32 -A 1

echo "# compress / decompress / roundtrip"
expect 0 "compress f32 REL" -- "$CLI" compress -i a.f32 -z a.ghz -t f32 -M REL -E 1e-4
expect 0 "decompress" -- "$CLI" decompress -z a.ghz -o a.out
bound_ok a.f32 a.out f "$(eb_abs a.ghz)"
expect 0 "inferred roundtrip -i -z -o" -- "$CLI" -i a.f32 -z b.ghz -o b.out -t f32 -M REL -E 1e-4
cmp -s a.ghz b.ghz && cmp -s a.out b.out && ok "  same bytes as compress + decompress" \
    || bad "  roundtrip differs from compress + decompress"
expect 0 "inferred compress -i -z" -- "$CLI" -i a.f32 -z c.ghz -t f32 -M REL 1e-4
cmp -s a.ghz c.ghz && ok "  same stream" || bad "  inferred compress differs"
expect 0 "inferred decompress -z -o" -- "$CLI" -z c.ghz -o c.out
cmp -s a.out c.out && ok "  same values" || bad "  inferred decompress differs"
expect 0 "f64 ABS" -- "$CLI" -i a.f64 -z d.ghz -o d.out -d -A 1e-6
bound_ok a.f64 d.out d 1e-6
expect 0 "specials and --fill" -- "$CLI" -i sp.f32 -z sp.ghz -o sp.out -f -R 1e-3 --fill -9999
bound_ok sp.f32 sp.out f "$(eb_abs sp.ghz)" -9999
# REL without --fill on data holding a fill-like value (|x| >= 1e30): one warning, with the fix
"$PY" -c "
import array, math
s = array.array('f', (math.sin(i * 0.01) for i in range(20000)))
for i in range(0, len(s), 97): s[i] = -1e34
s.tofile(open('fillish.f32', 'wb'))"
expect 0 "REL without --fill, values of -1e34" -- "$CLI" compress -i fillish.f32 -z fw.ghz -t f32 -M REL -E 1e-3
says "warning: REL without --fill, and the input holds -1e+34"
says "give --fill -1e+34"
[ "$(grep -c 'warning: REL without --fill' last.err)" = 1 ] && ok "  warned once" || bad "  warned more than once"
expect 0 "  the same with --fill -1e34" -- "$CLI" compress -i fillish.f32 -z fw.ghz -t f32 -M REL -E 1e-3 --fill -1e34
[ ! -s last.err ] && ok "  no warning" || { bad "  warning with --fill"; sed 's/^/     /' last.err; }
expect 0 "  REL on ordinary values" -- "$CLI" compress -i a.f32 -z fw.ghz -t f32 -M REL -E 1e-3
[ ! -s last.err ] && ok "  no warning" || { bad "  warning on ordinary values"; sed 's/^/     /' last.err; }

expect 0 "empty input: one empty frame" -- "$CLI" compress -i empty.f32 -z e.ghz -t f32 -A 1
expect 0 "  decompresses to nothing" -- "$CLI" decompress -z e.ghz -o e.out
[ -f e.out ] && [ ! -s e.out ] && ok "  empty output" || bad "  empty output expected"
expect 1 "input not a whole number of values" -- "$CLI" compress -i odd.f32 -z o.ghz -t f32 -A 1
[ ! -e o.ghz ] && ok "  no output left" || bad "  output left behind"
expect 1 "dimensions that do not match" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -A 1 -2 100 100

echo "# --prefer ratio (RATIO.md)"
expect 0 "ratio mode, 1-D" -- "$CLI" compress -i a.f32 -z r1.ghz -t f32 -R 1e-3 --prefer ratio
expect 0 "  decompresses" -- "$CLI" decompress -z r1.ghz -o r1.out
bound_ok a.f32 r1.out f "$(eb_abs r1.ghz)"
"$CLI" info -v r1.ghz | grep -q "coding *ratio" && ok "  info says ratio" || bad "  info lacks the coding"
expect 0 "ratio mode, 2-D in frames of whole rows" -- \
    "$CLI" compress -i t2.f32 -z r2.ghz -t f32 -R 1e-3 -2 300 200 --frame-elems 10000 --prefer ratio
expect 0 "  decompresses" -- "$CLI" decompress -z r2.ghz -o r2.out
bound_ok t2.f32 r2.out f "$(eb_abs r2.ghz)"
[ "$("$CLI" info r2.ghz | grep -c '^ *[0-9]')" -ge 7 ] && ok "  7 frames of 33 rows" || bad "  frames of whole rows expected"
expect 0 "  speed mode of the same" -- "$CLI" compress -i t2.f32 -z s2.ghz -t f32 -R 1e-3 -2 300 200
[ "$(wc -c <r2.ghz)" -lt "$(wc -c <s2.ghz)" ] && ok "  ratio frames smaller" || bad "  ratio frames not smaller"
expect 2 "--prefer with an unknown word" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -A 1 --prefer small
expect 2 "--prefer ratio with --fixed" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 --fixed 16 --prefer ratio

echo "# multi-frame streams"
expect 0 "--frame-elems 1000 (REL, global range)" -- \
    "$CLI" compress -i a.f32 -z m.ghz -t f32 -R 1e-4 --frame-elems 1000
[ "$(eb_abs m.ghz)" = "$(eb_abs a.ghz)" ] && ok "  one eb_abs for all frames" \
    || bad "  REL bound differs between 1 and many frames"
expect 0 "  decompress" -- "$CLI" decompress -z m.ghz -o m.out
bound_ok a.f32 m.out f "$(eb_abs m.ghz)"
expect 0 "  info" -- "$CLI" info m.ghz
grep -q '^total: 201 frames, 200003 f32 values' last.out && ok "  info totals" \
    || bad "  info totals: $(tail -1 last.out)"
cat a.ghz m.ghz > cat.ghz
expect 0 "concatenated streams" -- "$CLI" decompress -z cat.ghz -o cat.out
cat a.out m.out | cmp -s - cat.out && ok "  decode to the concatenation" || bad "  concatenation"

echo "# stdin / stdout"
cat a.f32 | "$CLI" compress -t f32 -R 1e-4 --frame-elems 1000 > p.ghz
cmp -s p.ghz m.ghz && ok "REL from a pipe = REL from the file" || bad "REL from a pipe differs"
"$CLI" compress -t f32 -R 1e-4 < a.f32 | "$CLI" decompress > p.out
cmp -s p.out a.out && ok "stdin -> stdout -> stdin -> stdout" || bad "pipe round trip"
"$CLI" info - < m.ghz > /dev/null && ok "info from stdin" || bad "info from stdin"

echo "# stat"
expect 0 "stat" -- "$CLI" stat -i a.f32 -t f32 -M REL -E 1e-3
for k in ratio bits/value 'max abs error' 'max error/bound' PSNR NRMSE 'compress ' decompress; do
    grep -q "^$k" last.out && ok "  reports $k" || bad "  stat lacks $k"
done
awk -F': ' '/^max error\/bound/ { exit !($2 + 0 <= 1) }' last.out && ok "  max error/bound <= 1" \
    || bad "  max error/bound > 1"
grep -q '1 thread)' last.out && ok "  one thread by default" || bad "  stat threads"

echo "# damaged streams"
"$PY" - <<'PYEOF'
import struct
d = bytearray(open('m.ghz', 'rb').read())
def frame_at(k):
    off = 0
    for _ in range(k):
        n, nb, pl = struct.unpack_from('<QQQ', d, off + 16)
        off += 64 + (nb + 15) // 16 * 16 + pl + (4 if d[off + 11] & 2 else 0)
    return off
f5 = frame_at(5)
def save(name, b): open(name, 'wb').write(bytes(b))
c = bytearray(d); c[64 + 3] = 0x9F; save('code.ghz', c)          # invalid code byte
c = bytearray(d); c[f5 + 12] = 1; save('hdr.ghz', c)             # reserved header byte
c = bytearray(d); c[f5 + 39] = 0x7F; save('huge.ghz', c)         # absurd payload_size
c = bytearray(d); c[0] = 0; save('magic.ghz', c)
save('trunc.ghz', d[:-10])
save('trunchdr.ghz', d[:f5 + 30])
save('trail.ghz', d + b'\1\2')
# A payload byte of frame 5 changed: every field stays valid, only the checksum
# (on by default) can tell.
n5, nb5, pl5 = struct.unpack_from('<QQQ', d, f5 + 16)
c = bytearray(d); c[f5 + 64 + (nb5 + 15) // 16 * 16 + pl5 // 2] ^= 0x10; save('crc.ghz', c)
PYEOF
# rejected NAME...: each damaged NAME.ghz fails (exit 1) in decompress, with a message
# naming the frame and no output left, from a pipe, and in info.
rejected() {
    local f
    for f in "$@"; do
        expect 1 "decompress $f.ghz" -- "$CLI" decompress -z $f.ghz -o bad.out
        grep -q '^ghz-cli: .*frame' last.err && ok "  says which frame" || bad "  no message"
        [ ! -e bad.out ] && ok "  no output left" || { bad "  output left"; rm -f bad.out; }
        expect 1 "  same from a pipe" -- sh -c "cat $f.ghz | '$CLI' decompress > /dev/null"
        expect 1 "  info" -- "$CLI" info $f.ghz
    done
}
rejected code hdr huge magic trunc trunchdr trail crc
expect 1 "corrupt code byte" -- "$CLI" decompress -z code.ghz -o bad.out
says "corrupted input"
expect 1 "truncated" -- "$CLI" decompress -z trunc.ghz -o bad.out
says "truncated input"
expect 1 "flipped payload bit" -- "$CLI" decompress -z crc.ghz -o bad.out
says "checksum mismatch"
expect 0 "--no-checksum" -- "$CLI" compress -i a.f32 -z nock.ghz -t f32 -R 1e-4 --frame-elems 1000 \
    --no-checksum
"$PY" -c "import os,sys; a,b=os.path.getsize('m.ghz'),os.path.getsize('nock.ghz'); sys.exit(a-b!=4*201)" \
    && ok "  4 bytes less per frame" || bad "  --no-checksum size"
expect 0 "  decompress" -- "$CLI" decompress -z nock.ghz -o nock.out
cmp -s nock.out m.out && ok "  same values as with checksums" || bad "  values differ"
"$CLI" info -v m.ghz | grep -q 'checksum *crc32c' && ok "  info shows the checksum" \
    || bad "  info lacks the checksum"
expect 2 "--no-checksum with decompress" -- "$CLI" decompress -z m.ghz -o x.out --no-checksum
expect 1 "foreign data" -- "$CLI" decompress -z a.f32 -o bad.out
says "not a ghz stream"
echo keep > keep.out
expect 1 "failure keeps an existing output" -- "$CLI" decompress -z hdr.ghz -o keep.out
[ "$(cat keep.out)" = keep ] && ok "  untouched" || bad "  existing output clobbered"
no_temp

echo "# execution policy"
expect 2 "-x gpu" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -A 1 -x gpu
expect 0 "-x cpu" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 -R 1e-4 -x cpu
cmp -s x.ghz a.ghz && ok "  same stream as the default" || bad "  -x cpu differs"
rm -f x.ghz

# -x cuda: with a usable GPU every command must give the CPU's bytes; without one
# (a CPU-only build, or no GPU visible) every command must fail with exit 1, saying
# why, before touching any file.
# same_out DESCRIPTION FILE REFERENCE: FILE must equal REFERENCE byte for byte.
same_out() { if cmp -s "$2" "$3"; then ok "  $1: same bytes as -x cpu"; else
    bad "  $1: $2 differs from the CPU's $3"; fi; }
echo "# -x cuda"
if "$CLI" -V | grep -q 'cuda not built'; then
    cuda_why="CUDA backend not built"
else
    cuda_why="no usable CUDA device"
fi
"$CLI" compress -i a.f32 -z cu_a.ghz -t f32 -M REL -E 1e-4 -x cuda > last.out 2> last.err
cuda_rc=$?
if [ "$cuda_rc" = 0 ]; then
    ok "-x cuda compress: a GPU is in use, checking it against the CPU"
    same_out "compress f32 REL" cu_a.ghz a.ghz
    expect 0 "-x cuda decompress" -- "$CLI" decompress -z a.ghz -o cu_a.out -x cuda
    same_out "decompress" cu_a.out a.out
    expect 0 "-x cuda roundtrip -s" -- "$CLI" -i a.f32 -z cu_b.ghz -o cu_b.out -t f32 -R 1e-4 -s -x cuda
    same_out "roundtrip stream" cu_b.ghz b.ghz
    same_out "roundtrip values" cu_b.out b.out
    grep -q '^device .*GPU' last.out && ok "  report names the GPU" || bad "  report lacks the GPU"
    expect 0 "-x cuda f64 ABS" -- "$CLI" -i a.f64 -z cu_d.ghz -o cu_d.out -d -A 1e-6 -x cuda
    same_out "f64 stream" cu_d.ghz d.ghz
    same_out "f64 values" cu_d.out d.out
    expect 0 "-x cuda specials and --fill" -- \
        "$CLI" -i sp.f32 -z cu_sp.ghz -o cu_sp.out -f -R 1e-3 --fill -9999 -x cuda
    same_out "specials stream" cu_sp.ghz sp.ghz
    same_out "specials values" cu_sp.out sp.out
    expect 0 "-x cuda empty input" -- "$CLI" compress -i empty.f32 -z cu_e.ghz -t f32 -A 1 -x cuda
    same_out "empty frame" cu_e.ghz e.ghz
    expect 0 "  decompresses to nothing" -- "$CLI" decompress -z e.ghz -o cu_e.out -x cuda
    [ -f cu_e.out ] && [ ! -s cu_e.out ] && ok "  empty output" || bad "  empty output expected"
    expect 0 "-x cuda --frame-elems 1000" -- \
        "$CLI" compress -i a.f32 -z cu_m.ghz -t f32 -R 1e-4 --frame-elems 1000 -x cuda
    same_out "201 frames" cu_m.ghz m.ghz
    expect 0 "  decompress" -- "$CLI" decompress -z m.ghz -o cu_m.out -x cuda
    same_out "201 frames decoded" cu_m.out m.out
    expect 0 "-x cuda concatenated streams" -- "$CLI" decompress -z cat.ghz -o cu_cat.out -x cuda
    same_out "concatenation" cu_cat.out cat.out
    "$CLI" compress -t f32 -R 1e-4 --frame-elems 1000 -x cuda < a.f32 > cu_p.ghz
    same_out "REL from a pipe" cu_p.ghz m.ghz
    "$CLI" info m.ghz > cpu_info.out
    expect 0 "-x cuda info" -- "$CLI" info m.ghz -x cuda
    same_out "info listing" last.out cpu_info.out
    expect 0 "-x cuda stat" -- "$CLI" stat -i a.f32 -t f32 -M REL -E 1e-3 -x cuda
    grep -q '^compress .*GPU, incl. host<->device copies' last.out \
        && ok "  says the times are the GPU's, copies included" || bad "  stat timing note"
    awk -F': ' '/^max error\/bound/ { exit !($2 + 0 <= 1) }' last.out \
        && ok "  max error/bound <= 1" || bad "  max error/bound > 1"
    for f in code hdr huge magic trunc trunchdr trail crc; do
        expect 1 "-x cuda decompress $f.ghz" -- "$CLI" decompress -z $f.ghz -o bad.out -x cuda
        [ ! -e bad.out ] && ok "  no output left" || { bad "  output left"; rm -f bad.out; }
        expect 1 "  info" -- "$CLI" info $f.ghz -x cuda
    done
    expect 1 "-x cuda corrupt code byte" -- "$CLI" decompress -z code.ghz -o bad.out -x cuda
    says "corrupted input"
elif [ "$cuda_rc" = 1 ] && grep -qF "$cuda_why" last.err; then
    ok "-x cuda compress fails without a usable GPU (exit 1)"
    says "$cuda_why"
    [ ! -e cu_a.ghz ] && ok "  no output left" || bad "  output left behind"
    expect 1 "-x cuda decompress" -- "$CLI" decompress -z a.ghz -o cu.out -x cuda
    says "$cuda_why"
    expect 1 "-x cuda roundtrip" -- "$CLI" -i a.f32 -z cu.ghz -o cu.out -t f32 -A 1 -x cuda
    says "$cuda_why"
    expect 1 "-x cuda stat" -- "$CLI" stat -i a.f32 -t f32 -A 1 -x cuda
    says "$cuda_why"
    [ ! -s last.out ] && ok "  no report" || bad "  stat printed a report"
    expect 1 "-x cuda info" -- "$CLI" info a.ghz -x cuda
    says "$cuda_why"
    [ ! -s last.out ] && ok "  no listing" || bad "  info printed a listing"
    [ ! -e cu.ghz ] && [ ! -e cu.out ] && ok "  no output left" || bad "  output left behind"
    expect 2 "-x cuda still checks the usage first" -- \
        "$CLI" compress -i a.f32 -z cu.ghz -t f32 -M REL -x cuda
else
    bad "-x cuda compress: exit $cuda_rc, expected 0, or 1 saying '$cuda_why'"
    sed 's/^/     /' last.err
fi
no_temp

echo "# add, sub, min, max (ghz/homo): equal to decompress -> operate -> compress"
"$PY" - <<'PYEOF' || exit 1
import array, math, random
random.seed(11)
b = array.array('f', (math.cos(i * 0.002) * 50 + random.gauss(0, 0.5) for i in range(200003)))
for i in range(0, len(b), 4001): b[i] = float('nan')
b.tofile(open('b.f32', 'wb'))
PYEOF
cat > op.py <<'PYEOF'
import array, math, sys
op, x, y, out = sys.argv[1:5]
a = array.array('f'); a.frombytes(open(x, 'rb').read())
b = array.array('f'); b.frombytes(open(y, 'rb').read())
def f(u, v):
    # HOMO.md's rules (a NaN operand propagates; no inf - inf here); the float32
    # store rounds once: a float sum computed in double then stored is the float sum
    if math.isnan(u): return u
    if math.isnan(v): return v
    if op == 'add': return u + v
    if op == 'sub': return u - v
    if op == 'min': return v if v < u else u
    return v if v > u else u
array.array('f', (f(u, v) for u, v in zip(a, b))).tofile(open(out, 'wb'))
PYEOF
"$CLI" compress -i a.f32 -z ha.ghz -t f32 -A 0.01 --frame-elems 65536 -q &&
"$CLI" compress -i b.f32 -z hb.ghz -t f32 -A 0.01 --frame-elems 65536 -q &&
"$CLI" decompress -z ha.ghz -o ha.dec -q && "$CLI" decompress -z hb.ghz -o hb.dec -q ||
    bad "making the operands"
for op in add sub min max; do
    expect 0 "$op" -- "$CLI" $op ha.ghz hb.ghz -o h_$op.ghz
    "$PY" op.py $op ha.dec hb.dec h_$op.doc &&
        "$CLI" compress -i h_$op.doc -z h_$op.ref -t f32 -A 0.01 --frame-elems 65536 -q
    cmp -s h_$op.ghz h_$op.ref && ok "  byte-identical to DOC" || bad "  $op differs from DOC"
done
"$CLI" compress -i b.f32 -z hc.ghz -t f32 -A 0.02 --frame-elems 65536 -q
expect 1 "add with another eb_abs" -- "$CLI" add ha.ghz hc.ghz -o bad.ghz
says "eb_abs"
[ ! -e bad.ghz ] && ok "  no output left" || bad "  output left behind"
"$CLI" compress -i b.f32 -z hd.ghz -t f32 -A 0.01 --frame-elems 50000 -q
expect 1 "add with other frame boundaries" -- "$CLI" add ha.ghz hd.ghz -o bad.ghz
head -c 1000 hb.ghz > ht.ghz
expect 1 "add with a truncated operand" -- "$CLI" add ha.ghz ht.ghz -o bad.ghz
expect 2 "add with one operand" -- "$CLI" add ha.ghz -o bad.ghz
expect 2 "add without -o" -- "$CLI" add ha.ghz hb.ghz
expect 2 "add over an input" -- "$CLI" add ha.ghz hb.ghz -o hb.ghz
expect 2 "add with a bound option" -- "$CLI" add ha.ghz hb.ghz -o bad.ghz -E 1
no_temp

echo "# fixed rate (--fixed L, FIXED.md)"
# fixcheck.py ORIG DEC TYPE L [FRAME]: FIXED.md's bound, checked here independently of
# ghz-cli: per 32-value block (blocks start anew in each frame of FRAME values) |x - x'| <= 2^(1-l) M / (1 - 2^-l) (+ 2^-24 M for f32 at l = 32,
# the rounding of a 31-bit code to a float), and globally <= 2^(1-l) max|x| (1 + 2^(1-l))
# (+ the same f32 term); NaN stays NaN, Inf stays Inf or becomes NaN.
cat > fixcheck.py <<'PYEOF'
import array, math, sys
orig, dec, t, l = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
fe = int(sys.argv[5]) if len(sys.argv) > 5 else 1 << 26
a = array.array(t); a.frombytes(open(orig, 'rb').read())
b = array.array(t); b.frombytes(open(dec, 'rb').read())
if len(a) != len(b): sys.exit("length %d != %d" % (len(a), len(b)))
f32l32 = 2.0 ** -24 if (t == 'f' and l == 32) else 0.0
pad = 1 + 2.0 ** -40  # the roundings of this check, not of the codec
gmax = max((abs(x) for x in a if math.isfinite(x)), default=0.0)
gbound = (2.0 ** (1 - l) * gmax * (1 + 2.0 ** (1 - l)) + f32l32 * gmax) * pad
starts = [f + k for f in range(0, len(a), fe) for k in range(0, min(fe, len(a) - f), 32)]
for s in starts:
    e = min(s + 32, (s // fe + 1) * fe, len(a))
    blk = a[s:e]
    m = max((abs(x) for x in blk if math.isfinite(x)), default=0.0)
    bound = (2.0 ** (1 - l) * m / (1 - 2.0 ** -l) + f32l32 * m) * pad + 2.0 ** -148
    for i, (x, y) in enumerate(zip(blk, b[s:e])):
        if math.isnan(x):
            if not math.isnan(y): sys.exit("NaN at %d lost" % (s + i))
        elif math.isinf(x):
            if not (math.isnan(y) or y == x): sys.exit("Inf at %d lost" % (s + i))
        elif abs(x - y) > bound or abs(x - y) > gbound:
            sys.exit("value %d: |%r - %r| > %r (block) or %r (global)" % (s + i, x, y, bound, gbound))
PYEOF
# fixsize.py N L FRAME: bytes of N values in frames of FRAME values (FIXED.md, Frame).
cat > fixsize.py <<'PYEOF'
import sys
n, l, fe = map(int, sys.argv[1:4])
def size(k):
    nb = (k + 31) // 32
    return 64 + (2 * nb + 15) // 16 * 16 + nb * 4 * l
print(sum(size(min(fe, n - s)) for s in range(0, n, fe)) if n else size(0))
PYEOF
# statcheck.py L TYPE: stat's report (last.out) within the global bound, and max
# error/bound (per block) <= 1.
cat > statcheck.py <<'PYEOF'
import re, sys
l, t = int(sys.argv[1]), sys.argv[2]
r = open('last.out').read()
err = float(re.search(r'^max abs error *: (\S+)', r, re.M).group(1))
ratio = float(re.search(r'^max error/bound *: (\S+)', r, re.M).group(1))
lo, hi = map(float, re.search(r'^value range *: \S+ \(min (\S+), max ([^;]+);', r, re.M).groups())
gmax = max(abs(lo), abs(hi))
bound = 2.0 ** (1 - l) * gmax * (1 + 2.0 ** (1 - l)) + (2.0 ** -24 * gmax if t == 'f32' and l == 32 else 0)
if not (err <= bound * (1 + 1e-5)): sys.exit("max abs error %r > global bound %r" % (err, bound))
if not (ratio <= 1): sys.exit("max error/bound %r > 1" % ratio)
print("max abs error %.6g <= %.6g, max error/bound %.6g" % (err, bound, ratio))
PYEOF
expect 2 "--fixed with -M/-E" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 --fixed 16 -M REL -E 1e-3
says "mutually exclusive"
expect 2 "--fixed with -A" -- "$CLI" stat -i a.f32 -t f32 -A 1 --fixed 8
says "mutually exclusive"
expect 2 "--fixed with --checksum" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 --fixed 16 --checksum
says "no checksum"
expect 2 "--fixed with --fill" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 --fixed 16 --fill 0
expect 2 "--fixed 12" -- "$CLI" compress -i a.f32 -z x.ghz -t f32 --fixed 12
says "8, 16 or 32"
expect 2 "--fixed without -t" -- "$CLI" compress -i a.f32 -z x.ghz --fixed 16
expect 2 "--fixed with decompress" -- "$CLI" decompress -z a.ghz -o x.out --fixed 16
[ ! -e x.ghz ] && ok "  no output left" || bad "  output left behind"
for t in f32 f64; do
    py=f; [ $t = f64 ] && py=d
    n=$("$PY" -c "import os; print(os.path.getsize('a.$t') * 8 // ${t#f})")
    for l in 8 16 32; do
        fx=fx_${t}_$l
        expect 0 "compress $t --fixed $l (frames of 10000)" -- \
            "$CLI" compress -i a.$t -z $fx.ghz -t $t --fixed $l --frame-elems 10000
        [ "$(wc -c < $fx.ghz)" = "$("$PY" fixsize.py $n $l 10000)" ] && ok "  size as FIXED.md says" \
            || bad "  size $(wc -c < $fx.ghz), FIXED.md says $("$PY" fixsize.py $n $l 10000)"
        expect 0 "  decompress" -- "$CLI" decompress -z $fx.ghz -o $fx.out
        "$PY" fixcheck.py a.$t $fx.out $py $l 10000 && ok "  within FIXED.md's bound (per block and global)" \
            || bad "  $fx: bound violated"
        expect 0 "  roundtrip" -- "$CLI" roundtrip -i a.$t -z ${fx}_r.ghz -o ${fx}_r.out -t $t \
            --fixed $l --frame-elems 10000
        cmp -s $fx.ghz ${fx}_r.ghz && cmp -s $fx.out ${fx}_r.out \
            && ok "  same bytes as compress + decompress" || bad "  roundtrip differs"
        expect 0 "  stat" -- "$CLI" stat -i a.$t -t $t --fixed $l
        grep -q "^error bound *: fixed rate, l = $l" last.out && ok "  stat names the rate" \
            || bad "  stat lacks the rate"
        "$PY" statcheck.py $l $t > stat.msg && ok "  stat: $(cat stat.msg)" \
            || bad "  stat's figures break the bound"
        expect 0 "  info" -- "$CLI" info $fx.ghz
        awk 'NR == 2 { exit !($5 == "FIXED" && $6 == "l='$l'") }' last.out \
            && ok "  info rows say FIXED l=$l" || bad "  info row: $(sed -n 2p last.out)"
        grep -q "^total: $(( (n + 9999) / 10000 )) frames, $n $t values" last.out \
            && ok "  info totals" || bad "  info totals: $(tail -1 last.out)"
    done
done
expect 0 "info -v of a fixed-rate frame" -- "$CLI" info -v fx_f64_16.ghz
for k in 'mode *FIXED' 'l *16 bits/value' 'dtype *f64' 'checksum *none' 'n *10000'; do
    grep -q "^  $k" last.out && ok "  shows $k" || bad "  info -v lacks '$k'"
done
expect 0 "specials, --fixed 16" -- "$CLI" -i sp.f32 -z fx_sp.ghz -o fx_sp.out -f --fixed 16 -s
"$PY" fixcheck.py sp.f32 fx_sp.out f 16 && ok "  NaN/Inf kept as FIXED.md says, bound held" \
    || bad "  specials"
expect 0 "empty input --fixed 8" -- "$CLI" compress -i empty.f32 -z fx_e.ghz -t f32 --fixed 8
[ "$(wc -c < fx_e.ghz)" = 64 ] && ok "  one empty frame (64 bytes)" || bad "  empty frame size"
expect 0 "  decompresses to nothing" -- "$CLI" decompress -z fx_e.ghz -o fx_e.out
[ -f fx_e.out ] && [ ! -s fx_e.out ] && ok "  empty output" || bad "  empty output expected"
cat a.ghz fx_f32_16.ghz > mix.ghz
expect 0 "a stream mixing both modes" -- "$CLI" decompress -z mix.ghz -o mix.out
cat a.out fx_f32_16.out | cmp -s - mix.out && ok "  decodes to the concatenation" || bad "  mixed stream"
expect 0 "  info" -- "$CLI" info mix.ghz
"$CLI" compress -t f32 --fixed 16 --frame-elems 10000 < a.f32 | "$CLI" decompress > fx_p.out
cmp -s fx_p.out fx_f32_16.out && ok "fixed rate through pipes" || bad "fixed rate through pipes"
expect 1 "decompress -t f64 of an f32 fixed-rate stream" -- \
    "$CLI" decompress -z fx_f32_16.ghz -o x.out -t f64
expect 1 "add on fixed-rate frames" -- "$CLI" add fx_f32_16.ghz fx_f32_16.ghz -o bad.ghz
says "fixed-rate frame (mode 3"
expect 1 "sub, error-bounded and fixed-rate" -- "$CLI" sub ha.ghz fx_f32_16.ghz -o bad.ghz
says "not supported"
[ ! -e bad.ghz ] && ok "  no output left" || bad "  output left behind"

# Damaged fixed-rate frames: the format has no checksum, so what a reader can
# catch is the header, the block words, markers where K says none, and padding.
"$PY" - <<'PYEOF'
d = bytearray(open('fx_f32_16.ghz', 'rb').read())
fs = 64 + (2 * 313 + 15) // 16 * 16 + 313 * 64   # a frame of 10000 values at l = 16
f3 = 3 * fs
last = 20 * fs                                      # the last frame: 3 values, 1 block
assert len(d) == last + 64 + 16 + 64
def save(name, b): open(name, 'wb').write(bytes(b))
c = bytearray(d); c[f3 + 12] = 1; save('fxhdr.ghz', c)               # reserved byte
c = bytearray(d); c[f3 + 11] = 12; save('fxbits.ghz', c)             # l = 12
c = bytearray(d); c[f3 + 64 + 2 * 5 + 1] |= 0x80; save('fxword.ghz', c)  # word bit 15
codes = f3 + 64 + (2 * 313 + 15) // 16 * 16
c = bytearray(d); c[codes + 2 * 7:codes + 2 * 7 + 2] = b'\x00\x80'; save('fxmark.ghz', c)  # marker, K = 0
c = bytearray(d); c[last + 64 + 16 + 2 * 5] = 1; save('fxpad.ghz', c)  # code past n
c = bytearray(d); c[f3 + 17] ^= 0x40; save('fxn.ghz', c)             # n disagrees with n_blocks
save('fxtrunc.ghz', d[:-10])
save('fxtrail.ghz', d + b'\1\2')
PYEOF
rejected fxhdr fxbits fxword fxmark fxpad fxn fxtrunc fxtrail
expect 1 "fixed-rate block word with bit 15" -- "$CLI" decompress -z fxword.ghz -o bad.out
says "corrupted input"
expect 1 "fixed-rate marker in a block without one" -- "$CLI" info fxmark.ghz
says "corrupted input"
expect 1 "truncated fixed-rate stream" -- "$CLI" decompress -z fxtrunc.ghz -o bad.out
says "truncated input"

if [ "$cuda_rc" = 0 ]; then
    for t in f32 f64; do
        for l in 8 16 32; do
            expect 0 "-x cuda compress $t --fixed $l" -- "$CLI" compress -i a.$t -z cu_fx.ghz \
                -t $t --fixed $l --frame-elems 10000 -x cuda
            same_out "fixed-rate stream" cu_fx.ghz fx_${t}_$l.ghz
            expect 0 "  -x cuda decompress" -- "$CLI" decompress -z fx_${t}_$l.ghz -o cu_fx.out -x cuda
            same_out "fixed-rate values" cu_fx.out fx_${t}_$l.out
        done
    done
    expect 0 "-x cuda stat --fixed 16" -- "$CLI" stat -i a.f32 -t f32 --fixed 16 -x cuda
    "$PY" statcheck.py 16 f32 > /dev/null && ok "  within the bound" || bad "  -x cuda stat --fixed"
    expect 0 "-x cuda mixed stream" -- "$CLI" decompress -z mix.ghz -o cu_mix.out -x cuda
    same_out "mixed stream" cu_mix.out mix.out
    for f in fxhdr fxbits fxword fxmark fxpad fxn fxtrunc fxtrail; do
        expect 1 "-x cuda decompress $f.ghz" -- "$CLI" decompress -z $f.ghz -o bad.out -x cuda
        [ ! -e bad.out ] && ok "  no output left" || { bad "  output left"; rm -f bad.out; }
    done
else
    expect 1 "-x cuda compress --fixed 16 without a usable GPU" -- \
        "$CLI" compress -i a.f32 -z cu_fx.ghz -t f32 --fixed 16 -x cuda
    says "$cuda_why"
    [ ! -e cu_fx.ghz ] && ok "  no output left" || bad "  output left behind"
fi
no_temp

echo "# $fails failure(s)"
[ "$fails" = 0 ]
