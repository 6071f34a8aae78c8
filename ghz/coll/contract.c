/* ghz/coll/contract.c: what every call shares before and after it runs (COLL.md, Errors). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* *out = acc read through its struct_size, checked. */
static ghz_status_t coll_read_accuracy(const ghz_accuracy_t* acc, ghz_dtype_t dtype, ghz_accuracy_t* out)
{
    ghz_accuracy_t d = GHZ_ACCURACY_INIT;
    if (acc->struct_size < offsetof(ghz_accuracy_t, path) + sizeof(ghz_path_t) || acc->struct_size > (size_t)1 << 16)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_accuracy_t.struct_size %zu: use GHZ_ACCURACY_INIT", acc->struct_size);
    memcpy(&d, acc, sizeof d < acc->struct_size ? sizeof d : acc->struct_size);
    *out = d;
    if (d.mode != GHZ_EB_ABS && d.mode != GHZ_EB_REL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown accuracy mode %d", (int)d.mode);
    if (!(d.bound > 0.0) || !isfinite(d.bound))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "accuracy bound %g: must be finite and > 0", d.bound);
    if ((unsigned)d.path > GHZ_PATH_RATIO)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown path %d", (int)d.path);
    if (dtype != GHZ_F32 && dtype != GHZ_F64)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the lossy path takes float32 or float64, not %s", ghz_dtype_name(dtype));
    return GHZ_SUCCESS;
}

int coll_rooted(const coll_desc_t* k)
{
    return k->ops ? k->ops->rooted : k->mv->rooted;
}

/* The span [lo, hi) of one side's blocks (elements) and the longest block; a buffer's
 * size must be a valid pointer difference. */
static ghz_status_t measure(const ghz_comm_t* c, const coll_layout_t* lay, ghz_dtype_t t, size_t* lo, size_t* hi,
                            size_t* longest)
{
    const size_t max = (size_t)PTRDIFF_MAX / ghz_dtype_size(t);
    const int nb = lay->single ? 1 : c->size;
    int p;
    *lo = SIZE_MAX;
    *hi = 0;
    if ((lay->single || !lay->cnt) && lay->count > max / (size_t)nb)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "count %zu of %s%s: the buffer would exceed PTRDIFF_MAX bytes", lay->count,
                        ghz_dtype_name(t), nb > 1 ? " per rank" : "");
    for (p = 0; p < nb; p++) {
        const size_t n = coll_lay_cnt(lay, p), d = coll_lay_displ(lay, p);
        if (n > max || d > max - n)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "block %d: %zu elements at %zu exceed PTRDIFF_MAX bytes", p, n, d);
        if (n > *longest) *longest = n;
        if (!n) continue;
        if (d < *lo) *lo = d;
        if (d + n > *hi) *hi = d + n;
    }
    return GHZ_SUCCESS;
}

ghz_status_t coll_check_args(const ghz_comm_t* c, coll_desc_t* k, const char* name, const char* in_place_forms)
{
    const size_t e = ghz_dtype_size(k->dtype);
    size_t slo = 0, rlo = 0, l = 0, *shi = &k->send_end, *rhi = &k->recv_end;
    ghz_status_t st;
    *shi = *rhi = 0;
    if (!e) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)k->dtype);
    if (k->acc && (st = coll_read_accuracy(k->acc, k->dtype, &k->a)) != GHZ_SUCCESS) return st;
    if (coll_rooted(k) && (k->root < 0 || k->root >= c->size))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "root %d of %d ranks", k->root, c->size);
    if (k->sends && (st = measure(c, &k->send, k->dtype, &slo, shi, &l)) != GHZ_SUCCESS) return st;
    if (k->recvs && (st = measure(c, &k->recv, k->dtype, &rlo, rhi, &l)) != GHZ_SUCCESS) return st;
    if (*shi && !k->in) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL sendbuf");
    if (*rhi && !k->out) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL recvbuf");
    /* The algorithms read one side while they write the other. The spans from first to
     * last block are compared, so a send side in a gap between receive blocks is refused
     * too. */
    if (*shi && *rhi && !k->in_place) {
        const uintptr_t s0 = (uintptr_t)k->in + slo * e, s1 = (uintptr_t)k->in + *shi * e;
        const uintptr_t r0 = (uintptr_t)k->out + rlo * e, r1 = (uintptr_t)k->out + *rhi * e;
        if (s0 < r1 && r0 < s1)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "%s: sendbuf and recvbuf overlap without being in place (in place: %s)",
                            name, in_place_forms);
    }
    k->longest = l;
    k->farthest = *shi > *rhi ? *shi : *rhi;
    return GHZ_SUCCESS;
}

void coll_call_begin(ghz_comm_t* c)
{
    c->tp.seq = ++c->calls;
    c->moving = 0;
}

ghz_status_t coll_call_end(ghz_comm_t* c, ghz_status_t st)
{
    if (c) {
        c->be.capturing = 0;
        if (st != GHZ_SUCCESS && c->broken == GHZ_SUCCESS && (c->moving || st == GHZ_ERR_MPI)) c->broken = st;
    }
    if (st == GHZ_SUCCESS) ghz_clear_detail();
    return st;
}
