/* ghz/tools/cli/pipeline.c: chunk, compress, write, and optionally decompress and
 * compare. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "pipeline.h"
#include "progress.h"

/* Grows *buf to at least `size` bytes. New memory is not touched here: the coder
 * touches what it writes, which for a frame is often a small part of its bound. */
static int reserve(unsigned char** buf, size_t* cap, size_t size, const char* what)
{
    unsigned char* p;
    if (size == 0) size = 1; /* never hand the library a NULL buffer, even for n = 0 */
    if (size <= *cap) return 0;
    p = (unsigned char*)(*buf ? realloc(*buf, size) : cli_alloc_large(size));
    if (!p) return cli_fail(GHZ_ERR_NOMEM, NULL, "%s: %zu bytes", what, size);
    *buf = p;
    *cap = size;
    return 0;
}

static int not_whole_values(const cli_pipeline* pl, uint64_t bytes)
{
    char why[160];
    snprintf(why, sizeof why, "%llu bytes is not a whole number of %s values",
             (unsigned long long)bytes, cli_dtype_name(pl->params.dtype));
    return cli_fail(GHZ_ERR_TRUNCATED, why, "%s", pl->in->name);
}

static int wrong_count(const cli_pipeline* pl, uint64_t n)
{
    char why[160];
    snprintf(why, sizeof why, "the input holds %llu values, the dimensions say %llu",
             (unsigned long long)n, (unsigned long long)pl->dims_n);
    return cli_fail(GHZ_ERR_INVALID_ARG, why, "%s", pl->in->name);
}

/* Merges the range of n values into [*lo, *hi] (NaN = empty). */
static int merge_range(cli_pipeline* pl, const void* src, size_t n, double* lo, double* hi)
{
    double a, b, t = cli_now();
    uint64_t count;
    ghz_status_t st = ghz_value_range(&pl->params, src, n, &a, &b, &count);
    pl->t_compress += cli_now() - t; /* part of compressing, as in ghz_compress */
    if (st != GHZ_SUCCESS) return cli_fail_lib(st, "%s: value range", pl->in->name);
    if (count) {
        if (!(a >= *lo)) *lo = a;
        if (!(b <= *hi)) *hi = b;
    }
    return 0;
}

/* REL: the global range, from a first pass over a regular file, or from the whole
 * input read into *mem. */
static int global_range(cli_pipeline* pl, size_t chunk_bytes, unsigned char** mem,
                        size_t* mem_size)
{
    size_t elem = ghz_dtype_size(pl->params.dtype), got, cap = 0;
    double lo = NAN, hi = NAN;
    int rc = 0;
    cli_progress prog;

    if (pl->in->regular) {
        unsigned char* buf = NULL;
        cli_progress_start(&prog, pl->progress, "scan", pl->in->size);
        for (;;) {
            if ((rc = cli_in_read_grow(pl->in, &buf, &cap, 0, chunk_bytes, &got)) != 0) break;
            if (got % elem) {
                rc = not_whole_values(pl, pl->in->pos);
                break;
            }
            if (got && (rc = merge_range(pl, buf, got / elem, &lo, &hi)) != 0) break;
            cli_progress_update(&prog, pl->in->pos);
            if (got < chunk_bytes) break;
        }
        cli_progress_end(&prog);
        free(buf);
        if (rc == 0) rc = cli_in_check_whole(pl->in);
        if (rc == 0) rc = cli_in_rewind(pl->in);
    } else {
        size_t off;
        pl->whole_in_memory = 1;
        rc = cli_in_read_grow(pl->in, mem, &cap, 0, SIZE_MAX, mem_size);
        if (rc == 0 && *mem_size % elem) rc = not_whole_values(pl, *mem_size);
        for (off = 0; rc == 0 && off < *mem_size; off += chunk_bytes) {
            size_t k = *mem_size - off < chunk_bytes ? *mem_size - off : chunk_bytes;
            rc = merge_range(pl, *mem + off, k / elem, &lo, &hi);
        }
    }
    pl->params.has_range = 1;
    pl->params.range_min = lo;
    pl->params.range_max = hi;
    pl->range_min = lo;
    pl->range_max = hi;
    return rc;
}

/* REL without --fill: a fill value in the input (|x| >= 1e30, as -1e34 or netCDF's
 * 9.96921e36) sets the range, and so the bound of every other value, which may then be
 * off by eb times it while the PSNR still looks fine. Warned once, with the fix; the
 * frames are written as asked. */
