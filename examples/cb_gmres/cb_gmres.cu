/* examples/cb_gmres/cb_gmres.cu: compressed-basis GMRES (CB-GMRES) on the GPU.
 *
 *   ghz-cb-gmres [--n N] [--m M] [--tol T] [--maxit I] [--conv C] [--json FILE] [--only NAME]
 *
 * Restarted GMRES(m) for A x = b, A the 7-point finite-difference operator of
 * -lap(u) + c . grad(u) on the unit cube with N^3 interior points (default N = 100:
 * 10^6 unknowns), central differences, zero Dirichlet boundary, scaled by h^2; b = 1,
 * x0 = 0. Only the Krylov basis is stored in the format under test: float64, float32,
 * or fixed rate l = 32 / l = 16 (FIXED.md), which the kernels read 16-byte chunk by
 * chunk and decode in registers (fixed.cuh), as they read the float formats. Everything else (SpMV on CSR with our own kernel, the
 * vector being orthogonalised, the Hessenberg matrix, x) is float64. Orthogonalisation
 * is classical Gram-Schmidt with one re-orthogonalisation when the norm drops below
 * 1/sqrt(2) of its value before (as in Ginkgo's CB-GMRES). A restart solves the
 * least-squares problem, updates x and recomputes the true residual b - A x; the solver
 * stops when ||b - A x|| / ||b|| <= tol (default 1e-10), checked on the true residual.
 *
 * Output: per basis format, iterations (inner steps over all restarts) and restarts to
 * reach tol, the final true relative residual, the wall time of the solve (including
 * the host round trips every iteration makes for H), and the basis memory. */
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ghz/codec/fixed.cuh"
#include "ghz/codec/fixed_cuda.h"
#include "ghz/ghz.h"

#define CUDA_OK(call)                                                                   \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "cb_gmres: %s: %s\n", #call, cudaGetErrorString(e_));      \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

namespace {

constexpr int kThreads = 256;
int g_grid = 132 * 4;

/* ---- sparse matrix --------------------------------------------------------------- */

struct csr {
    size_t n = 0, nnz = 0;
    int *rowptr = nullptr, *col = nullptr;
    double* val = nullptr;
};

/* The scaled 7-point operator on an N^3 grid, assembled on the host. */
csr make_problem(int N, double conv)
{
    const size_t n = (size_t)N * N * N;
    const double h = 1.0 / (N + 1), a = conv * h / 2; /* central convection term * h^2 */
    std::vector<int> rp(n + 1), cl;
    std::vector<double> vl;
    cl.reserve(7 * n);
    vl.reserve(7 * n);
    for (int z = 0; z < N; ++z)
        for (int y = 0; y < N; ++y)
            for (int x = 0; x < N; ++x) {
                const size_t r = ((size_t)z * N + y) * N + x;
                rp[r] = (int)cl.size();
                auto add = [&](int xx, int yy, int zz, double v) {
                    if (xx < 0 || yy < 0 || zz < 0 || xx >= N || yy >= N || zz >= N) return;
                    cl.push_back((int)(((size_t)zz * N + yy) * N + xx));
                    vl.push_back(v);
                };
                add(x, y, z - 1, -1 - a);
                add(x, y - 1, z, -1 - a);
                add(x - 1, y, z, -1 - a);
                add(x, y, z, 6.0);
                add(x + 1, y, z, -1 + a);
                add(x, y + 1, z, -1 + a);
                add(x, y, z + 1, -1 + a);
            }
    rp[n] = (int)cl.size();
    csr A;
    A.n = n;
    A.nnz = cl.size();
    CUDA_OK(cudaMalloc(&A.rowptr, (n + 1) * sizeof(int)));
    CUDA_OK(cudaMalloc(&A.col, A.nnz * sizeof(int)));
    CUDA_OK(cudaMalloc(&A.val, A.nnz * sizeof(double)));
    CUDA_OK(cudaMemcpy(A.rowptr, rp.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(A.col, cl.data(), A.nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(A.val, vl.data(), A.nnz * sizeof(double), cudaMemcpyHostToDevice));
    return A;
}

/* y = A x, one thread per row. */
__global__ void spmv_kernel(size_t n, const int* __restrict__ rp, const int* __restrict__ col,
                            const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < n; r += (size_t)gridDim.x * blockDim.x) {
        double s = 0;
        for (int k = rp[r]; k < rp[r + 1]; ++k) s += val[k] * x[col[k]];
        y[r] = s;
    }
}

/* ---- vectors ------------------------------------------------------------------- */

__device__ double block_sum(double v)
{
    __shared__ double part[kThreads / 32];
    for (int k = 16; k; k >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, k);
    __syncthreads(); /* part[] may still be read from the previous call */
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < kThreads / 32 ? part[threadIdx.x] : 0.0;
    if (threadIdx.x < 32)
        for (int k = 16; k; k >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, k);
    return v;
}

/* out[0] += a . b (out zeroed by the caller) */
__global__ void dot_kernel(size_t n, const double* a, const double* b, double* out)
{
    double s = 0;
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < n; r += (size_t)gridDim.x * blockDim.x)
        s += a[r] * b[r];
    s = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(out, s);
}

/* y = alpha * (x - y) when sub, else y = alpha * x */
__global__ void scale_kernel(size_t n, double alpha, const double* x, double* y, int sub)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < n; r += (size_t)gridDim.x * blockDim.x)
        y[r] = alpha * (sub ? x[r] - y[r] : x[r]);
}

