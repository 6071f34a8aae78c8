/* test/unit/test_nanmask.c: a NaN-masked field costs what the same field with a declared
 * fill value costs (FORMAT.md, NaN as the fill value; issue 45 item 1). ocean2d of
 * datasets/ (1440 x 720, about 30 % land) with land as NaN, compressed without a fill,
 * against land as the declared fill -1e34: ratio >= 0.9x at REL 1e-2, 1e-3 and 1e-4 in
 * f32 and f64, every ocean value within the bound and every NaN bit for bit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"
#include "testutil.h"

/* The compressed size of x (n values of t) under REL rel; with `fill`, declared. */
static size_t frame_size(ghz_dtype_t t, const void* x, size_t n, double rel, int has_fill, double fill,
                         uint64_t* eb_bits)
{
    ghz_params_t p = tu_params(t, GHZ_EB_REL, rel);
    ghz_frame_info_t fi;
    size_t size = 0;
    unsigned char* c;
    void* y;
    char msg[512];
    p.has_fill = has_fill;
    p.fill = fill;
    c = tu_compress(&p, x, n, &size);
    cr_assert_eq(ghz_frame_info(c, size, &fi), GHZ_SUCCESS);
    y = tu_decompress(c, size, t, n);
    cr_assert(tu_check_bound(x, y, n, t, fi.eb_abs, fi.has_fill, fi.fill_bits, msg, sizeof msg) == (size_t)-1,
              "REL %g fill %d: %s", rel, has_fill, msg);
    *eb_bits = tu_dbl_bits(fi.eb_abs);
    free(y);
    free(c);
    return size;
}

Test(nanmask, ocean2d_nan_land_costs_what_declared_fill_costs)
{
    static const double rels[] = {1e-2, 1e-3, 1e-4};
    size_t dims[3], n, i, land = 0;
    int ti;
    cr_assert_eq(ghz_ds_default_dims("ocean2d", dims), GHZ_DS_OK);
    n = dims[0] * dims[1] * dims[2];
    for (ti = 0; ti < 2; ++ti) {
        const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
        const size_t es = ghz_dtype_size(t);
        const double fill = ti ? GHZ_DS_OCEAN_FILL_F64 : (double)GHZ_DS_OCEAN_FILL;
        const uint64_t fill_bits = tu_bits_of(t, fill);
        const uint64_t qnan = ti ? 0x7FF8000000000000ull : 0x7FC00000u;
        void* filled = malloc(n * es);
        void* masked;
        size_t r;
        if (ti)
            cr_assert_eq(ghz_ds_generate_f64("ocean2d", dims[0], dims[1], dims[2], 1, filled), GHZ_DS_OK);
        else
            cr_assert_eq(ghz_ds_generate("ocean2d", dims[0], dims[1], dims[2], 1, filled), GHZ_DS_OK);
        masked = malloc(n * es);
        memcpy(masked, filled, n * es);
        for (i = 0, land = 0; i < n; ++i)
            if (tu_bits(filled, t, i) == fill_bits) {
                tu_set_bits(masked, t, i, qnan); /* xarray's and numpy's NaN */
                land++;
            }
        cr_assert(land > n / 5 && land < n / 2, "land %zu of %zu", land, n);
        for (r = 0; r < sizeof rels / sizeof rels[0]; ++r) {
            uint64_t eb_f, eb_m;
            const size_t sf = frame_size(t, filled, n, rels[r], 1, fill, &eb_f);
            const size_t sm = frame_size(t, masked, n, rels[r], 0, 0.0, &eb_m);
            const double rf = (double)(n * es) / (double)sf, rm = (double)(n * es) / (double)sm;
            /* for the record: what 0.2 wrote for the NaN-masked field (NaN an ordinary value) */
            ghz_params_t p02 = tu_params(t, GHZ_EB_REL, rels[r]);
            unsigned char* old = malloc(ghz_compress_bound(n, t));
            const size_t s02 = tu_ref_compress_v02(&p02, masked, n, old);
            free(old);
            cr_log_info("ocean2d %s REL %g: ratio %.3f with land as NaN, %.3f with land as fill -1e34 (%.4fx); "
                        "0.2's frame of the NaN-masked field: %.3f",
                        ti ? "f64" : "f32", rels[r], rm, rf, rm / rf, (double)(n * es) / (double)s02);
            cr_assert_eq(eb_m, eb_f, "%s REL %g: the same range, so the same bound", ti ? "f64" : "f32", rels[r]);
            cr_assert(rm >= 0.9 * rf, "%s REL %g: ratio %.3f with NaN land, %.3f with a declared fill",
                      ti ? "f64" : "f32", rels[r], rm, rf);
        }
        free(masked);
        free(filled);
    }
}
