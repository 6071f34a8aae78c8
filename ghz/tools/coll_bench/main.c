/* ghz/tools/coll_bench/main.c: ghz-coll-bench, the collective benchmark.
 *
 * For each size, one row per path (ghz HOMO, ghz DOC, ghz exact, the MPI library),
 * every path on the same input, each timed out of place and in place (timing.h), and
 * with -c 1 every element of every result checked against the exact reduction that
 * each rank computes on its own (ref.h, check.h). Exits 1 when a call failed or an
 * element was wrong.
 *
 * --backend cuda: the input is still made on the host, then copied once per size to
 * device memory; every call takes device buffers (cuda_bufs.h) and the results are
 * copied back to the host for the check after the timed loop. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "check.h"
#include "cuda_bufs.h"
#include "data.h"
#include "moved.h"
#include "nccl_row.h"
#include "ref.h"
#include "report.h"

/* Everything a run shares across sizes. */
typedef struct {
    const cb_args_t* a;
    MPI_Comm mpi;
    int rank, nranks;
    ghz_comm_t* comm;
    cb_data_t data;
    cb_ref_t ref;
    cb_moved_t moved;         /* the data movement's reference (--coll allgather ...) */
    void *send, *recv, *work; /* host; on the CUDA backend the input and the check's copy */
    int cuda;                 /* --backend cuda: the calls use gpu's buffers */
    cb_cuda_t gpu;
    cb_nccl_t* nccl;          /* the nccl row's communicator, when that row runs */
    char nccl_out[160];       /* why the default nccl row is left out ("": it runs) */
    FILE* json;
    uint64_t wrong;
    int failed_calls;
    double busbw_sum[CB_PATH_COUNT];
    int busbw_rows[CB_PATH_COUNT];
} bench_t;

/* One size's shape: count of the call, elements of each input and of the largest
 * result (the data movement's receive buffer), S in bytes. */
typedef struct {
    size_t count, in_elems, out_elems, bytes;
    double bound_req; /* the lossy bound resolved by the bench itself */
} shape_t;

/* nccl-tests' sizes: S is the reduce_scatter input, the allgather output, the alltoall,
 * scatter and gather buffers of count * n elements, the broadcast vector. */
static shape_t shape_of(const cb_args_t* a, int nranks, size_t bytes)
{
    shape_t s;
    const size_t esz = ghz_dtype_size(a->dtype), elems = bytes / esz, N = (size_t)nranks;
    const int per_rank = a->coll == CB_REDUCE_SCATTER || (cb_coll_moves(a->coll) && a->coll != CB_BROADCAST);
    s.count = per_rank ? elems / N : elems;
    s.in_elems = a->coll == CB_REDUCE_SCATTER || a->coll == CB_SCATTER || a->coll == CB_ALLTOALL ? s.count * N
                                                                                                 : s.count;
    s.out_elems = cb_coll_moves(a->coll) && per_rank && a->coll != CB_SCATTER ? s.count * N : s.count;
    s.bytes = (s.in_elems > s.out_elems ? s.in_elems : s.out_elems) * esz;
    s.bound_req = 0.0;
    return s;
}

/* The bound that the lossy rows were asked for, resolved independently of ghz: ABS as
 * given; REL times (max - min) over the finite values of every rank's input. */
static double requested_bound(const bench_t* b, const shape_t* s)
{
    const cb_args_t* a = b->a;
    double lo = INFINITY, hi = -INFINITY, glo, ghi;
    size_t i;
    if (a->eb_mode == GHZ_EB_ABS) return a->eb;
    for (i = 0; i < s->in_elems; ++i) {
        double v = a->dtype == GHZ_F32 ? (double)((const float*)b->send)[i]
                 : a->dtype == GHZ_F64 ? ((const double*)b->send)[i] : 0.0;
        if (!isfinite(v)) continue;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    MPI_Allreduce(&lo, &glo, 1, MPI_DOUBLE, MPI_MIN, b->mpi);
    MPI_Allreduce(&hi, &ghi, 1, MPI_DOUBLE, MPI_MAX, b->mpi);
    return ghi >= glo ? a->eb * (ghi - glo) : 0.0;
}

/* The ghz facts of the last call: algorithm, bound, and the ratio over all ranks. */
static void ghz_facts(bench_t* b, cb_result_t* r)
{
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    uint64_t mine[2], sum[2];
    if (ghz_comm_info(b->comm, &info) != GHZ_SUCCESS) info.algo = GHZ_ALGO_AUTO;
    r->has_algo = 1;
    r->algo = info.algo;
    r->bound_abs = info.bound_abs;
    /* AUTO ran exact: no compression (eb_abs 0), and over NCCL no range scan, so no
     * REL bound in absolute units either; the result is the exact path's */
    r->ran_exact = r->lossy && info.path == GHZ_PATH_AUTO && info.eb_abs == 0.0;
    r->t_comp = info.time_compress;
    r->t_comb = info.time_combine;
    r->t_dec = info.time_decompress;
    r->t_stage = info.time_stage;
    r->t_xfer = info.time_transfer;
    r->t_total = info.time_total;
    mine[0] = info.logical_bytes;
    mine[1] = info.wire_bytes;
    MPI_Allreduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, b->mpi);
    r->ratio = sum[1] ? (double)sum[0] / (double)sum[1] : 0.0;
}