__global__ void to_f32_kernel(size_t n, const double* x, float* y)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < n; r += (size_t)gridDim.x * blockDim.x)
        y[r] = (float)x[r];
}

/* ---- the Krylov basis in four storage formats ------------------------------------ */

/* Each format hands out 16-byte chunks of a basis vector: fetch(i, ch) loads chunk ch
 * of vector i (one 16-byte load, plus the block word for fixed rate), values() decodes
 * it into kElems doubles. The kernels fetch several chunks before they decode the first,
 * so the loads overlap (fixed.cuh). Vectors are kElems-aligned: float64 and float32
 * vectors lie `ld` elements apart (n rounded up to 32), fixed-rate frames frame_bytes. */
struct basis_f64 {
    static constexpr unsigned kElems = 2;
    using raw = double2;
    double* p;
    size_t n, ld;
    __device__ raw fetch(int i, size_t ch) const { return __ldg(reinterpret_cast<const double2*>(p + (size_t)i * ld) + ch); }
    __device__ static void values(const raw& r, double (&y)[kElems])
    {
        y[0] = r.x;
        y[1] = r.y;
    }
};
struct basis_f32 {
    static constexpr unsigned kElems = 4;
    using raw = float4;
    float* p;
    size_t n, ld;
    __device__ raw fetch(int i, size_t ch) const { return __ldg(reinterpret_cast<const float4*>(p + (size_t)i * ld) + ch); }
    __device__ static void values(const raw& r, double (&y)[kElems])
    {
        y[0] = r.x;
        y[1] = r.y;
        y[2] = r.z;
        y[3] = r.w;
    }
};
/* m fixed-rate frames of float64 vectors at BITS bits, frame_bytes apart */
template <unsigned BITS>
struct basis_fixed {
    static constexpr unsigned kElems = ghz::fixed_chunk<BITS>::elems;
    using raw = ghz::fixed_raw;
    uint8_t* p;
    size_t n, frame_bytes;
    __device__ raw fetch(int i, size_t ch) const
    {
        const ghz_fixed_view_t v = ghz_fixed_view_make(p + (size_t)i * frame_bytes, GHZ_F64, BITS, n);
        return ghz::fixed_chunk_fetch<BITS>(v, ch);
    }
    __device__ static void values(const raw& r, double (&y)[kElems]) { ghz::fixed_chunk_values<double, BITS>(r, y); }
};