static void fill_warning(const cli_pipeline* pl)
{
    double lo = pl->range_min, hi = pl->range_max, big;
    if (pl->params.has_fill || !(fabs(lo) >= 1e30 || fabs(hi) >= 1e30)) return;
    big = fabs(lo) >= fabs(hi) ? lo : hi;
    cli_note("ghz-cli: %s: warning: REL without --fill, and the input holds %g: if that is a fill "
             "value, it sets the range (%g .. %g) and so the bound of every other value "
             "(%g); give --fill %g to keep such values exact and out of the range",
             pl->in->name, big, lo, hi, pl->params.eb * (hi - lo), big);
}

/* The frame's bytes at most: exact for fixed rate; 0 beyond size_t. */
static size_t frame_bound(const cli_pipeline* pl, size_t n)
{
    size_t bound;
    if (pl->fixed_bits) return ghz_fixed_size(n, pl->fixed_bits);
    bound = ghz_compress_bound(n, pl->params.dtype);
    return bound && bound <= SIZE_MAX - GHZ_CHECKSUM_SIZE ? bound + GHZ_CHECKSUM_SIZE : 0;
}

/* Compresses one chunk of n values, writes the frame and, when asked, decompresses
 * and compares it. */
static int one_frame(cli_pipeline* pl, const unsigned char* src, size_t n, unsigned char** cbuf,
                     size_t* ccap, unsigned char** dbuf, size_t* dcap)
{
    size_t elem = ghz_dtype_size(pl->params.dtype), csize = 0, nout = 0;
    size_t bound = frame_bound(pl, n);
    ghz_frame_info_t info;
    ghz_status_t st;
    double t;
    int rc;

    if (bound == 0)
        return cli_fail(GHZ_ERR_NOMEM, "frame larger than the address space", "%s: frame %llu",
                        pl->in->name, (unsigned long long)pl->frames);
    if ((rc = reserve(cbuf, ccap, bound, "compression buffer")) != 0) return rc;
    /* The backend's own buffers (GPU memory) grow here, outside the timed calls. */
    st = cli_backend_prepare(pl->backend, pl->params.dtype, n);
    if (st != GHZ_SUCCESS)
        return cli_fail(st, pl->backend->detail, "%s: frame %llu", pl->in->name,
                        (unsigned long long)pl->frames);
    t = cli_now();
    if (pl->fixed_bits)
        st = cli_backend_compress_fixed(pl->backend, pl->params.dtype, pl->fixed_bits, src, n,
                                        *cbuf, *ccap, &csize);
    else
        st = cli_backend_compress(pl->backend, &pl->params, src, n, *cbuf, *ccap, &csize);
    pl->t_compress += cli_now() - t;
    if (st != GHZ_SUCCESS) {
        rc = cli_fail(st, pl->backend->detail, "%s: compress frame %llu", pl->in->name,
                      (unsigned long long)pl->frames);
        /* A REL bound too large for the data's range is still the bound the user gave:
         * a usage error, as every other bad bound is. */
        return st == GHZ_ERR_BAD_BOUND ? CLI_ERR_USAGE : rc;
    }
    memset(&info, 0, sizeof info); /* a fixed-rate frame has no bound nor fill */
    if (!pl->fixed_bits && (st = ghz_frame_info(*cbuf, csize, &info)) != GHZ_SUCCESS)
        return cli_fail_lib(st, "%s: frame %llu", pl->in->name, (unsigned long long)pl->frames);
    if (pl->frames == 0 || info.eb_abs < pl->eb_abs_min) pl->eb_abs_min = info.eb_abs;
    if (pl->frames == 0 || info.eb_abs > pl->eb_abs_max) pl->eb_abs_max = info.eb_abs;
    if (pl->cmp && (rc = cli_out_write(pl->cmp, *cbuf, csize)) != 0) return rc;
    pl->cmp_bytes += csize;
    pl->frames++;
    if (!pl->dec && !pl->metrics) return 0;

    if ((rc = reserve(dbuf, dcap, n * elem, "decompression buffer")) != 0) return rc;
    t = cli_now();
    st = cli_backend_decompress(pl->backend, *cbuf, csize, *dbuf, n * elem, &nout);
    pl->t_decompress += cli_now() - t;
    if (st != GHZ_SUCCESS)
        return cli_fail(st, pl->backend->detail, "%s: decompress frame %llu", pl->in->name,
                        (unsigned long long)(pl->frames - 1));
    if (nout != n)
        return cli_fail(GHZ_ERR_CORRUPT, "decoded value count differs", "%s: frame %llu",
                        pl->in->name, (unsigned long long)(pl->frames - 1));
    if (pl->metrics && pl->fixed_bits)
        cli_metrics_add_fixed(pl->metrics, pl->params.dtype, pl->fixed_bits, src, *dbuf, n);
    else if (pl->metrics)
        cli_metrics_add(pl->metrics, pl->params.dtype, src, *dbuf, n, info.has_fill,
                        info.fill_bits, info.eb_abs);
    if (pl->dec && (rc = cli_out_write(pl->dec, *dbuf, n * elem)) != 0) return rc;
    return 0;
}

