/* ghz/tools/coll_bench/data.c: synthetic fields and raw files.
 *
 * The synthetic field of rank r at element i is
 *     0.25 + 0.9 S(i/517 + 0.11 r + 0.05) + 0.4 S(i/61 + 0.37 r) + 0.02 noise(r, i)
 * with S(t) = sin(2 pi t) and noise a hash of (r, i) in [-1, 1): smooth like a
 * simulation field, different on every rank, never constant, and zero only by
 * accident. S is a fixed polynomial of the reduced phase built from + - * and floor
 * alone, so every rank computes the same bits whatever libm it links: the reference
 * regenerates the other ranks' input and must match it exactly. Integer types take
 * the field scaled (store_int). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"

/* sin(2 pi t) within ~4e-6: the phase is reduced to [-1/4, 1/4] of a cycle by the
 * symmetries of the sine, then a degree-9 Taylor polynomial. */
static double wave(double t)
{
    const double two_pi = 6.283185307179586;
    double f = t - floor(t), u, u2;
    if (f < 0.25) u = two_pi * f;
    else if (f < 0.75) u = two_pi * (0.5 - f);
    else u = two_pi * (f - 1.0);
    u2 = u * u;
    return u * (1.0 - u2 / 6.0 * (1.0 - u2 / 20.0 * (1.0 - u2 / 42.0 * (1.0 - u2 / 72.0))));
}