/* Basis chunks fetched ahead of their use in the kernels below. */
constexpr int kAhead = 4;

/* The kElems entries of w at chunk ch (those past n read as 0). */
template <unsigned E>
__device__ void chunk_of(const double* __restrict__ w, size_t n, size_t ch, double (&y)[E])
{
    const size_t r0 = ch * E;
    if (r0 + E <= n) {
#pragma unroll
        for (unsigned j = 0; j < E; j += 2) {
            const double2 t = __ldg(reinterpret_cast<const double2*>(w + r0 + j));
            y[j] = t.x;
            y[j + 1] = t.y;
        }
    } else {
#pragma unroll
        for (unsigned j = 0; j < E; ++j) y[j] = r0 + j < n ? w[r0 + j] : 0.0;
    }
}

/* h[i] += V_i . w for i < k (h zeroed by the caller): CTA (x, i) takes slice x of
 * vector i, so all k dot products run at once rather than one after another. */
template <class B>
__global__ void multi_dot_kernel(B V, size_t n, const double* __restrict__ w, double* h)
{
    constexpr unsigned E = B::kElems;
    const int i = blockIdx.y;
    const size_t chunks = (n + E - 1) / E, stride = (size_t)gridDim.x * blockDim.x;
    double s = 0;
    for (size_t c0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c0 < chunks; c0 += kAhead * stride) {
        typename B::raw r[kAhead];
#pragma unroll
        for (int a = 0; a < kAhead; ++a)
            if (c0 + a * stride < chunks) r[a] = V.fetch(i, c0 + a * stride);
#pragma unroll
        for (int a = 0; a < kAhead; ++a) {
            if (c0 + a * stride >= chunks) break;
            double y[E], x[E];
            B::values(r[a], y);
            chunk_of<E>(w, n, c0 + a * stride, x);
#pragma unroll
            for (unsigned j = 0; j < E; ++j) s += y[j] * x[j]; /* x is 0 past n */
        }
    }
    s = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(&h[i], s);
}

/* Slices per vector for multi_dot_kernel: each thread about two rounds of kAhead chunks. */
template <class B>
unsigned dot_slices(size_t n)
{
    const size_t chunks = (n + B::kElems - 1) / B::kElems, per_cta = (size_t)kThreads * kAhead * 2;
    return (unsigned)((chunks + per_cta - 1) / per_cta);
}

/* w -= sum_i c[i] V_i for i < k (k <= 1024) */
template <class B>
__global__ void combine_kernel(B V, int k, size_t n, const double* __restrict__ c, double* w)
{
    constexpr unsigned E = B::kElems;
    __shared__ double cs[1024];
    for (int i = threadIdx.x; i < k; i += blockDim.x) cs[i] = c[i];
    __syncthreads();
    const size_t chunks = (n + E - 1) / E;
    for (size_t ch = blockIdx.x * (size_t)blockDim.x + threadIdx.x; ch < chunks; ch += (size_t)gridDim.x * blockDim.x) {
        double s[E];
        chunk_of<E>(w, n, ch, s);
        for (int i0 = 0; i0 < k; i0 += kAhead) {
            typename B::raw r[kAhead];
#pragma unroll
            for (int a = 0; a < kAhead; ++a)
                if (i0 + a < k) r[a] = V.fetch(i0 + a, ch);
#pragma unroll
            for (int a = 0; a < kAhead; ++a) {
                if (i0 + a >= k) break;
                double y[E];
                B::values(r[a], y);
#pragma unroll
                for (unsigned j = 0; j < E; ++j) s[j] -= cs[i0 + a] * y[j];
            }
        }
        const size_t r0 = ch * E;
#pragma unroll
        for (unsigned j = 0; j < E; ++j)
            if (r0 + j < n) w[r0 + j] = s[j];
    }
}

/* ---- the solver ------------------------------------------------------------------ */

struct workspace {
    double *b, *x, *r, *w, *cur, *d_h, *d_s;
};

