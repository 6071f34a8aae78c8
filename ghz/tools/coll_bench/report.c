/* ghz/tools/coll_bench/report.c: what rank 0 prints. The row keeps nccl-tests' columns
 * (size count type redop root ... time algbw busbw #wrong, for out of place then in
 * place) and adds the path, the time's spread over ranks, and for lossy rows the
 * compression ratio and the measured error over the stated bound. */
#include <math.h>
#include <string.h>

#include "report.h"
#include "check.h"
#include "ghz/ghz.h"

const char* cb_coll_name(cb_coll_t c)
{
    static const char* const names[] = {"allreduce", "reduce", "reduce_scatter", "allgather",
                                        "broadcast", "scatter", "gather", "alltoall"};
    return (unsigned)c <= CB_COLL_LAST ? names[c] : "?";
}

const char* cb_path_name(cb_path_t p)
{
    static const char* const names[CB_PATH_COUNT] = {"homo", "doc", "exact", "mpi", "mpi-pinned", "auto", "nccl", "ratio"};
    return (unsigned)p < CB_PATH_COUNT ? names[p] : "?";
}

static const char* time_mode_name(cb_time_mode_t m)
{
    static const char* const names[] = {"rank 0's", "the average over ranks", "the minimum over ranks",
                                        "the maximum over ranks"};
    return names[m];
}

static void bytes_text(size_t b, char* buf, size_t len)
{
    if (b == 0) snprintf(buf, len, "default");
    else if (b % (1u << 20) == 0) snprintf(buf, len, "%zu MiB", b >> 20);
    else if (b % (1u << 10) == 0) snprintf(buf, len, "%zu KiB", b >> 10);
    else snprintf(buf, len, "%zu B", b);
}

void cb_report_header(FILE* f, const cb_args_t* a, const cb_header_t* h)
{
    char pool[32], chunk[32];
    int i;
    bytes_text(a->pool_bytes, pool, sizeof pool);
    bytes_text(a->chunk_bytes, chunk, sizeof chunk);
    fprintf(f, "# ghz-coll-bench: %s, %s %s, %d rank%s on %d host%s (rank 0 on %s)\n",
            cb_coll_name(a->coll), ghz_dtype_name(a->dtype), ghz_op_name(a->op), h->nranks,
            h->nranks > 1 ? "s" : "", h->nhosts, h->nhosts > 1 ? "s" : "", h->host);
    fprintf(f, "# libraries: ghz %u.%u.%u (stream format %u), MPI: %s\n",
            ghz_version_number() / 10000, ghz_version_number() / 100 % 100,
            ghz_version_number() % 100, ghz_format_version(), h->mpi_version);
    if (a->backend == GHZ_EXEC_CUDA)
        fprintf(f, "# backend: cuda on %s (rank 0: device %d of %d; ranks share devices round "
                   "robin), device buffers; mpi rows stage through pageable host memory, "
                   "mpi-pinned through pinned\n",
                h->gpu, h->device, h->ndevices);
    else
        fprintf(f, "# backend: cpu, host buffers\n");
    fprintf(f, "# data: %s\n", h->data);
    fprintf(f, "# bound of the lossy rows on the final result: %s %g",
            a->eb_mode == GHZ_EB_REL ? "REL" : "ABS", a->eb);
    if (a->eb_mode == GHZ_EB_REL)
        fprintf(f, " x (max - min of every rank's input) = %.6g at the first size",
                h->requested_bound_abs);
    fprintf(f, "\n# paths:");
    for (i = 0; i < a->npaths; ++i) fprintf(f, "%s%s", i ? "," : " ", cb_path_name(a->paths[i]));
    fprintf(f, " | ghz algo %s, pool %s, chunk %s, threads %d\n", ghz_algo_name(a->algo), pool,
            chunk, a->threads);
    fprintf(f, "# timing: -n %d -w %d; time(us) is %s (-a %d), min/avg/max over ranks follow\n",
            a->iters, a->warmup, time_mode_name(a->time_mode), (int)a->time_mode);
    if (a->graph)
        fprintf(f, "# --graph 1: each ghz call captured once into a CUDA graph; the times are its "
                   "replays (cudaGraphLaunch)\n");
    fprintf(f, "# in place: the input is reloaded before every call, the reloads timed apart and "
               "taken out\n");
    if (a->sync)
        fprintf(f, "# --sync 1: every call ends on the clock with its stream synchronized, out of "
                   "place too\n");
    if (a->backend == GHZ_EXEC_CUDA)
        fprintf(f, "# cuda: the clock stops after cudaStreamSynchronize; the mpi rows' copies to "
                   "and from the host are inside the timed call\n");
    fprintf(f, "# algbw, busbw in GB/s of LOGICAL (uncompressed) bytes, nccl-tests' factors\n");
    if (a->check)
        fprintf(f,
                "# check: every element vs an exact reference; exact rows: integers bit for "
                "bit, float min/max equal,\n#   float sum/avg/prod within (n+2) u S "
                "(u = %g, S = sum|x| or |prod|); lossy rows: |err| <= bound_abs\n",
                cb_unit_roundoff(a->dtype) > 0 ? cb_unit_roundoff(a->dtype) : 0.0);
    else
        fprintf(f, "# check: off (-c 0), #wrong is N/A\n");
    /* The placement titles over their columns: 57 characters of row prefix, then 86
     * per placement. */
    fprintf(f, "#\n# %57s %-86s %s\n", "", "out-of-place", "in-place");
    fprintf(f, "# %12s %12s %7s %6s %5s %10s", "size(B)", "count", "type", "redop", "root", "path");
    for (i = 0; i < 2; ++i)
        fprintf(f, " %10s %10s %10s %10s %7s %7s %7s %6s %10s", "time(us)", "min(us)", "avg(us)",
                "max(us)", "algbw", "busbw", "#wrong", "ratio", "maxerr/bnd");
    fprintf(f, "\n");
    fflush(f);
}