/* With --prefer ratio and dimensions: values per slab of the slowest dimension (1-D:
 * 0, frames are cut anywhere) and which extent counts the slabs. */
static uint64_t slab_of(const cli_pipeline* pl, unsigned* slow)
{
    unsigned d;
    *slow = 0;
    if (pl->params.prefer != GHZ_PREFER_RATIO || !pl->has_dims) return 0;
    for (d = 0; d < 3; ++d)
        if (pl->dims[d] > 1) *slow = d;
    if (*slow == 0) return 0;
    return *slow == 2 ? pl->dims[0] * pl->dims[1] : pl->dims[0];
}

int cli_pipeline_run(cli_pipeline* pl)
{
    size_t elem = ghz_dtype_size(pl->params.dtype);
    unsigned slow;
    const uint64_t slab = slab_of(pl, &slow);
    /* whole slabs per frame (at least one), so that every frame keeps the shape */
    const uint64_t frame_elems =
        slab ? (pl->frame_elems / slab ? pl->frame_elems / slab : 1) * slab : pl->frame_elems;
    size_t chunk_bytes = (size_t)frame_elems * elem; /* fits: checked by args.c */
    unsigned char *mem = NULL, *ibuf = NULL, *cbuf = NULL, *dbuf = NULL;
    size_t mem_size = 0, mem_off = 0, icap = 0, ccap = 0, dcap = 0;
    uint64_t total = CLI_SIZE_UNKNOWN, done = 0;
    cli_progress prog;
    int rc = 0;

    pl->n = pl->frames = pl->cmp_bytes = 0;
    pl->t_compress = pl->t_decompress = 0.0;
    pl->range_min = pl->range_max = NAN;
    pl->whole_in_memory = 0;
    pl->params.has_range = 0;

    if (pl->in->regular) {
        total = pl->in->size;
        if (total % elem) return not_whole_values(pl, total);
        if (pl->has_dims && total / elem != pl->dims_n) return wrong_count(pl, total / elem);
    }
    if (!pl->fixed_bits && pl->params.eb_mode == GHZ_EB_REL) {
        if ((rc = global_range(pl, chunk_bytes, &mem, &mem_size)) != 0) goto done;
        fill_warning(pl);
        if (pl->whole_in_memory) total = mem_size;
    }

    cli_progress_start(&prog, pl->progress, pl->label, total);
    for (;;) {
        const unsigned char* src;
        size_t got;
        if (pl->whole_in_memory) {
            got = mem_size - mem_off < chunk_bytes ? mem_size - mem_off : chunk_bytes;
            src = mem + mem_off;
            mem_off += got;
        } else {
            if ((rc = cli_in_read_grow(pl->in, &ibuf, &icap, 0, chunk_bytes, &got)) != 0) break;
            src = ibuf;
        }
        if (!src) src = (const unsigned char*)""; /* empty input: no buffer yet */
        if (got % elem) {
            rc = not_whole_values(pl, done + got);
            break;
        }
        if (got == 0 && pl->frames) break; /* an empty input still makes one frame */
        if (slab) {
            unsigned d;
            for (d = 0; d < 3; ++d) pl->params.dims[d] = (size_t)pl->dims[d];
            pl->params.dims[slow] = (size_t)(got / elem / slab);
            if ((got / elem) % slab) { /* a short file: wrong_count reports it below */
                pl->params.dims[0] = 0;
                pl->params.dims[1] = pl->params.dims[2] = 0;
            }
        }
        if ((rc = one_frame(pl, src, got / elem, &cbuf, &ccap, &dbuf, &dcap)) != 0) break;
        pl->n += got / elem;
        done += got;
        cli_progress_update(&prog, done);
        if (got < chunk_bytes) break;
    }
    cli_progress_end(&prog);
    if (rc == 0 && !pl->whole_in_memory) rc = cli_in_check_whole(pl->in);
    if (rc == 0 && pl->has_dims && pl->n != pl->dims_n) rc = wrong_count(pl, pl->n);
done:
    free(mem);
    free(ibuf);
    free(cbuf);
    free(dbuf);
    return rc;
}