/* -c 1: this rank's result against the reference, then the totals over ranks. A lossy
 * row whose stated bound exceeds what was asked counts one wrong (on rank 0). */
static void check_result(bench_t* b, const cb_call_t* c, const shape_t* s, cb_result_t* r)
{
    cb_check_t chk = {0, 0, 0.0};
    size_t first, n;
    const void* res = cb_call_result(c, &first, &n);
    double slack = 1.0 + 4.0 * cb_unit_roundoff(b->a->dtype);
    char err[CB_ERR_LEN];
    if (res && n > 0 && b->cuda) {
        /* Back to the host once, after the timed loop. A failed copy fails every
         * element (nothing of the result could be seen). */
        if (cb_cuda_copy(b->recv, res, n * ghz_dtype_size(b->a->dtype), b->gpu.stream, err,
                         sizeof err) != 0) {
            fprintf(stderr, "ghz-coll-bench: rank %d: result copy: %s\n", b->rank, err);
            chk.wrong = n;
            res = NULL;
        } else {
            res = b->recv;
        }
    }
    if (res && n > 0 && cb_coll_moves(b->a->coll)) {
        cb_moved_check(&b->moved, res, r->lossy && !r->ran_exact, r->bound_abs, &chk);
    } else if (res && n > 0) {
        if (r->lossy && !r->ran_exact) cb_check_lossy(&b->ref, res, r->bound_abs, &chk);
        else cb_check_exact(&b->ref, res, &chk);
    }
    MPI_Allreduce(&chk.wrong, &r->wrong, 1, MPI_UINT64_T, MPI_SUM, b->mpi);
    MPI_Allreduce(&chk.maxerr, &r->maxerr, 1, MPI_DOUBLE, MPI_MAX, b->mpi);
    if (r->lossy && !(r->bound_abs <= s->bound_req * slack)) {
        r->wrong += 1;
        if (b->rank == 0)
            printf("# %s: bound_abs %.9g exceeds the requested bound %.9g\n",
                   cb_path_name(c->path), r->bound_abs, s->bound_req);
    }
}

static void run_placement(bench_t* b, cb_call_t* c, const shape_t* s, cb_result_t* r)
{
    double local_us, host_us;
    memset(r, 0, sizeof *r);
    r->lossy = cb_path_lossy(c->path);
    if (cb_time_call(c, b->a->iters, b->a->warmup, &local_us, &host_us) != 0) {
        snprintf(r->err, sizeof r->err, "%s", c->err);
        return;
    }
    r->ran = 1;
    cb_time_combine(local_us, b->a->time_mode, b->mpi, &r->t);
    MPI_Allreduce(&host_us, &r->host_us, 1, MPI_DOUBLE, MPI_MAX, b->mpi);
    cb_bandwidth(b->a->coll, b->nranks, s->bytes, r->t.us, &r->algbw, &r->busbw);
    if (cb_path_ghz(c->path)) ghz_facts(b, r);
    if (b->a->check) check_result(b, c, s, r);
}