void cb_report_note(FILE* f, const char* note)
{
    if (note) fprintf(f, "# %s\n", note);
}

static void placement(FILE* f, const cb_result_t* r, int check)
{
    char wrong[24];
    if (!r->ran) {
        fprintf(f, " %10s %10s %10s %10s %7s %7s %7s %6s %10s", r->none ? "n/a" : "ERROR", "-", "-", "-", "-",
                "-", "-", "-", "-");
        return;
    }
    if (check) snprintf(wrong, sizeof wrong, "%llu", (unsigned long long)r->wrong);
    else snprintf(wrong, sizeof wrong, "N/A");
    fprintf(f, " %10.2f %10.2f %10.2f %10.2f %7.3f %7.3f %7s", r->t.us, r->t.min, r->t.avg,
            r->t.max, r->algbw, r->busbw, wrong);
    if (r->lossy) fprintf(f, " %6.2f", r->ratio);
    else fprintf(f, " %6s", "-");
    if (r->lossy && check && !r->ran_exact) fprintf(f, " %10.4f", r->bound_abs > 0 ? r->maxerr / r->bound_abs : NAN);
    else fprintf(f, " %10s", r->ran_exact ? "exact" : "-");
}

void cb_report_row(FILE* f, const cb_args_t* a, const cb_row_t* row)
{
    int i;
    fprintf(f, "  %12zu %12zu %7s %6s %5d %10s", row->bytes, row->count, ghz_dtype_name(a->dtype),
            ghz_op_name(a->op), row->root, cb_path_name(row->path));
    for (i = 0; i < 2; ++i) placement(f, &row->r[i], a->check);
    fprintf(f, "\n");
    for (i = 0; i < 2; ++i)
        if (!row->r[i].ran && !row->r[i].none)
            fprintf(f, "#  %s %s: %s\n", cb_path_name(row->path), i ? "in place" : "out of place",
                    row->r[i].err);
    fflush(f);
}

/* A JSON number, or null where there is none (NaN, infinity, or not applicable). */
static void json_num(FILE* f, const char* key, double v, int present)
{
    if (present && isfinite(v)) fprintf(f, ",\"%s\":%.17g", key, v);
    else fprintf(f, ",\"%s\":null", key);
}