double dot(size_t n, const double* a, const double* b, double* d_s)
{
    double s;
    CUDA_OK(cudaMemset(d_s, 0, sizeof(double)));
    dot_kernel<<<g_grid, kThreads>>>(n, a, b, d_s);
    CUDA_OK(cudaMemcpy(&s, d_s, sizeof(double), cudaMemcpyDeviceToHost));
    return s;
}

void spmv(const csr& A, const double* x, double* y)
{
    spmv_kernel<<<g_grid, kThreads>>>(A.n, A.rowptr, A.col, A.val, x, y);
}

struct outcome {
    long iters = 0, restarts = 0;
    double rel_res = 0, seconds = 0;
    bool converged = false;
};

/* Stores the float64 vector v as basis vector i. */
template <class B>
void store(const B& V, int i, const double* v);
template <>
void store(const basis_f64& V, int i, const double* v)
{
    CUDA_OK(cudaMemcpyAsync(V.p + (size_t)i * V.ld, v, V.n * sizeof(double), cudaMemcpyDeviceToDevice));
}
template <>
void store(const basis_f32& V, int i, const double* v)
{
    to_f32_kernel<<<g_grid, kThreads>>>(V.n, v, V.p + (size_t)i * V.ld);
}
template <unsigned BITS>
void store(const basis_fixed<BITS>& V, int i, const double* v)
{
    ghz_status_t st = ghz_cuda_fixed_compress(NULL, GHZ_F64, BITS, v, V.n, V.p + (size_t)i * V.frame_bytes,
                                              V.frame_bytes, 0);
    if (st != GHZ_SUCCESS) {
        fprintf(stderr, "cb_gmres: ghz_cuda_fixed_compress: %s (%s)\n", ghz_status_string(st),
                ghz_last_error_detail());
        exit(1);
    }
}

/* h = V[0..k)^T w; w -= V h; returns h (host). */
template <class B>
void project(const B& V, int k, size_t n, workspace& ws, double* h)
{
    CUDA_OK(cudaMemset(ws.d_h, 0, k * sizeof(double)));
    multi_dot_kernel<<<dim3(dot_slices<B>(n), (unsigned)k), kThreads>>>(V, n, ws.w, ws.d_h);
    combine_kernel<<<g_grid, kThreads>>>(V, k, n, ws.d_h, ws.w);
    CUDA_OK(cudaMemcpy(h, ws.d_h, k * sizeof(double), cudaMemcpyDeviceToHost));
}