static void run_row(bench_t* b, const shape_t* s, cb_path_t path)
{
    const cb_args_t* a = b->a;
    cb_row_t row;
    cb_call_t c;
    int ip;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.comm = b->comm;
    c.mpi = b->mpi;
    c.rank = b->rank;
    c.nranks = b->nranks;
    c.path = path;
    c.count = s->count;
    c.in_elems = s->in_elems;
    c.out_elems = cb_coll_moves(a->coll) ? cb_moved_out_elems(a->coll, b->rank, b->nranks, a->root, s->count) : 0;
    c.send = b->send;
    c.recv = b->recv;
    c.work = b->work;
    c.nccl = b->nccl;
    if (b->cuda) {
        c.cuda = 1;
        c.stream = b->gpu.stream;
        c.send = b->gpu.d_send;
        c.recv = b->gpu.d_recv;
        c.work = b->gpu.d_work;
        c.stage_send = path == CB_PATH_MPI_PINNED ? b->gpu.p_send : b->gpu.h_send;
        c.stage_recv = path == CB_PATH_MPI_PINNED ? b->gpu.p_recv : b->gpu.h_recv;
    }
    c.acc.struct_size = sizeof c.acc;
    c.acc.mode = a->eb_mode;
    c.acc.bound = a->eb;
    c.acc.path = path == CB_PATH_DOC     ? GHZ_PATH_DOC
                 : path == CB_PATH_AUTO  ? GHZ_PATH_AUTO
                 : path == CB_PATH_RATIO ? GHZ_PATH_RATIO
                                         : GHZ_PATH_HOMO;
    row.bytes = s->bytes;
    row.count = s->in_elems;
    row.path = path;
    row.root = cb_coll_rooted(a->coll) ? a->root : -1;
    for (ip = 0; ip < 2; ++ip) {
        cb_result_t* r = &row.r[ip];
        c.in_place = ip;
        if (path == CB_PATH_NCCL && (b->nccl_out[0] || !cb_nccl_has(a, ip))) {
            memset(r, 0, sizeof *r);
            r->none = 1;
            snprintf(r->err, sizeof r->err, "%s", b->nccl_out[0] ? b->nccl_out : "NCCL's alltoall has no in-place form");
            continue;
        }
        run_placement(b, &c, s, r);
        b->failed_calls += !r->ran;
        b->wrong += r->ran && a->check ? r->wrong : 0;
    }
    if (row.r[0].ran) {
        b->busbw_sum[path] += row.r[0].busbw;
        ++b->busbw_rows[path];
    }
    if (b->rank != 0) return;
    cb_report_row(stdout, a, &row);
    if (b->json) cb_report_json(b->json, a, b->nranks, &row);
}

/* Every rank agrees on a local failure; rank 0 says what failed. */
static int all_ok(bench_t* b, int ok, const char* what)
{
    int bad = !ok, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, b->mpi);
    if (any && !ok) fprintf(stderr, "ghz-coll-bench: rank %d: %s\n", b->rank, what);
    return !any;
}

/* The reference for the elements this rank receives (none off the root of reduce). */
static int make_reference(bench_t* b, const shape_t* s)
{
    const cb_args_t* a = b->a;
    size_t first = 0, n = s->count;
    int bad, any;
    if (a->coll == CB_REDUCE && b->rank != a->root) n = 0;
    if (a->coll == CB_REDUCE_SCATTER) first = (size_t)b->rank * s->count;
    if (cb_coll_moves(a->coll))
        bad = cb_moved_compute(&b->moved, &b->data, a->coll, a->dtype, b->rank, b->nranks, a->root, s->count) != 0;
    else
        bad = cb_ref_compute(&b->ref, &b->data, a->dtype, a->op, b->nranks, first, n) != 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, b->mpi);
    if (any && b->rank == 0) fprintf(stderr, "ghz-coll-bench: out of memory for the reference\n");
    return any;
}

static void run_size(bench_t* b, shape_t* s)
{
    const cb_args_t* a = b->a;
    int i;
    char err[CB_ERR_LEN] = "";
    cb_data_fill(&b->data, b->rank, 0, s->in_elems, a->dtype, b->send);
    if (b->cuda && !all_ok(b, cb_cuda_copy(b->gpu.d_send, b->send, s->bytes, b->gpu.stream, err,
                                           sizeof err) == 0, err)) {
        ++b->failed_calls;
        return;
    }
    s->bound_req = requested_bound(b, s);
    if (a->check && make_reference(b, s) != 0) {
        ++b->failed_calls;
        return;
    }
    /* (the data movement compresses once whatever the path: no doc row; ratio frames
     * are for the data movement alone) */
    for (i = 0; i < a->npaths; ++i)
        if ((!cb_path_lossy(a->paths[i]) || cb_lossy_ok(a->dtype, a->op)) &&
            !(cb_coll_moves(a->coll) && a->paths[i] == CB_PATH_DOC) &&
            !(!cb_coll_moves(a->coll) && a->paths[i] == CB_PATH_RATIO))
            run_row(b, s, a->paths[i]);
}

static size_t next_size(const cb_args_t* a, size_t bytes)
{
    double next;
    if (a->step_bytes) return bytes + a->step_bytes;
    next = (double)bytes * a->factor;
    return next > (double)SIZE_MAX / 2 ? SIZE_MAX : (size_t)next;
}