/* The string s with JSON's escapes (error messages may quote anything). */
static void json_str(FILE* f, const char* key, const char* s)
{
    fprintf(f, ",\"%s\":\"", key);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

void cb_report_json(FILE* f, const cb_args_t* a, int nranks, const cb_row_t* row)
{
    static const char* const pre[2] = {"oop_", "ip_"};
    int i;
    fprintf(f, "{\"coll\":\"%s\",\"backend\":\"%s\",\"graph\":%s,\"nranks\":%d,\"size\":%zu,\"count\":%zu",
            cb_coll_name(a->coll), a->backend == GHZ_EXEC_CUDA ? "cuda" : "cpu", a->graph ? "true" : "false",
            nranks, row->bytes, row->count);
    fprintf(f, ",\"type\":\"%s\",\"redop\":\"%s\",\"root\":%d,\"path\":\"%s\"",
            ghz_dtype_name(a->dtype), ghz_op_name(a->op), row->root, cb_path_name(row->path));
    fprintf(f, ",\"eb_mode\":\"%s\"", a->eb_mode == GHZ_EB_REL ? "rel" : "abs");
    json_num(f, "eb", a->eb, 1);
    for (i = 0; i < 2; ++i) {
        const cb_result_t* r = &row->r[i];
        char k[32];
#define KEY(name) (snprintf(k, sizeof k, "%s%s", pre[i], name), k)
        fprintf(f, ",\"%s\":%s", KEY("ok"), r->ran ? "true" : "false");
        if (!r->ran) {
            if (r->none) fprintf(f, ",\"%s\":true", KEY("none"));
            json_str(f, KEY("error"), r->err);
            continue;
        }
        if (r->has_algo) fprintf(f, ",\"%s\":\"%s\"", KEY("algo"), ghz_algo_name(r->algo));
        json_num(f, KEY("time_us"), r->t.us, 1);
        json_num(f, KEY("time_min_us"), r->t.min, 1);
        json_num(f, KEY("time_avg_us"), r->t.avg, 1);
        json_num(f, KEY("time_max_us"), r->t.max, 1);
        json_num(f, KEY("algbw"), r->algbw, 1);
        json_num(f, KEY("busbw"), r->busbw, 1);
        json_num(f, KEY("us_host"), r->host_us, 1);
        json_num(f, KEY("wrong"), (double)r->wrong, a->check);
        json_num(f, KEY("ratio"), r->ratio, r->lossy);
        json_num(f, KEY("bound_abs"), r->bound_abs, r->lossy);
        json_num(f, KEY("maxerr"), r->maxerr, a->check);
        json_num(f, KEY("maxerr_over_bound"), r->maxerr / r->bound_abs,
                 a->check && r->lossy && r->bound_abs > 0);
        /* rank 0's last call: where its time went (ghz_coll_info_t), in ms */
        json_num(f, KEY("ms_compress"), r->t_comp * 1e3, r->has_algo);
        json_num(f, KEY("ms_combine"), r->t_comb * 1e3, r->has_algo);
        json_num(f, KEY("ms_decompress"), r->t_dec * 1e3, r->has_algo);
        json_num(f, KEY("ms_stage"), r->t_stage * 1e3, r->has_algo);
        json_num(f, KEY("ms_transfer"), r->t_xfer * 1e3, r->has_algo);
        json_num(f, KEY("ms_total"), r->t_total * 1e3, r->has_algo);
#undef KEY
    }
    fprintf(f, "}\n");
    fflush(f);
}

void cb_report_footer(FILE* f, const cb_args_t* a, uint64_t wrong, int failed_calls,
                      const double* busbw_sum, const int* busbw_rows)
{
    int i;
    fprintf(f, "# wrong elements: ");
    if (a->check) fprintf(f, "%llu", (unsigned long long)wrong);
    else fprintf(f, "N/A");
    fprintf(f, ", failed calls: %d: %s\n", failed_calls,
            wrong || failed_calls ? "FAILED" : "OK");
    fprintf(f, "# avg bus bandwidth (GB/s, out of place, over sizes):");
    for (i = 0; i < a->npaths; ++i) {
        cb_path_t p = a->paths[i];
        if (busbw_rows[p]) fprintf(f, " %s %.4f", cb_path_name(p), busbw_sum[p] / busbw_rows[p]);
    }
    fprintf(f, "\n");
    fflush(f);
}