template <class B>
outcome gmres(const csr& A, const B& V, int m, double tol, long maxit, workspace& ws)
{
    const size_t n = A.n;
    std::vector<double> H((size_t)(m + 1) * m), cs(m), sn(m), g(m + 1), h(m + 1), h2(m + 1), y(m);
    auto Hij = [&](int i, int j) -> double& { return H[(size_t)j * (m + 1) + i]; };
    outcome o;
    CUDA_OK(cudaMemset(ws.x, 0, n * sizeof(double)));
    CUDA_OK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    const double bnorm = std::sqrt(dot(n, ws.b, ws.b, ws.d_s));
    CUDA_OK(cudaMemcpy(ws.r, ws.b, n * sizeof(double), cudaMemcpyDeviceToDevice));
    double beta = bnorm;
    while (true) {
        o.rel_res = beta / bnorm;
        if (o.rel_res <= tol) {
            o.converged = true;
            break;
        }
        if (o.iters >= maxit) break;
        scale_kernel<<<g_grid, kThreads>>>(n, 1.0 / beta, ws.r, ws.cur, 0);
        store(V, 0, ws.cur);
        std::fill(g.begin(), g.end(), 0.0);
        g[0] = beta;
        int k = 0;
        for (int j = 0; j < m && o.iters < maxit; ++j) {
            spmv(A, ws.cur, ws.w);
            const double nw0 = std::sqrt(dot(n, ws.w, ws.w, ws.d_s));
            project(V, j + 1, n, ws, h.data());
            double nw = std::sqrt(dot(n, ws.w, ws.w, ws.d_s));
            if (nw < nw0 / std::sqrt(2.0)) { /* re-orthogonalise once */
                project(V, j + 1, n, ws, h2.data());
                for (int i = 0; i <= j; ++i) h[i] += h2[i];
                nw = std::sqrt(dot(n, ws.w, ws.w, ws.d_s));
            }
            for (int i = 0; i <= j; ++i) Hij(i, j) = h[i];
            Hij(j + 1, j) = nw;
            ++o.iters;
            k = j + 1;
            /* Givens rotations: H stays upper triangular, g[j+1] is the residual norm */
            for (int i = 0; i < j; ++i) {
                const double t = cs[i] * Hij(i, j) + sn[i] * Hij(i + 1, j);
                Hij(i + 1, j) = -sn[i] * Hij(i, j) + cs[i] * Hij(i + 1, j);
                Hij(i, j) = t;
            }
            const double d = std::hypot(Hij(j, j), Hij(j + 1, j));
            cs[j] = Hij(j, j) / d;
            sn[j] = Hij(j + 1, j) / d;
            Hij(j, j) = d;
            Hij(j + 1, j) = 0;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            if (std::fabs(g[j + 1]) / bnorm <= tol || nw == 0.0) break;
            if (j + 1 < m) {
                scale_kernel<<<g_grid, kThreads>>>(n, 1.0 / nw, ws.w, ws.cur, 0);
                store(V, j + 1, ws.cur);
            }
        }
        /* x += V y with H y = g (upper triangular) */
        for (int i = k - 1; i >= 0; --i) {
            double s = g[i];
            for (int l = i + 1; l < k; ++l) s -= Hij(i, l) * y[l];
            y[i] = s / Hij(i, i);
        }
        for (int i = 0; i < k; ++i) y[i] = -y[i];
        CUDA_OK(cudaMemcpy(ws.d_h, y.data(), k * sizeof(double), cudaMemcpyHostToDevice));
        combine_kernel<<<g_grid, kThreads>>>(V, k, n, ws.d_h, ws.x);
        /* the true residual */
        spmv(A, ws.x, ws.w);
        scale_kernel<<<g_grid, kThreads>>>(n, 1.0, ws.b, ws.w, 1);
        CUDA_OK(cudaMemcpy(ws.r, ws.w, n * sizeof(double), cudaMemcpyDeviceToDevice));
        beta = std::sqrt(dot(n, ws.r, ws.r, ws.d_s));
        ++o.restarts;
    }
    CUDA_OK(cudaDeviceSynchronize());
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return o;
}

__global__ void fill_kernel(size_t n, double v, double* x)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < n; r += (size_t)gridDim.x * blockDim.x)
        x[r] = v;
}

} // namespace

