/* ghz-bench reduce: the CUDA backend's exact element-wise reductions of ghz::coll
 * (ghz_coll_reduce_cuda) against the copy roofline of the same run.
 *
 *   ghz-bench reduce [--gib G] [--reps R] [--json FILE]
 *
 * For every (dtype, op) pair the library defines: out = op(a, b) on arrays of G GiB
 * each (default 1: G GiB of output), 16-byte aligned, timed with CUDA events (median
 * of R >= 10 after warm-up), out of place and in place (out == a). GB/s counts bytes
 * read and written (3 x G GiB per call), as the copy kernel's figure does (bench_start:
 * 16-byte vectors, 2 GiB); "% copy" is the ratio. Then AVG's scaling (in place: 2 x G
 * GiB moved, against the copy) and the value range (G GiB read, against a read-only
 * kernel of the same run). The issue's target: >= 90 % of the copy for large counts. */
#include <algorithm>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "ghz/coll/detail/reduce_cuda.h"
#include "ghz/coll/detail/reduce_ops.h"

namespace {

void usage_reduce()
{
    printf("usage: ghz-bench reduce [--gib G] [--reps R] [--json FILE]\n");
}

const ghz_dtype_t kDtypes[] = {GHZ_F32, GHZ_F64, GHZ_I8,  GHZ_U8,  GHZ_I16,
                               GHZ_U16, GHZ_I32, GHZ_U32, GHZ_I64, GHZ_U64};

/* One line of the table and of the JSON. */
struct row {
    std::string what, dtype;
    double gbs, inplace_gbs, roof_gbs; /* inplace_gbs < 0: not measured */
};

void print_row(const row& r)
{
    printf("%-8s %-5s %9.0f %7.1f %%", r.what.c_str(), r.dtype.c_str(), r.gbs, 100.0 * r.gbs / r.roof_gbs);
    if (r.inplace_gbs >= 0.0)
        printf(" %9.0f %7.1f %%", r.inplace_gbs, 100.0 * r.inplace_gbs / r.roof_gbs);
    printf("\n");
}

} // namespace

int bench_reduce(int argc, char** argv)
{
    bench_opts o;
    o.json = "bench_reduce.json";
    if (int rc = bench_parse(argc, argv, o, usage_reduce); rc >= 0) return rc;
    const int reps = std::max(10, o.reps); /* median of at least 10 */
    const bench_env env = bench_start(reps);
    const double read_gbs = bench_read_gbs(reps, env.ea, env.eb, env.prop);
    printf("read-only kernel %.0f GB/s (bytes read)\n", read_gbs);

    const size_t bytes = (size_t)(o.gib * (double)(1u << 30)) / 16u * 16u;
    void *out, *a, *b;
    ghz_coll_range_t* d_range;
    ghz_coll_range_acc_t* d_acc;
    CUDA_OK(cudaMalloc(&out, bytes));
    CUDA_OK(cudaMalloc(&a, bytes));
    CUDA_OK(cudaMalloc(&b, bytes));
    CUDA_OK(cudaMalloc((void**)&d_range, sizeof *d_range));
    CUDA_OK(cudaMalloc((void**)&d_acc, sizeof *d_acc));
    CUDA_OK(cudaMemset(d_acc, 0, sizeof *d_acc));
    /* 0x3F bytes: 0.747 as f32 and 4.8e-4 as f64, so that every float op stays finite
     * and normal for a few calls; the integers do not care */
    CUDA_OK(cudaMemset(a, 0x3F, bytes));
    CUDA_OK(cudaMemset(b, 0x3F, bytes));
    printf("%.2f GiB per array; GB/s of bytes read + written (range: read)\n", (double)bytes / (1u << 30));
    printf("%-8s %-5s %9s %9s %9s %9s\n", "op", "dtype", "GB/s", "% copy", "in place", "% copy");

    std::vector<row> rows;
    for (ghz_dtype_t t : kDtypes) {
        const size_t n = bytes / ghz_dtype_size(t);
        for (int op = GHZ_OP_SUM; op <= GHZ_OP_BXOR; ++op) {
            if (ghz_coll_op_check(t, (ghz_op_t)op) != GHZ_SUCCESS) continue;
            /* the status once, outside the timing; a failure inside would show as a
             * short time, so the last call's status is checked too */
            GHZ_OK(ghz_coll_reduce_cuda(out, a, b, n, t, (ghz_op_t)op, 0));
            ghz_status_t st = GHZ_SUCCESS;
            const double ms = time_ms(reps, env.ea, env.eb,
                                      [&] { st = ghz_coll_reduce_cuda(out, a, b, n, t, (ghz_op_t)op, 0); });
            GHZ_OK(st);
            /* in place on out (op(a, b) by now): a must stay as it is for the next pairs */
            const double ms_in = time_ms(reps, env.ea, env.eb,
                                         [&] { st = ghz_coll_reduce_cuda(out, out, b, n, t, (ghz_op_t)op, 0); });
            GHZ_OK(st);
            const row r{ghz_op_name((ghz_op_t)op), ghz_dtype_name(t), 3.0 * bytes / (ms * 1e-3) / 1e9,
                        3.0 * bytes / (ms_in * 1e-3) / 1e9, env.copy_gbs};
            print_row(r);
            rows.push_back(r);
        }
    }
    for (ghz_dtype_t t : {GHZ_F32, GHZ_F64}) {
        const size_t n = bytes / ghz_dtype_size(t);
        ghz_status_t st = GHZ_SUCCESS;
        /* s = 1: the values stay as they are however many calls run */
        const double ms = time_ms(reps, env.ea, env.eb, [&] { st = ghz_coll_scale_cuda(out, n, t, 1.0, 0); });
        GHZ_OK(st);
        const row rs{"scale", ghz_dtype_name(t), 2.0 * bytes / (ms * 1e-3) / 1e9, -1.0, env.copy_gbs};
        print_row(rs);
        rows.push_back(rs);
        const double ms_r = time_ms(reps, env.ea, env.eb, [&] { st = ghz_coll_range_cuda(a, n, t, d_acc, d_range, NULL, 0); });
        GHZ_OK(st);
        const row rr{"range", ghz_dtype_name(t), (double)bytes / (ms_r * 1e-3) / 1e9, -1.0, read_gbs};
        print_row(rr);
        rows.push_back(rr);
    }
    CUDA_OK(cudaDeviceSynchronize());

    if (FILE* js = fopen(o.json, "w")) {
        fprintf(js, "{\"device\":\"%s\",\"copy_gbs\":%.1f,\"read_gbs\":%.1f,\"array_bytes\":%zu,\"results\":[\n",
                env.prop.name, env.copy_gbs, read_gbs, bytes);
        for (size_t i = 0; i < rows.size(); ++i)
            fprintf(js, "%s{\"op\":\"%s\",\"dtype\":\"%s\",\"gbs\":%.1f,\"inplace_gbs\":%.1f,\"roof_gbs\":%.1f}",
                    i ? ",\n" : "", rows[i].what.c_str(), rows[i].dtype.c_str(), rows[i].gbs, rows[i].inplace_gbs,
                    rows[i].roof_gbs);
        fprintf(js, "\n]}\n");
        fclose(js);
    }
    CUDA_OK(cudaFree(out));
    CUDA_OK(cudaFree(a));
    CUDA_OK(cudaFree(b));
    CUDA_OK(cudaFree(d_range));
    CUDA_OK(cudaFree(d_acc));
    return 0;
}
