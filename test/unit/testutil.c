/* test/unit/testutil.c: see testutil.h. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- PRNG ------------------------------------------------------------------------ */
void tu_seed(tu_rng_t* r, uint64_t seed)
{
    r->s = seed;
}

uint64_t tu_next(tu_rng_t* r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double tu_uniform(tu_rng_t* r)
{
    return (double)(tu_next(r) >> 11) * 0x1p-53;
}

uint64_t tu_below(tu_rng_t* r, uint64_t bound)
{
    return bound ? tu_next(r) % bound : 0;
}

double tu_normal(tu_rng_t* r)
{
    double u1 = tu_uniform(r), u2 = tu_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- data -------------------------------------------------------------------------- */
const char* const tu_pattern_names[] = {"random", "smooth", "noisy", "constant",
                                        "zero",   "walk",   "wide"};

void* tu_alloc(ghz_dtype_t t, size_t n)
{
    void* p = malloc(n * ghz_dtype_size(t) + 1);
    cr_assert(p != NULL, "out of memory");
    return p;
}

void* tu_make(ghz_dtype_t t, tu_pattern_t pat, size_t n, uint64_t seed)
{
    void* a = tu_alloc(t, n);
    tu_rng_t r;
    double walk = 0.0;
    size_t i;
    tu_seed(&r, seed);
    for (i = 0; i < n; i++) {
        double x = (double)i, v = 0.0;
        switch (pat) {
        case TU_RANDOM: v = tu_uniform(&r) * 200.0 - 100.0; break;
        case TU_SMOOTH: v = 10.0 * sin(x * 0.001) + 3.0 * cos(x * 0.0173 + 1.0); break;
        case TU_NOISY:
            v = 10.0 * sin(x * 0.001) + 3.0 * cos(x * 0.0173 + 1.0) + 0.5 * tu_normal(&r);
            break;
        case TU_CONSTANT: v = 3.25; break;
        case TU_ZERO: v = 0.0; break;
        case TU_WALK: walk += tu_uniform(&r) * 2.0 - 1.0; v = walk; break;
        case TU_WIDE: {
            double mag = pow(10.0, tu_uniform(&r) * 12.0 - 6.0);
            v = (tu_next(&r) & 1) ? -mag : mag;
            break;
        }
        }
        tu_set(a, t, i, v);
    }
    return a;
}

double tu_dbl_from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, 8);
    return v;
}

uint64_t tu_dbl_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

float tu_flt_from_bits(uint32_t b)
{
    float v;
    memcpy(&v, &b, 4);
    return v;
}

uint32_t tu_flt_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
}

double tu_get(const void* a, ghz_dtype_t t, size_t i)
{
    if (t == GHZ_F32) {
        float v;
        memcpy(&v, (const unsigned char*)a + 4 * i, 4);
        return (double)v;
    } else {
        double v;
        memcpy(&v, (const unsigned char*)a + 8 * i, 8);
        return v;
    }
}

void tu_set(void* a, ghz_dtype_t t, size_t i, double v)
{
    if (t == GHZ_F32) {
        float f = (float)v;
        memcpy((unsigned char*)a + 4 * i, &f, 4);
    } else {
        memcpy((unsigned char*)a + 8 * i, &v, 8);
    }
}

uint64_t tu_bits(const void* a, ghz_dtype_t t, size_t i)
{
    if (t == GHZ_F32) {
        uint32_t b;
        memcpy(&b, (const unsigned char*)a + 4 * i, 4);
        return b;
    } else {
        uint64_t b;
        memcpy(&b, (const unsigned char*)a + 8 * i, 8);
        return b;
    }
}

void tu_set_bits(void* a, ghz_dtype_t t, size_t i, uint64_t bits)
{
    if (t == GHZ_F32) {
        uint32_t b = (uint32_t)bits;
        memcpy((unsigned char*)a + 4 * i, &b, 4);
    } else {
        memcpy((unsigned char*)a + 8 * i, &bits, 8);
    }
}