int main(int argc, char** argv)
{
    int N = 100, m = 100;
    double tol = 1e-10, conv = 50.0;
    long maxit = 20000;
    const char* json = nullptr;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!v || a == "-h" || a == "--help") {
            printf("usage: ghz-cb-gmres [--n N] [--m M] [--tol T] [--maxit I] [--conv C] [--json FILE]"
                   " [--only f64|f32|fixed32|fixed16]\n");
            return a == "-h" || a == "--help" ? 0 : 2;
        }
        if (a == "--n") N = atoi(v);
        else if (a == "--m") m = atoi(v);
        else if (a == "--tol") tol = atof(v);
        else if (a == "--maxit") maxit = atol(v);
        else if (a == "--conv") conv = atof(v);
        else if (a == "--json") json = v;
        else if (a == "--only") only = v;
        else {
            fprintf(stderr, "cb_gmres: unknown argument %s\n", a.c_str());
            return 2;
        }
        ++i;
    }
    if (N < 2 || m < 1 || m > 1000 || !(tol > 0)) {
        fprintf(stderr, "cb_gmres: need N >= 2, 1 <= m <= 1000, tol > 0\n");
        return 2;
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    g_grid = prop.multiProcessorCount * 4;

    const csr A = make_problem(N, conv);
    const size_t n = A.n, ld = (n + 31) / 32 * 32;
    workspace ws;
    for (double** p : {&ws.b, &ws.x, &ws.r, &ws.w, &ws.cur}) CUDA_OK(cudaMalloc(p, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&ws.d_h, (m + 1) * sizeof(double)));
    CUDA_OK(cudaMalloc(&ws.d_s, sizeof(double)));
    fill_kernel<<<g_grid, kThreads>>>(n, 1.0, ws.b);

    printf("device: %s; problem: 3-D convection-diffusion, 7-point stencil, N = %d (%zu unknowns, %zu nonzeros),\n"
           "convection %g (cell Peclet %.3f); GMRES(%d), CGS + conditional re-orthogonalisation, x0 = 0, b = 1;\n"
           "stop at ||b - Ax|| / ||b|| <= %g (true residual), at most %ld iterations\n\n",
           prop.name, N, n, A.nnz, conv, conv / (N + 1) / 2, m, tol, maxit);
    printf("%-9s %8s %8s %12s %10s %12s %12s %s\n", "basis", "iters", "restarts", "rel.resid", "time s",
           "ms/iter", "basis MiB", "converged");
    FILE* js = json ? fopen(json, "w") : nullptr;
    if (js) fprintf(js, "{\"device\":\"%s\",\"N\":%d,\"unknowns\":%zu,\"m\":%d,\"tol\":%g,\"results\":[\n", prop.name, N, n, m, tol);
    int first = 1, failures = 0;
    const char* names[] = {"f64", "f32", "fixed32", "fixed16"};
    for (int c = 0; c < 4; ++c) {
        if (!only.empty() && only != names[c]) continue;
        outcome o;
        size_t bytes;
        if (c == 0) {
            basis_f64 V{nullptr, n, ld};
            bytes = (size_t)m * ld * sizeof(double);
            CUDA_OK(cudaMalloc(&V.p, bytes));
            o = gmres(A, V, m, tol, maxit, ws);
            CUDA_OK(cudaFree(V.p));
        } else if (c == 1) {
            basis_f32 V{nullptr, n, ld};
            bytes = (size_t)m * ld * sizeof(float);
            CUDA_OK(cudaMalloc(&V.p, bytes));
            o = gmres(A, V, m, tol, maxit, ws);
            CUDA_OK(cudaFree(V.p));
        } else {
            const unsigned bits = c == 2 ? 32u : 16u;
            bytes = (size_t)m * ghz_fixed_size(n, bits);
            uint8_t* p;
            CUDA_OK(cudaMalloc(&p, bytes));
            if (bits == 32) o = gmres(A, basis_fixed<32>{p, n, ghz_fixed_size(n, bits)}, m, tol, maxit, ws);
            else o = gmres(A, basis_fixed<16>{p, n, ghz_fixed_size(n, bits)}, m, tol, maxit, ws);
            CUDA_OK(cudaFree(p));
        }
        CUDA_OK(cudaGetLastError());
        failures += !o.converged;
        printf("%-9s %8ld %8ld %12.3e %10.3f %12.3f %12.1f %s\n", names[c], o.iters, o.restarts, o.rel_res, o.seconds,
               o.iters ? 1e3 * o.seconds / o.iters : 0.0, bytes / 1048576.0, o.converged ? "yes" : "NO");
        if (js) {
            fprintf(js,
                    "%s{\"basis\":\"%s\",\"iterations\":%ld,\"restarts\":%ld,\"rel_residual\":%.6e,\"seconds\":%.4f,"
                    "\"basis_bytes\":%zu,\"converged\":%s}",
                    first ? "" : ",\n", names[c], o.iters, o.restarts, o.rel_res, o.seconds, bytes,
                    o.converged ? "true" : "false");
            first = 0;
        }
    }
    if (js) {
        fprintf(js, "\n]}\n");
        fclose(js);
    }
    return failures ? 1 : 0;
}