/* splitmix64 of (rank, i): uniform in [-1, 1). */
static double noise(int rank, size_t i)
{
    uint64_t z = (uint64_t)i + 0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double field(int rank, size_t i)
{
    double x = (double)i;
    return 0.25 + 0.9 * wave(x / 517.0 + 0.11 * rank + 0.05) + 0.4 * wave(x / 61.0 + 0.37 * rank) +
           0.02 * noise(rank, i);
}

/* The field as an integer of dtype. 8- and 16-bit types take 1/n of their range per
 * rank, so that a SUM over the n ranks never overflows: MPI leaves overflow undefined
 * and Open MPI 4.1's AVX reductions saturate 8- and 16-bit sums where ghz wraps
 * (open-mpi/ompi#8045), which would make the MPI rows disagree for a reason that is
 * not a bug. 32- and 64-bit types use most of their range, so their sums and products
 * do wrap, the same way in ghz and in MPI. |field| < 1.6. */
static void store_int(double v, ghz_dtype_t t, int nranks, void* out, size_t j)
{
    double u = (v + 1.1) / 2.7, n = nranks; /* u in (0, 1) */
    switch (t) {
    case GHZ_I8: ((int8_t*)out)[j] = (int8_t)floor((2.0 * u - 1.0) * (127.0 / n)); break;
    case GHZ_U8: ((uint8_t*)out)[j] = (uint8_t)floor(u * (255.0 / n)); break;
    case GHZ_I16: ((int16_t*)out)[j] = (int16_t)floor((2.0 * u - 1.0) * (32767.0 / n)); break;
    case GHZ_U16: ((uint16_t*)out)[j] = (uint16_t)floor(u * (65535.0 / n)); break;
    case GHZ_I32: ((int32_t*)out)[j] = (int32_t)floor(v * 5e8 + 0.5); break;
    case GHZ_U32: ((uint32_t*)out)[j] = (uint32_t)floor(v * 5e8 + 1.5e9 + 0.5); break;
    case GHZ_I64: ((int64_t*)out)[j] = (int64_t)floor(v * 1e15 + 0.5); break;
    case GHZ_U64: ((uint64_t*)out)[j] = (uint64_t)floor(v * 1e15 + 3e15 + 0.5); break;
    default: break;
    }
}

static double file_value(const cb_data_t* d, int f, size_t i)
{
    size_t k = i % d->n[f];
    return d->file_type == GHZ_F32 ? (double)((const float*)d->vals[f])[k]
                                   : ((const double*)d->vals[f])[k];
}

void cb_data_fill(const cb_data_t* d, int rank, size_t first, size_t n, ghz_dtype_t dtype,
                  void* out)
{
    size_t j;
    if (d->nfiles > 0) {
        int f = rank % d->nfiles;
        /* f32 -> double is exact, double -> float rounds to nearest: the same
         * conversion on every rank. */
        for (j = 0; j < n; ++j) {
            double v = file_value(d, f, first + j);
            if (dtype == GHZ_F32) ((float*)out)[j] = (float)v;
            else ((double*)out)[j] = v;
        }
        return;
    }
    for (j = 0; j < n; ++j) {
        double v = field(rank, first + j);
        if (dtype == GHZ_F32) ((float*)out)[j] = (float)v;
        else if (dtype == GHZ_F64) ((double*)out)[j] = v;
        else store_int(v, dtype, d->nranks, out, j);
    }
}

static int host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static int load_file(cb_data_t* d, int f, size_t max_elems, char* err, size_t errlen)
{
    size_t esz = ghz_dtype_size(d->file_type), want, got;
    long long bytes;
    FILE* fp = fopen(d->names[f], "rb");
    if (!fp || fseeko(fp, 0, SEEK_END) != 0 || (bytes = (long long)ftello(fp)) < 0 ||
        fseeko(fp, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "%s: cannot open or size the file", d->names[f]);
        if (fp) fclose(fp);
        return -1;
    }
    if (bytes == 0 || (unsigned long long)bytes % esz != 0) {
        snprintf(err, errlen, "%s: %lld bytes is not a whole, non-empty number of %s values",
                 d->names[f], bytes, d->file_type == GHZ_F32 ? "f32" : "f64");
        fclose(fp);
        return -1;
    }
    d->total[f] = (uint64_t)bytes / esz;
    want = d->total[f] < max_elems ? (size_t)d->total[f] : max_elems;
    d->vals[f] = malloc(want * esz);
    got = d->vals[f] ? fread(d->vals[f], esz, want, fp) : 0;
    fclose(fp);
    if (got != want) {
        snprintf(err, errlen, "%s: read failed (%zu of %zu values)", d->names[f], got, want);
        return -1;
    }
    d->n[f] = want;
    return 0;
}

int cb_data_open(cb_data_t* d, const cb_args_t* a, int rank, int nranks, int need_all,
                 size_t max_elems, char* err, size_t errlen)
{
    int f;
    memset(d, 0, sizeof *d);
    d->nranks = nranks;
    if (a->nraw == 0) return 0;
    if (!host_little_endian()) {
        snprintf(err, errlen, "--raw reads little-endian files; this host is big-endian");
        return -1;
    }
    d->nfiles = a->nraw;
    d->names = a->raw;
    d->file_type = a->raw_type;
    d->vals = calloc((size_t)d->nfiles, sizeof *d->vals);
    d->n = calloc((size_t)d->nfiles, sizeof *d->n);
    d->total = calloc((size_t)d->nfiles, sizeof *d->total);
    if (!d->vals || !d->n || !d->total) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (max_elems == 0) max_elems = 1;
    for (f = 0; f < d->nfiles; ++f)
        if ((need_all || f == rank % d->nfiles) && load_file(d, f, max_elems, err, errlen) != 0)
            return -1;
    return 0;
}

void cb_data_close(cb_data_t* d)
{
    int f;
    for (f = 0; f < d->nfiles && d->vals; ++f) free(d->vals[f]);
    free(d->vals);
    free(d->n);
    free(d->total);
    memset(d, 0, sizeof *d);
}

void cb_data_describe(const cb_data_t* d, char* buf, size_t len)
{
    size_t used;
    int f;
    if (d->nfiles == 0) {
        snprintf(buf, len,
                 "synthetic (per rank: 0.25 + 0.9 sin(2pi(i/517 + 0.11r + 0.05)) + "
                 "0.4 sin(2pi(i/61 + 0.37r)) + 0.02 noise(r,i))");
        return;
    }
    used = (size_t)snprintf(buf, len, "%d %s file%s (rank r reads file r mod %d, tiled):",
                            d->nfiles, d->file_type == GHZ_F32 ? "f32" : "f64",
                            d->nfiles > 1 ? "s" : "", d->nfiles);
    for (f = 0; f < d->nfiles && used < len; ++f) {
        if (d->vals[f])
            used += (size_t)snprintf(buf + used, len - used, " %s (%llu values)", d->names[f],
                                     (unsigned long long)d->total[f]);
        else
            used += (size_t)snprintf(buf + used, len - used, " %s", d->names[f]);
    }
}