uint64_t tu_bits_of(ghz_dtype_t t, double v)
{
    return t == GHZ_F32 ? (uint64_t)tu_flt_bits((float)v) : tu_dbl_bits(v);
}

/* ---- exact bound ------------------------------------------------------------------ */
int tu_within(double x, double y, double e)
{
    volatile double s, bv, av, err;
    if (!isfinite(x) || !isfinite(y) || !(e >= 0.0)) return 0;
    s = x - y;
    if (!isfinite(s)) return 0; /* |x - y| > DBL_MAX >= e */
    /* Knuth's two-sum: s + err == x - y exactly. */
    bv = s - x;
    av = s - bv;
    err = (x - av) + (-y - bv);
    if (fabs(s) < e) return 1;  /* rounding is monotone and e is a double */
    if (fabs(s) > e) return 0;
    /* |s| == e: the exact difference is s + err. */
    return err == 0.0 || (err < 0.0) != (s < 0.0);
}

static int tu_is_finite_bits(ghz_dtype_t t, uint64_t b)
{
    if (t == GHZ_F32) return ((b >> 23) & 0xFF) != 0xFF;
    return ((b >> 52) & 0x7FF) != 0x7FF;
}

int tu_is_nan_bits(ghz_dtype_t t, uint64_t b)
{
    if (t == GHZ_F32) return (b & 0x7FFFFFFFu) > 0x7F800000u;
    return (b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
}

size_t tu_check_bound(const void* in, const void* out, size_t n, ghz_dtype_t t,
                      double eb_abs, int has_fill, uint64_t fill_bits, char* msg,
                      size_t msg_len)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t bi = tu_bits(in, t, i), bo = tu_bits(out, t, i);
        int exact = (has_fill && bi == fill_bits) || !tu_is_finite_bits(t, bi) ||
                    eb_abs == 0.0;
        int ok = exact ? bi == bo : tu_within(tu_get(in, t, i), tu_get(out, t, i), eb_abs);
        if (!ok) {
            if (msg)
                snprintf(msg, msg_len,
                         "element %zu: in %.17g (0x%llx) out %.17g (0x%llx), |d| = %.17g, "
                         "eb_abs %.17g%s",
                         i, tu_get(in, t, i), (unsigned long long)bi, tu_get(out, t, i),
                         (unsigned long long)bo,
                         fabs(tu_get(in, t, i) - tu_get(out, t, i)), eb_abs,
                         exact ? " (must be bit-exact)" : "");
            return i;
        }
    }
    if (msg && msg_len) msg[0] = '\0';
    return (size_t)-1;
}

/* ---- codec shorthands ------------------------------------------------------------- */
ghz_params_t tu_params(ghz_dtype_t t, ghz_eb_mode_t mode, double eb)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    p.dtype = t;
    p.eb_mode = mode;
    p.eb = eb;
    p.nthreads = 1;
    return p;
}

unsigned char* tu_compress(const ghz_params_t* p, const void* src, size_t n, size_t* size)
{
    size_t cap = ghz_compress_bound(n, p->dtype) + (p->checksum ? GHZ_CHECKSUM_SIZE : 0u);
    unsigned char* dst;
    ghz_status_t st;
    cr_assert(cap >= GHZ_HEADER_SIZE, "ghz_compress_bound(%zu) = %zu", n, cap);
    dst = malloc(cap);
    cr_assert(dst != NULL);
    *size = 0;
    st = ghz_compress(p, src, n, dst, cap, size);
    cr_assert(st == GHZ_SUCCESS, "ghz_compress(n=%zu, dtype %d, mode %d, eb %g) = %d (%s): %s",
              n, (int)p->dtype, (int)p->eb_mode, p->eb, (int)st, ghz_status_string(st),
              ghz_last_error_detail());
    cr_assert(*size >= GHZ_HEADER_SIZE && *size <= cap, "frame size %zu, bound %zu", *size,
              cap);
    return dst;
}

