/* test/gpu/fixed_kernels.cu: user-style kernels over fixed.h's element accessor, so
 * the C test can check that load, store and dot on the device equal the CPU's. */
#include "fixed_kernels.h"

namespace {

__global__ void load_all(ghz_fixed_view_t v, double* out)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < v.n;
         i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = ghz_fixed_load(&v, i);
}

__global__ void store_all(ghz_fixed_view_t v, const double* vals, int* ok)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < v.n;
         i += (uint64_t)gridDim.x * blockDim.x)
        ok[i] = ghz_fixed_store(&v, i, vals[i]);
}

__global__ void dot_ranges(ghz_fixed_view_t v, const double* y, uint64_t len, double* part)
{
    const uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    const uint64_t begin = r * len, end = begin + len < v.n ? begin + len : v.n;
    if (begin < v.n) part[r] = ghz_fixed_dot(&v, y + begin, begin, end);
}

} // namespace

extern "C" int tfx_load_all(ghz_fixed_view_t v, double* d_out)
{
    load_all<<<64, 256>>>(v, d_out);
    return (int)cudaDeviceSynchronize();
}

extern "C" int tfx_store_all(ghz_fixed_view_t v, const double* d_vals, int* d_ok)
{
    store_all<<<64, 256>>>(v, d_vals, d_ok);
    return (int)cudaDeviceSynchronize();
}

extern "C" int tfx_dot_ranges(ghz_fixed_view_t v, const double* d_y, uint64_t len, double* d_part)
{
    const uint64_t ranges = (v.n + len - 1) / len;
    dot_ranges<<<(unsigned)((ranges + 127) / 128), 128>>>(v, d_y, len, d_part);
    return (int)cudaDeviceSynchronize();
}
