/* ghz/coll/comm_buffers.c: a communicator's buffers, allocated once, and its release. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/agree_shm.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/detail/error.h"

#define NREQS(c) (2 * (size_t)(c)->size * COLL_MAX_PIECES) /* entries of sreq and rreq */

/* Every allocation counted: a zeroed host array (kind HOST) or backend memory (COLL_MEM_*). */
#define HOST (-1)
static void* alloc_counted(ghz_comm_t* c, size_t bytes, int kind)
{
    c->allocations++;
    return kind == HOST ? calloc(1, bytes ? bytes : 1) : c->be.alloc(&c->be, bytes, kind);
}

ghz_comm_t* coll_comm_new(void)
{
    ghz_comm_t* c = (ghz_comm_t*)calloc(1, sizeof *c);
    if (c) {
        c->allocations = 1;
        c->auto_min = SIZE_MAX;
    }
    return c;
}

ghz_status_t coll_comm_alloc_buffers(ghz_comm_t* c)
{
    const size_t n = (size_t)c->size;
    /* (over NCCL the values stay in the callers' buffers) */
    const int raw = c->be.staged && c->cfg.transport != GHZ_TRANSPORT_NCCL;
    c->seg_off = (size_t*)alloc_counted(c, n * sizeof *c->seg_off, HOST);
    c->seg_cnt = (size_t*)alloc_counted(c, n * sizeof *c->seg_cnt, HOST);
    c->wire_size = (size_t*)alloc_counted(c, (n + 2) * COLL_MAX_PIECES * sizeof *c->wire_size, HOST);
    c->wire_tmp = (size_t*)alloc_counted(c, n * sizeof *c->wire_tmp, HOST);
    c->wire_ptr = (const void**)alloc_counted(c, n * sizeof *c->wire_ptr, HOST);
    c->sreq = (coll_req_t*)alloc_counted(c, NREQS(c) * sizeof *c->sreq, HOST);
    c->rreq = (coll_req_t*)alloc_counted(c, NREQS(c) * sizeof *c->rreq, HOST);
    c->pool_bytes = c->cfg.pool_bytes;
    c->pool = (unsigned char*)alloc_counted(c, c->pool_bytes, COLL_MEM_WIRE);
    if (raw) c->pool_raw = (unsigned char*)alloc_counted(c, c->pool_bytes, COLL_MEM_RAW);
    if (c->host_mirror) c->pool_mirror = (unsigned char*)alloc_counted(c, c->pool_bytes, COLL_MEM_MIRROR);
    if (!c->seg_off || !c->seg_cnt || !c->wire_size || !c->wire_tmp || !c->wire_ptr || !c->sreq || !c->rreq ||
        !c->pool || (raw && !c->pool_raw) || (c->host_mirror && !c->pool_mirror))
        return ghz_fail(GHZ_ERR_NOMEM, "communicator buffers (pool %zu bytes)", c->pool_bytes);
    return GHZ_SUCCESS;
}

static void cancel_requests(ghz_comm_t* c)
{
    size_t i, j;
    for (i = 0; i < NREQS(c); i++)
        for (j = 0; j < 2; j++)
            if (c->tp.cancel) c->tp.cancel(&c->tp, j ? &c->rreq[i] : &c->sreq[i]);
}

/* `release` needs no backend state: the backend may already be destroyed. `keep_pool`: a
 * peer may still map the wire pool (ghz_comm_abort over CUDA IPC). Returns the count freed. */
uint64_t coll_comm_free_buffers(ghz_comm_t* c, int keep_pool)
{
    uint64_t n = (c->pool && !keep_pool) + (c->pool_raw != NULL) + (c->pool_mirror != NULL) + (c->seg_off != NULL) +
                 (c->seg_cnt != NULL) + (c->wire_size != NULL) + (c->wire_tmp != NULL) + (c->wire_ptr != NULL) +
                 (c->sreq != NULL) + (c->rreq != NULL);
    if (c->pool && !keep_pool) c->be.release(&c->be, c->pool, COLL_MEM_WIRE);
    if (c->pool_raw) c->be.release(&c->be, c->pool_raw, COLL_MEM_RAW);
    if (c->pool_mirror) c->be.release(&c->be, c->pool_mirror, COLL_MEM_MIRROR);
    free(c->seg_off);
    free(c->seg_cnt);
    free(c->wire_size);
    free(c->wire_tmp);
    free((void*)c->wire_ptr);
    free(c->sreq);
    free(c->rreq);
    c->pool = c->pool_raw = c->pool_mirror = NULL;
    c->seg_off = c->seg_cnt = c->wire_size = c->wire_tmp = NULL;
    c->wire_ptr = NULL;
    c->sreq = c->rreq = NULL;
    return n;
}

/* `local`: on this rank alone, meeting no peer. If any rank releases alone, every rank
 * does, so that none waits for it (coll_shm_together). */
void coll_comm_release(ghz_comm_t* c, int local)
{
    int exported;
    if (!local && !coll_shm_together(c->shm)) local = 1;
    exported = local && c->tp.abort != NULL;
#ifdef GHZ_WITH_CUDA
    const int previous = ghz_coll_backend_cuda_enter(&c->be);
#endif
    if (c->intra) coll_comm_release(c->intra, local);
    if (c->inter) coll_comm_release(c->inter, local);
    if (c->host) coll_comm_release(c->host, local);
    if (local && c->sreq && c->rreq) cancel_requests(c);
    /* the transport first (CUDA IPC waits until every peer unmapped this rank's pool),
     * then the backend (it waits for queued copies out of small_out), then the memory */
    if (exported) c->tp.abort(&c->tp);
    else if (c->tp.destroy) c->tp.destroy(&c->tp);
#ifdef GHZ_WITH_NCCL
    coll_nccl_destroy(c, local); /* local: ncclCommAbort */
#endif
    if (c->be.destroy) c->be.destroy(&c->be);
    if (c->small_in) c->be.release(&c->be, c->small_in, COLL_MEM_MIRROR);
    if (c->small_out) c->be.release(&c->be, c->small_out, COLL_MEM_MIRROR);
    (void)coll_comm_free_buffers(c, exported);
    if (!local) coll_shm_destroy(c->shm);
    else coll_shm_abandon(c->shm);
    coll_mpi_release(c, local);
    free(c);
#ifdef GHZ_WITH_CUDA
    ghz_coll_backend_cuda_leave(previous);
#endif
}

ghz_status_t coll_comm_finish_init(ghz_comm_t* c, ghz_status_t st, ghz_comm_t** comm)
{
    if (st != GHZ_SUCCESS) {
        char keep[256] = "";
        strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        coll_comm_release(c, 0);
        return ghz_fail(st, "%s", keep);
    }
    c->info = (ghz_coll_info_t)GHZ_COLL_INFO_INIT;
    *comm = c;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_destroy(ghz_comm_t* comm)
{
    ghz_clear_detail();
    if (comm) coll_comm_release(comm, comm->broken != GHZ_SUCCESS);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_abort(ghz_comm_t* comm)
{
    ghz_clear_detail();
    if (comm) coll_comm_release(comm, 1);
    return GHZ_SUCCESS;
}
