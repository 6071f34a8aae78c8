/* ghz/coll/exec.c: a plan executed on its route; then AVG's scaling and the call's info. */
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/nccl_move.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"
#ifdef GHZ_WITH_NCCL
#include "ghz/coll/detail/reduce_cuda.h"
#endif

static ghz_status_t own_block(ghz_comm_t* c, const coll_desc_t* k)
{
    const unsigned char* src;
    unsigned char* dst;
    const size_t bytes = coll_mv_own_block(c, k, &src, &dst);
    return bytes ? c->be.copy(&c->be, dst, src, bytes) : GHZ_SUCCESS;
}

#ifdef GHZ_WITH_NCCL
/* A reduction's NCCL exact call, or a data movement over NCCL. */
static ghz_status_t nccl_route(ghz_comm_t* c, const coll_desc_t* k, const coll_plan_t* p, coll_round_t* proto,
                               uint64_t* rounds)
{
    uint64_t sent = 0;
    ghz_status_t st;
    if (k->mv && p->mode != COLL_EXACT) return coll_nccl_move_lossy(c, k, p->extent, p->eb, proto, rounds);
    if (k->mv) st = coll_nccl_move_exact(c, k, p->extent, &sent);
    else {
        sent = (uint64_t)k->total * ghz_dtype_size(k->dtype);
        st = coll_nccl_exact(c, (coll_nccl_kind_t)k->ops->nccl_kind, k->in, k->out, k->count, k->dtype, k->op, k->root,
                             k->stream);
    }
    proto->logical_bytes = proto->wire_bytes = sent;
    return st;
}
#endif

static ghz_status_t scale_avg(ghz_comm_t* c, const coll_desc_t* k)
{
    if (k->mv || k->op != GHZ_OP_AVG || !coll_has_out(c, k)) return GHZ_SUCCESS;
#ifdef GHZ_WITH_NCCL
    if (c->nccl) return ghz_coll_scale_cuda(k->out, k->count, k->dtype, 1.0 / c->size, (cudaStream_t)k->stream);
#endif
    return c->be.scale(&c->be, k->out, k->count, k->dtype, 1.0 / c->size);
}

ghz_status_t coll_execute(ghz_comm_t* c, const coll_desc_t* k, const coll_plan_t* p, ghz_coll_info_t* info,
                          double* ratio)
{
    const size_t e = ghz_dtype_size(k->dtype);
    coll_round_t proto;
    uint64_t rounds = p->route != COLL_ROUTE_NONE && p->route != COLL_ROUTE_HOST && p->route != COLL_ROUTE_SELF;
    ghz_status_t st = GHZ_SUCCESS;
    *ratio = 0.0;
    coll_proto_init(c, k, p->mode, p->eb, &proto);
    proto.ratio_frames = p->ratio_frames;
#ifdef GHZ_WITH_NCCL
    if (c->nccl && (p->route == COLL_ROUTE_TWO_LEVEL || p->route == COLL_ROUTE_ROUNDS)) coll_nccl_call_reset(c);
#endif
    switch (p->route) {
    case COLL_ROUTE_NONE:
    case COLL_ROUTE_HOST: /* (host_path.c) */
        break;
    case COLL_ROUTE_SELF: /* (AVG: divided by 1, exactly) */
        if (k->mv) st = own_block(c, k);
        else if (k->out && k->out != k->in) st = c->be.copy(&c->be, k->out, k->in, k->count * e);
        break;
    case COLL_ROUTE_NCCL:
#ifdef GHZ_WITH_NCCL
        st = nccl_route(c, k, p, &proto, &rounds);
#else
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "the NCCL transport is not in this build");
#endif
        break;
    case COLL_ROUTE_MPI:
        if (!k->mv) st = coll_mpi_allreduce(c, k, &proto);
        else {
            /* (MPI moves a rank's own block too, but where its call reads only the
             * output: MPI_Bcast's root, which fills it first) */
            st = k->mv->mpi_from_out ? own_block(c, k) : GHZ_SUCCESS;
            if (st == GHZ_SUCCESS) st = coll_mpi_move(c, k);
            proto.logical_bytes = proto.wire_bytes = p->extent * e * (uint64_t)(c->size - 1);
        }
        break;
    case COLL_ROUTE_TWO_LEVEL:
        st = coll_two_level(c, k, p->mode, p->eb, p->algo, &proto, c->nccl ? ratio : NULL);
        break;
    case COLL_ROUTE_ROUNDS:
        st = k->mv ? own_block(c, k) : GHZ_SUCCESS;
        if (st == GHZ_SUCCESS)
            st = coll_run_rounds(c, k, &proto, p->algo,
                                 k->mv ? p->extent : k->ops->extent ? k->ops->extent(c, k) : k->count, &rounds);
#ifdef GHZ_WITH_NCCL
        if (c->nccl) *ratio = coll_nccl_call_ratio(c);
#endif
        break;
    }
    if (st == GHZ_SUCCESS && p->route != COLL_ROUTE_SELF && p->route != COLL_ROUTE_NONE) st = scale_avg(c, k);
    if (st != GHZ_SUCCESS) return st;
    info->algo = p->algo;
    info->path = p->mode == COLL_EXACT ? GHZ_PATH_AUTO
                 : p->ratio_frames  ? GHZ_PATH_RATIO
                 : p->mode == COLL_DOC || (k->ops && k->a.path == GHZ_PATH_DOC) ? GHZ_PATH_DOC
                                                                                  : GHZ_PATH_HOMO;
    info->logical_bytes = proto.logical_bytes;
    info->wire_bytes = proto.wire_bytes;
    info->rounds = rounds;
    info->time_compress = proto.t_comp;
    info->time_combine = proto.t_comb;
    info->time_decompress = proto.t_dec;
    info->time_stage = proto.t_stage;
    info->time_transfer = proto.t_xfer;
    /* (over NCCL already the same on every rank) */
    if (!c->nccl && p->mode != COLL_EXACT && proto.wire_bytes > 0)
        *ratio = (double)proto.logical_bytes / (double)proto.wire_bytes;
    return GHZ_SUCCESS;
}
