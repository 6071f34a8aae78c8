/* ghz/coll/host_path.c: a CUDA communicator's small exact calls through host memory, on
 * its CPU communicator (COLL.md, Choices, and Data movement, Host path). */
#include <stddef.h>

#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/coll/detail/reduce_call.h"

/* Checked, planned and executed on the host communicator; the parent's agreement stands
 * for it. */
static ghz_status_t host_call(ghz_comm_t* c, coll_desc_t* h, const coll_plan_t* p, ghz_coll_info_t* info)
{
    ghz_comm_t* hc = c->host;
    coll_plan_t hp = {.mode = COLL_EXACT, .extent = p->extent, .far = p->far};
    double ratio;
    ghz_status_t st;
    coll_call_begin(hc);
    if ((st = coll_desc_check(hc, h)) != GHZ_SUCCESS) return st;
    if (h->ops) hp.algo = coll_choose_algo(hc, h, COLL_EXACT);
    coll_plan_route(hc, h, &hp);
    return coll_execute(hc, h, &hp, info, &ratio);
}

/* What goes in and out: COLL.md, Data movement, Host path. A copy in waits for the
 * previous call's copy out of small_out, which the host call writes (where nothing is
 * copied in, a wait). */
ghz_status_t coll_host_path(ghz_comm_t* c, const coll_desc_t* k, const coll_plan_t* p, int copied, int all_staged,
                            double t_copied, ghz_coll_info_t* info)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int input_in_out = k->mv && k->in_place && !k->mv->in_place_recv;
    const size_t in_bytes = k->ops ? k->total * e : input_in_out ? 0 : k->send_end * e;
    const size_t out_bytes = k->ops ? (coll_has_out(c, k) ? k->count * e : 0) : k->recv_end * e;
    const int out_first = k->mv && out_bytes && (k->v || input_in_out);
    unsigned char* host_in = k->ops ? coll_host_in(c, k) : c->small_in;
    coll_desc_t h;
    double t0 = coll_now(), t_stage = t_copied;
    ghz_status_t st = GHZ_SUCCESS;
    if (out_first) st = c->be.copy(&c->be, c->small_out, k->out, out_bytes);
    if (st == GHZ_SUCCESS && !copied && in_bytes) st = c->be.copy(&c->be, host_in, k->in, in_bytes);
    if (st == GHZ_SUCCESS && !copied && !in_bytes && !out_first) st = c->be.sync(&c->be);
    t_stage += coll_now() - t0;
    if (!all_staged) st = coll_stage_agree(c, st, NULL);
    if (st != GHZ_SUCCESS) return st;
    if (k->ops) {
        h = coll_make_call(k->kind, host_in, c->small_out, k->count, k->dtype, k->op, k->root, NULL, NULL);
    } else {
        h = *k;
        h.sendbuf = input_in_out ? coll_in_place : k->sends ? (const void*)c->small_in : NULL;
        h.recvbuf = k->mv->in_place_recv && k->in_place ? coll_in_place : k->recvs ? (void*)c->small_out : NULL;
        h.acc = NULL;
        h.stream = NULL;
    }
    st = host_call(c, &h, p, info);
    if (st == GHZ_SUCCESS && out_bytes) {
        t0 = coll_now();
        st = c->be.copy_async(&c->be, k->out, c->small_out, out_bytes);
        t_stage += coll_now() - t0;
    }
    info->time_stage = t_stage;
    return st;
}