void* tu_decompress(const void* src, size_t size, ghz_dtype_t t, size_t n)
{
    void* out = tu_alloc(t, n);
    size_t n_out = (size_t)-1;
    ghz_status_t st = ghz_decompress(src, size, out, n * ghz_dtype_size(t), &n_out);
    cr_assert(st == GHZ_SUCCESS, "ghz_decompress(%zu bytes) = %d (%s): %s", size, (int)st,
              ghz_status_string(st), ghz_last_error_detail());
    cr_assert(n_out == n, "n_out %zu, expected %zu", n_out, n);
    return out;
}

size_t tu_roundtrip(const ghz_params_t* p, const void* src, size_t n, double* eb_abs)
{
    size_t size, bad;
    unsigned char* c = tu_compress(p, src, n, &size);
    ghz_frame_info_t fi;
    ghz_status_t st = ghz_frame_info(c, size, &fi);
    void* out;
    char msg[512];
    cr_assert(st == GHZ_SUCCESS, "ghz_frame_info = %d", (int)st);
    cr_assert(fi.n == n && fi.frame_size == size && fi.dtype == p->dtype &&
                  fi.eb_mode == p->eb_mode,
              "frame info: n %llu size %llu dtype %d mode %d",
              (unsigned long long)fi.n, (unsigned long long)fi.frame_size, (int)fi.dtype,
              (int)fi.eb_mode);
    cr_assert(fi.eb_user == p->eb, "eb_user %.17g, asked %.17g", fi.eb_user, p->eb);
    if (p->eb_mode == GHZ_EB_ABS)
        cr_assert(fi.eb_abs == p->eb, "ABS: eb_abs %.17g != eb %.17g", fi.eb_abs, p->eb);
    out = tu_decompress(c, size, p->dtype, n);
    bad = tu_check_bound(src, out, n, p->dtype, fi.eb_abs, p->has_fill,
                         p->has_fill ? tu_bits_of(p->dtype, p->fill) : 0, msg, sizeof msg);
    cr_assert(bad == (size_t)-1, "dtype %d mode %d eb %g n %zu: %s", (int)p->dtype,
              (int)p->eb_mode, p->eb, n, msg);
    if (eb_abs) *eb_abs = fi.eb_abs;
    free(out);
    free(c);
    return size;
}

/* ---- FORMAT.md arithmetic ------------------------------------------------------- */
size_t tu_codes_bytes(uint64_t n)
{
    uint64_t nb = n / 32 + (n % 32 != 0);
    return (size_t)((nb + 15) / 16 * 16);
}

double tu_rel_bound(double rel, double vmin, double vmax)
{
    volatile double h, p;
    int k;
    if (!(vmax > vmin)) return 0.0; /* empty (NaN) or zero range: lossless */
    h = 0.5 * vmax - 0.5 * vmin;
    p = rel * h;
    p = p * 2.0;
    for (k = 0; k < 3; k++) p = nextafter(p, 0.0);
    return p;
}

int tu_rel_holds(double E, double rel, double vmin, double vmax)
{
    volatile long double a, b, r, d, p;
    int old = fegetround(), ok;
    fesetround(FE_DOWNWARD);
    a = vmax;
    b = vmin;
    r = rel;
    d = a - b; /* <= vmax - vmin (positive, rounded down) */
    p = r * d; /* <= rel * (vmax - vmin) */
    ok = (long double)E <= p;
    fesetround(old);
    return ok;
}

