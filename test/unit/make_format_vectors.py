#!/usr/bin/env python3
# test/unit/make_format_vectors.py: how the two hand-built frames of test_format.c
# (stream_a_hex, stream_b_hex) were derived, straight from ghz/codec/FORMAT.md and
# independently of the library and of testutil.c. Not run by CTest; run it by hand to
# re-derive the hex (python3 make_format_vectors.py) after reading a FORMAT.md change.
import struct
def le(v, n): return (v & ((1<<(8*n))-1)).to_bytes(n, 'little')
def zz(q): return ((q << 1) ^ (q >> 31)) & 0xffffffff
def quant(q, fmask):
    d = [0] + [q[i]-q[i-1] for i in range(1,32)]
    mx = max(abs(x) for x in d); w = mx.bit_length()
    z = zz(q[0]); c = 0 if z == 0 else 1 if z < 256 else 2 if z < 65536 else 3
    out = b''
    if fmask: out += le(fmask, 4)
    out += le(z, [0,1,2,4][c])
    if w:
        out += le(sum(1<<i for i in range(32) if d[i] < 0), 4)
        for k in range(w):
            out += le(sum(1<<i for i in range(32) if (abs(d[i])>>k)&1), 4)
    code = w | (c<<5) | (0x80 if fmask else 0)
    return code, out
def header(dtype, mode, eb_user, eb_abs, fill, fill_bits, n, psize):
    h = bytes([0xF9,0x47,0x48,0x5A]) + le(2,2) + le(64,2) + bytes([dtype, mode, 5, 1 if fill else 0]) + le(0,4)
    h += le(n,8) + le((n+31)//32, 8) + le(psize, 8) + struct.pack('<d', eb_user) + struct.pack('<d', eb_abs) + le(fill_bits if fill else 0, 8)
    assert len(h) == 64
    return h
def frame(hdr_args, codes, payload):
    n = hdr_args[6]
    nb = (n+31)//32; cb = (nb+15)//16*16
    return header(*hdr_args[:7], len(payload)) + bytes(codes) + bytes(cb-nb) + payload

# Stream A: f32 ABS E = 128/255 -> Q = E * 1.9921875 = 1 exactly (FORMAT.md's f32 quantum). n = 100.
EA = 128/255
assert EA * 1.9921875 == 1.0
d0 = [0, 1, -2, 3, 0, -5, 4, 1, 1, 1, 0, 0, -1, 2, -3, 5, 0, 0, 0, 0, 1, -1, 1, -1, 2, 2, -4, 0, 3, -3, 0, 1]
q = [-3]
for x in d0[1:]: q.append(q[-1]+x)
c0, p0 = quant(q, 0)
constnan = 0x7FC01234
raw = [0x3F800000, 0x7FC00000, 0x80000000, 0x00000001, 0x7F800000, 0x42F6E979, 0xFF800000, 0x3EAAAAAB] * 4
raw[9] = 0x7F7FFFFF; raw[17] = 0xC2C80000
q3 = [1000, 1000, 1001, 999]; q3f = q3 + [q3[-1]]*28
c3, p3 = quant(q3f, 0)
codesA = [c0, 0x3F, 0x1F, c3]
payA = p0 + le(constnan,4) + b''.join(le(r,4) for r in raw) + p3
A = frame((1,1,EA,EA,False,0,100), codesA, payA)
print("A q0..31:", q)
print("A codes", [hex(x) for x in codesA], "size", len(A), "payload", len(payA))
print("A:", A.hex())
# Stream B: f64 ABS 0.25 -> Q = 0.5, fill -9999.0, n = 102
fillb = struct.unpack('<Q', struct.pack('<d', -9999.0))[0]
# block 1: fills at 0,1,17,31
qb = [None]*32
for i in range(2,17): qb[i] = -100000 + 3*(i-2)
for i in range(18,31): qb[i] = qb[16] - 7*(i-17)
fm = (1<<0)|(1<<1)|(1<<17)|(1<<31)
qf = list(qb); qf[0]=qf[1]=qb[2]; qf[17]=qb[16]; qf[31]=qb[30]
c1, p1 = quant(qf, fm)
q3b = [0,1,0,0,2,2] + [2]*26
c3b, p3b = quant(q3b, 1<<5)
inf = 0x7FF0000000000000
codesB = [0x5F, c1, 0x3F, c3b]
payB = p1 + le(inf,8) + p3b
B = frame((2,1,0.25,0.25,True,fillb,102), codesB, payB)
print("B codes", [hex(x) for x in codesB], "size", len(B), "payload", len(payB), "p1", len(p1), "p3", p3b.hex())
print("B:", B.hex())
print("B block1 q:", qb)
def carr(name, b):
    s = "static const char %s_hex[] =\n" % name
    h = b.hex()
    for i in range(0, len(h), 80):
        s += '    "%s"\n' % h[i:i+80]
    return s.rstrip('\n') + ';\n'
print(carr("stream_a", A)); print(carr("stream_b", B))