/* The rank's index among the ranks of its shared-memory node (collective). */
static int node_rank(const bench_t* b)
{
    MPI_Comm node;
    int local;
    MPI_Comm_split_type(b->mpi, MPI_COMM_TYPE_SHARED, b->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    return local;
}

/* Rank 0's host, the host count (one leader per shared-memory node), MPI's name. */
static void describe_world(bench_t* b, char* host, char* mpi_version, int* nhosts)
{
    int len, leader, i;
    MPI_Get_processor_name(host, &len);
    MPI_Bcast(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, b->mpi);
    leader = node_rank(b) == 0;
    MPI_Allreduce(&leader, nhosts, 1, MPI_INT, MPI_SUM, b->mpi);
    MPI_Get_library_version(mpi_version, &len);
    for (i = 0; i < len; ++i)
        if (mpi_version[i] == '\n' || mpi_version[i] == '\r') break;
    mpi_version[i] = '\0';
}

static int setup(bench_t* b, size_t max_in)
{
    const cb_args_t* a = b->a;
    ghz_comm_config_t cfg;
    ghz_status_t st;
    char msg[512];
    int i;
    size_t bytes = (max_in ? max_in : 1) * ghz_dtype_size(a->dtype);
    int ok = cb_data_open(&b->data, a, b->rank, b->nranks, a->check, max_in, msg,
                          sizeof msg) == 0;
    if (!all_ok(b, ok, msg)) return 0;
    b->send = malloc(bytes);
    b->recv = malloc(bytes);
    b->work = malloc(bytes);
    if (!all_ok(b, b->send && b->recv && b->work, "out of memory for the buffers")) return 0;
    /* Touch every page once so that no timed call pays for first-touch faults. */
    memset(b->recv, 0, bytes);
    memset(b->work, 0, bytes);
    if (a->backend == GHZ_EXEC_CUDA) {
        /* The device first: ghz_comm_init allocates on the current one. */
        int pageable = 0, pinned = 0;
        for (i = 0; i < a->npaths; ++i) {
            pageable |= a->paths[i] == CB_PATH_MPI;
            pinned |= a->paths[i] == CB_PATH_MPI_PINNED;
        }
        b->cuda = 1;
        ok = cb_cuda_open(&b->gpu, node_rank(b), bytes, pageable, pinned, msg, sizeof msg) == 0;
        if (!all_ok(b, ok, msg)) return 0;
    }
    ghz_comm_config_init(&cfg);
    cfg.backend = a->backend;
    cfg.allreduce_algo = a->coll == CB_ALLREDUCE ? a->algo : GHZ_ALGO_AUTO;
    cfg.reduce_algo = a->coll == CB_REDUCE ? a->algo : GHZ_ALGO_AUTO;
    cfg.reduce_scatter_algo = a->coll == CB_REDUCE_SCATTER ? a->algo : GHZ_ALGO_AUTO;
    cfg.pool_bytes = a->pool_bytes;
    cfg.chunk_bytes = a->chunk_bytes;
    cfg.nthreads = a->threads;
    cfg.check_args = a->check_args;
    for (i = 0; i < a->npaths; ++i)
        if (a->paths[i] == CB_PATH_NCCL) {
            int all;
            ok = cb_nccl_open(&b->nccl, b->mpi, msg, sizeof msg) == 0;
            MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, b->mpi);
            /* NCCL takes one GPU a rank: where it cannot start (ranks sharing a GPU), a
             * default path list goes on without its row; one that names nccl fails */
            if (!all && !a->paths_given) {
                cb_nccl_close(b->nccl);
                b->nccl = NULL;
                snprintf(b->nccl_out, sizeof b->nccl_out, "NCCL left out: %.130s", ok ? "it failed on another rank" : msg);
                if (b->rank == 0) fprintf(stderr, "ghz-coll-bench: %s\n", b->nccl_out);
                continue;
            }
            if (!all_ok(b, ok, msg)) return 0;
        }
    st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &b->comm);
    snprintf(msg, sizeof msg, "ghz_comm_init: %s (%s)", ghz_status_string(st),
             ghz_last_error_detail());
    if (!all_ok(b, st == GHZ_SUCCESS, msg)) return 0;
    if (b->rank == 0 && a->json && !(b->json = fopen(a->json, "w")))
        snprintf(msg, sizeof msg, "cannot write %s", a->json);
    return all_ok(b, b->rank != 0 || !a->json || b->json, msg);
}