size_t tu_range(const void* a, ghz_dtype_t t, size_t n, int has_fill, uint64_t fill_bits,
                double* vmin, double* vmax)
{
    size_t i, count = 0;
    double lo = NAN, hi = NAN;
    for (i = 0; i < n; i++) {
        double v = tu_get(a, t, i);
        if (!isfinite(v) || (has_fill && tu_bits(a, t, i) == fill_bits)) continue;
        if (count == 0 || v < lo) lo = v;
        if (count == 0 || v > hi) hi = v;
        count++;
    }
    *vmin = lo;
    *vmax = hi;
    return count;
}

void tu_range_case(void* a, ghz_dtype_t t, size_t n, size_t at)
{
    const double big = t == GHZ_F64 ? DBL_MAX : FLT_MAX, tiny = t == GHZ_F64 ? DBL_TRUE_MIN : FLT_TRUE_MIN;
    size_t i;
    for (i = 0; i < n; i++) tu_set(a, t, i, (double)((i * 7) % 11) - 5.0 + tiny);
    if (!n) return;
    tu_set(a, t, at, at % 3 ? -big : big);
    tu_set(a, t, (at * 5 + 1) % n, at % 2 ? NAN : (at % 4 ? INFINITY : -INFINITY));
    tu_set(a, t, (at + n / 2) % n, at % 5 ? -0.0 : tiny);
}

