/* ghz/coll/two_level.c: the two-level allreduce: its stages on the child communicators
 * (inside nodes, across them), each the rounds of a whole call. */
#include <stdint.h>

#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* One stage of a two-level allreduce on a child communicator: the rounds of a whole
 * call, without its checks and agreement (the parent's call agreed for every rank,
 * and every rank of the child takes the stage with the same count). Its bytes and
 * times add to the parent's. */
static ghz_status_t child_stage(ghz_comm_t* cc, coll_kind_t kind, const unsigned char* in, unsigned char* out,
                                size_t count, const call_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                                coll_round_t* sum)
{
    call_t kk = coll_make_call(kind, in, out, count, k->dtype, k->op, 0, NULL, k->stream);
    coll_round_t p;
    uint64_t rounds = 0;
    ghz_status_t st;
    if (count == 0) return GHZ_SUCCESS;
    if (cc->size == 1) {
        /* a node of one rank: its reduction is its input */
        if (out && out != in && kind != KIND_BCAST && kind != KIND_AG_SPLIT)
            return cc->be.copy(&cc->be, out, in, count * ghz_dtype_size(k->dtype));
        return GHZ_SUCCESS;
    }
    kk.in = in;
    kk.out = out;
    kk.total = count;
    cc->tp.seq = ++cc->calls;
    coll_proto_init(cc, &kk, mode, eb, &p);
    st = coll_run_rounds(cc, &kk, &p, algo, &rounds);
    sum->wire_bytes += p.wire_bytes;
    /* an exact stage sends exactly what the uncompressed form would */
    sum->logical_bytes += mode == COLL_EXACT ? p.wire_bytes : p.logical_bytes;
    sum->t_comp += p.t_comp;
    sum->t_comb += p.t_comb;
    sum->t_dec += p.t_dec;
    sum->t_stage += p.t_stage;
    return st;
}

/* Every rank learns whether a stage failed anywhere (one small allreduce): the stages
 * run on different child communicators, so a failure must not leave a rank waiting
 * in the next one. */
static ghz_status_t stage_agree(ghz_comm_t* c, ghz_status_t st);

ghz_status_t coll_stage_agree(ghz_comm_t* c, ghz_status_t st)
{
    return stage_agree(c, st);
}

static ghz_status_t stage_agree(ghz_comm_t* c, ghz_status_t st)
{
    int mine = (int)st, worst = 0, rc = MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, c->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (two-level stage)");
    if (st != GHZ_SUCCESS) return st;
    return worst ? ghz_fail(GHZ_ERR_PEER, "another rank failed a two-level stage (%s)",
                            ghz_status_string((ghz_status_t)worst))
                 : GHZ_SUCCESS;
}

/* The algorithm the leaders run among nodes (the only lossy stage). */
ghz_algo_t coll_inter_algo(const ghz_comm_t* c, coll_mode_t mode)
{
    if (mode == COLL_EXACT) return GHZ_ALGO_RING;
    return c->nodes <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
}

/* Two-level allreduce (COLL.md, Two levels): exact inside nodes, `mode` across them. */
ghz_status_t coll_two_level(ghz_comm_t* c, const call_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                              coll_round_t* sum)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const ghz_algo_t across = coll_inter_algo(c, mode);
    ghz_status_t st;
    if (algo == GHZ_ALGO_TWO_LEVEL) {
        /* reduce to the node's rank 0, allreduce among those, broadcast in the node */
        st = child_stage(c->intra, KIND_REDUCE, k->in, c->local_rank == 0 ? k->out : NULL, k->count, k,
                         COLL_EXACT, 0.0, GHZ_ALGO_BINOMIAL, sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS && c->local_rank == 0)
            st = child_stage(c->inter, KIND_ALLREDUCE, k->out, k->out, k->count, k, mode, eb, across, sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->intra, KIND_BCAST, k->out, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_BINOMIAL,
                             sum);
        return stage_agree(c, st);
    }
    /* reduce-scatter in the node, each local rank's split across nodes, allgather */
    {
        const size_t L = (size_t)c->local_size, l = (size_t)c->local_rank, q = k->count / L, rem = k->count % L;
        const size_t base = l * q + (l < rem ? l : rem), len = q + (l < rem);
        st = child_stage(c->intra, KIND_RS_SPLIT, k->in, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_RING, sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->inter, KIND_ALLREDUCE, k->out + base * e, k->out + base * e, len, k, mode, eb, across,
                             sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->intra, KIND_AG_SPLIT, k->out, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_RING,
                             sum);
        return stage_agree(c, st);
    }
}