static void print_header(bench_t* b)
{
    const cb_args_t* a = b->a;
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "", data[2048];
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    cb_header_t h;
    shape_t first = shape_of(a, b->nranks, a->min_bytes);
    describe_world(b, host, mpi_version, &h.nhosts);
    cb_data_fill(&b->data, b->rank, 0, first.in_elems, a->dtype, b->send);
    h.requested_bound_abs = requested_bound(b, &first);
    if (b->rank != 0) return;
    cb_data_describe(&b->data, data, sizeof data);
    h.gpu = b->cuda ? b->gpu.gpu : NULL;
    h.device = b->gpu.device;
    h.ndevices = b->gpu.ndevices;
    h.host = host;
    h.nranks = b->nranks;
    h.data = data;
    h.mpi_version = mpi_version;
    cb_report_header(stdout, a, &h);
    {
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        if (ghz_comm_config(b->comm, &cfg) == GHZ_SUCCESS)
            printf("# ghz transport: %s, pool %zu B, pipeline chunk %zu B\n", ghz_transport_name(cfg.transport),
                   cfg.pool_bytes, cfg.chunk_bytes);
    }
    if (!cb_lossy_ok(a->dtype, a->op))
        cb_report_note(stdout, "lossy paths (homo, doc) skipped: ghz/coll reduces lossily only "
                               "float/double with sum, avg, min, max");
}

static int run(const cb_args_t* a, int rank, int nranks)
{
    bench_t b;
    size_t bytes, max_in = 0;
    int ok;
    memset(&b, 0, sizeof b);
    b.a = a;
    b.rank = rank;
    b.nranks = nranks;
    MPI_Comm_dup(MPI_COMM_WORLD, &b.mpi);
    MPI_Comm_set_errhandler(b.mpi, MPI_ERRORS_RETURN);
    for (bytes = a->min_bytes; bytes <= a->max_bytes; bytes = next_size(a, bytes)) {
        shape_t s = shape_of(a, nranks, bytes);
        if (s.in_elems > max_in) max_in = s.in_elems;
        if (s.out_elems > max_in) max_in = s.out_elems;
        if (bytes == SIZE_MAX) break;
    }
    ok = setup(&b, max_in);
    if (ok) {
        print_header(&b);
        for (bytes = a->min_bytes; bytes <= a->max_bytes; bytes = next_size(a, bytes)) {
            shape_t s = shape_of(a, nranks, bytes);
            if (s.count > 0) run_size(&b, &s);
            else if (rank == 0) printf("# %zu B: no element per rank, skipped\n", bytes);
            if (bytes == SIZE_MAX) break;
        }
        if (rank == 0) cb_report_footer(stdout, a, b.wrong, b.failed_calls, b.busbw_sum, b.busbw_rows);
    }
    if (b.comm) ghz_comm_destroy(b.comm);
    cb_nccl_close(b.nccl);
    if (b.cuda) cb_cuda_close(&b.gpu);
    if (b.json) fclose(b.json);
    cb_ref_free(&b.ref);
    cb_moved_free(&b.moved);
    cb_data_close(&b.data);
    free(b.send);
    free(b.recv);
    free(b.work);
    MPI_Comm_free(&b.mpi);
    return ok && b.wrong == 0 && b.failed_calls == 0 ? CB_EXIT_OK : CB_EXIT_FAIL;
}

/* Whether every rank was given the same command line: a hash of argv, and of its
 * complement, reduced by MAX (the ranks agree when the largest hash is the smallest).
 * The bench's own loops (sizes, iterations, paths) follow the arguments, so ranks that
 * disagree would wait for each other in different places. */
static int same_arguments(int argc, char** argv)
{
    uint64_t h = 1469598103934665603ull, w[2];
    int i;
    for (i = 1; i < argc; ++i) {
        const unsigned char* p = (const unsigned char*)argv[i];
        for (; *p; ++p) h = (h ^ *p) * 1099511628211ull;
        h = (h ^ 0xffu) * 1099511628211ull; /* (an argument boundary) */
    }
    w[0] = h;
    w[1] = ~h;
    MPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return w[0] == ~w[1];
}

int main(int argc, char** argv)
{
    cb_args_t a;
    int provided, rank, nranks, rc;
    /* SERIALIZED: ghz's compute threads may make MPI calls, one at a time. */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (!same_arguments(argc, argv)) {
        if (rank == 0)
            fprintf(stderr, "ghz-coll-bench: the ranks were given different arguments: every rank must run the "
                            "same command line\n");
        MPI_Finalize();
        return CB_EXIT_USAGE;
    }
    rc = cb_parse_args(argc, argv, rank == 0, &a);
    if (rc < 0 && a.root >= nranks) {
        if (rank == 0) fprintf(stderr, "ghz-coll-bench: root %d but %d ranks\n", a.root, nranks);
        rc = CB_EXIT_USAGE;
    }
    if (rc < 0) rc = run(&a, rank, nranks);
    MPI_Finalize();
    return rc;
}