uint64_t tu_rd(const unsigned char* p, unsigned bytes)
{
    uint64_t v = 0;
    unsigned k;
    for (k = 0; k < bytes; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

void tu_wr(unsigned char* p, uint64_t v, unsigned bytes)
{
    unsigned k;
    for (k = 0; k < bytes; k++) p[k] = (unsigned char)(v >> (8 * k));
}

/* ---- guard pages ------------------------------------------------------------------ */
unsigned char* tu_guard_copy(tu_guard_t* g, const void* src, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (size + page - 1) / page * page;
    if (body == 0) body = page;
    g->map_len = body + 2 * page;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                  0);
    cr_assert(g->map != MAP_FAILED, "mmap failed");
    cr_assert(mprotect(g->map, page, PROT_NONE) == 0);
    cr_assert(mprotect(g->map + page + body, page, PROT_NONE) == 0);
    g->data = g->map + page + body - size;
    g->size = size;
    if (size) memcpy(g->data, src, size);
    return g->data;
}

void tu_guard_free(tu_guard_t* g)
{
    if (g->map && g->map != MAP_FAILED) munmap(g->map, g->map_len);
    g->map = NULL;
}

/* ---- the independent encoder ------------------------------------------------------ */
tu_quant_t tu_quant_make(double eb_abs, int f32)
{
    tu_quant_t z;
    z.E = eb_abs;
    z.Q = f32 ? eb_abs * 1.9921875 : 2.0 * eb_abs; /* FORMAT.md: 2E, or E(2 - 2^-7) for f32 */
    z.R = eb_abs > 0.0 ? 1.0 / z.Q : 0.0;   /* rounded to nearest */
    z.f32 = f32;
    return z;
}

double tu_recon(const tu_quant_t* z, int32_t q)
{
    volatile double v = (double)q * z->Q;
    return z->f32 ? (double)(float)v : v;
}

int tu_quantize(const tu_quant_t* z, double x, int32_t* q)
{
    volatile double t, c, y;
    int64_t ci, c2;
    if (!(z->E > 0.0) || !isfinite(x)) return 0; /* step 1; E = 0: lossless */
    t = x * z->R;
    c = rint(t);
    /* step 2; also rejects c = NaN (x = 0 when R overflowed to Inf for a tiny E) */
    if (!(fabs(c) <= (double)TU_QMAX)) return 0;
    ci = (int64_t)c;
    y = tu_recon(z, (int32_t)ci);
    if (tu_within(x, y, z->E)) {                 /* step 4 */
        *q = (int32_t)ci;
        return 1;
    }
    c2 = x > y ? ci + 1 : ci - 1;
    if (c2 > TU_QMAX || c2 < -TU_QMAX) return 0;
    if (!tu_within(x, tu_recon(z, (int32_t)c2), z->E)) return 0;
    *q = (int32_t)c2;
    return 1;
}

uint32_t tu_zigzag(int32_t q)
{
    /* (q0 << 1) ^ (q0 >> 31) as u32, with an arithmetic right shift */
    uint32_t u = (uint32_t)q;
    uint32_t sign = q < 0 ? 0xFFFFFFFFu : 0u;
    return (u << 1) ^ sign;
}

size_t tu_quant_payload(const int32_t q[32], unsigned m, uint32_t fmask, unsigned char* out,
                        unsigned* code)
{
    int64_t d[32];
    uint64_t maxabs = 0;
    unsigned w = 0, c, i, k, zb;
    uint32_t zz = tu_zigzag(q[0]), sign = 0;
    size_t pos = 0;
    (void)m;
    d[0] = 0;
    for (i = 1; i < 32; i++) {
        d[i] = (int64_t)q[i] - (int64_t)q[i - 1];
        if ((uint64_t)llabs(d[i]) > maxabs) maxabs = (uint64_t)llabs(d[i]);
    }
    while (w < 64 && (maxabs >> w) != 0) w++;
    c = zz == 0 ? 0 : zz < 256u ? 1 : zz < 65536u ? 2 : 3;
    zb = c == 3 ? 4 : c;
    if (fmask) {
        tu_wr(out + pos, fmask, 4);
        pos += 4;
    }
    tu_wr(out + pos, zz, zb);
    pos += zb;
    if (w > 0) {
        for (i = 0; i < 32; i++)
            if (d[i] < 0) sign |= 1u << i;
        tu_wr(out + pos, sign, 4);
        pos += 4;
        for (k = 0; k < w; k++) {
            uint32_t plane = 0;
            for (i = 0; i < 32; i++)
                if (((uint64_t)llabs(d[i]) >> k) & 1u) plane |= 1u << i;
            tu_wr(out + pos, plane, 4);
            pos += 4;
        }
    }
    *code = w | (c << 5) | (fmask ? 0x80u : 0u);
    return pos;
}

void tu_write_header(unsigned char* h, ghz_dtype_t t, ghz_eb_mode_t mode, double eb_user,
                     double eb_abs, int has_fill, uint64_t fill_bits, uint64_t n,
                     uint64_t payload_size)
{
    memset(h, 0, 64);
    h[0] = 0xF9;
    h[1] = 0x47;
    h[2] = 0x48;
    h[3] = 0x5A;
    tu_wr(h + 4, 2, 2); /* FORMAT.md: format_version 2 */
    tu_wr(h + 6, 64, 2);
    h[8] = (unsigned char)t;
    h[9] = (unsigned char)mode;
    h[10] = 5;
    h[11] = has_fill ? 1 : 0;
    tu_wr(h + 16, n, 8);
    tu_wr(h + 24, n / 32 + (n % 32 != 0), 8);
    tu_wr(h + 32, payload_size, 8);
    tu_wr(h + 40, tu_dbl_bits(eb_user), 8);
    tu_wr(h + 48, tu_dbl_bits(eb_abs), 8);
    tu_wr(h + 56, has_fill ? fill_bits : 0, 8);
}

size_t tu_build_frame(unsigned char* out, ghz_dtype_t t, ghz_eb_mode_t mode, double eb_user,
                      double eb_abs, int has_fill, uint64_t fill_bits, uint64_t n,
                      const unsigned char* codes, const unsigned char* payload,
                      size_t payload_size)
{
    size_t nb = (size_t)(n / 32 + (n % 32 != 0)), cb = tu_codes_bytes(n);
    tu_write_header(out, t, mode, eb_user, eb_abs, has_fill, fill_bits, n, payload_size);
    memset(out + 64, 0, cb);
    if (nb) memcpy(out + 64, codes, nb);
    if (payload_size) memcpy(out + 64 + cb, payload, payload_size);
    return 64 + cb + payload_size;
}

/* The spec encoder; v02: a frame without a declared fill stays without one, as writers
 * before 0.3 wrote it (NaN an ordinary value). */
static size_t ref_compress(const ghz_params_t* p, const void* src, size_t n, unsigned char* out, int v02)
{
    ghz_dtype_t t = p->dtype;
    size_t es = ghz_dtype_size(t), nb = (n + 31) / 32, cb = tu_codes_bytes(n), b;
    /* FORMAT.md, NaN as the fill value: without a declared fill, the canonical quiet NaN */
    const int has_fill = p->has_fill || !v02;
    const uint64_t fb = p->has_fill ? tu_bits_of(t, p->fill)
                        : !v02     ? (t == GHZ_F32 ? 0x7FC00000u : 0x7FF8000000000000ull)
                                   : 0;
    double E;
    tu_quant_t z;
    unsigned char* codes = out + 64;
    unsigned char* pay = out + 64 + cb;
    size_t pos = 0;
    if (p->eb_mode == GHZ_EB_ABS) {
        E = p->eb;
    } else {
        double lo, hi;
        if (p->has_range) {
            lo = p->range_min;
            hi = p->range_max;
        } else {
            tu_range(src, t, n, has_fill, fb, &lo, &hi);
        }
        E = tu_rel_bound(p->eb, lo, hi);
    }
    z = tu_quant_make(E, t == GHZ_F32);
    memset(codes, 0, cb);
    for (b = 0; b < nb; b++) {
        size_t lo = 32 * b;
        unsigned m = (unsigned)(n - lo < 32 ? n - lo : 32), i;
        int32_t q[32];
        uint32_t fmask = 0;
        unsigned nfill = 0, all_q = 1, same = 1, first = 32;
        for (i = 0; i < m; i++) {
            uint64_t bits = tu_bits(src, t, lo + i);
            if (has_fill && bits == fb) {
                fmask |= 1u << i;
                nfill++;
                continue;
            }
            if (first == 32) first = i;
            if (!tu_quantize(&z, tu_get(src, t, lo + i), &q[i])) all_q = 0;
        }
        for (i = 1; i < m; i++)
            if (tu_bits(src, t, lo + i) != tu_bits(src, t, lo)) same = 0;
        if (has_fill && nfill == m) { /* 1. FILLED */
            codes[b] = 0x5F;
            continue;
        }
        if (all_q) { /* 2. QUANT unless larger than RAW */
            unsigned code;
            unsigned char tmp[4 + 4 + 4 + 4 * 32];
            size_t sz;
            int32_t prev = q[first];
            for (i = 0; i < m; i++) {
                if (fmask >> i & 1u) q[i] = prev; /* leading fills take q[first] */
                else prev = q[i];
            }
            for (i = m; i < 32; i++) q[i] = q[m - 1];
            sz = tu_quant_payload(q, m, fmask, tmp, &code);
            if (sz <= m * es) {
                codes[b] = (unsigned char)code;
                memcpy(pay + pos, tmp, sz);
                pos += sz;
                continue;
            }
        } else if (same) { /* 3. CONST */
            codes[b] = 0x3F;
            memcpy(pay + pos, (const unsigned char*)src + lo * es, es);
            pos += es;
            continue;
        }
        codes[b] = 0x1F; /* 4. RAW */
        memcpy(pay + pos, (const unsigned char*)src + lo * es, m * es);
        pos += m * es;
    }
    tu_write_header(out, t, p->eb_mode, p->eb, E, has_fill, fb, n, pos);
    return 64 + cb + pos;
}

size_t tu_ref_compress(const ghz_params_t* p, const void* src, size_t n, unsigned char* out)
{
    return ref_compress(p, src, n, out, 0);
}

size_t tu_ref_compress_v02(const ghz_params_t* p, const void* src, size_t n, unsigned char* out)
{
    return ref_compress(p, src, n, out, 1);
}
