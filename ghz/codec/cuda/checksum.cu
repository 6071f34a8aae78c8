/* ghz/codec/cuda/checksum.cu: the GPU reader verifies a frame's checksum (FORMAT.md,
 * Checksum) before a single value is decoded.
 *
 * Between the init kernel (which parses each chunk's header into c.parsed) and the
 * decode kernel, three kernels run on the same stream:
 *  1. prepare: zeroes each chunk's accumulator;
 *  2. partial: the covered bytes [0, L) of a checksummed frame are cut into segments
 *     of kSeg bytes counted from the END (segment j = [L - (j+1)kSeg, L - j kSeg),
 *     the first one short), so that segment j's raw CRC enters the whole with the
 *     factor x^(8 kSeg j), whatever L is. Each thread takes segments j, j + stride,
 *     j + 2 stride...; it keeps sum_i raw_i * G^i with G = x^(8 kSeg stride) (two
 *     GF(2) products per segment), multiplies the sum by x^(8 kSeg j0) once at the end
 *     and XORs it into the accumulator;
 *  3. finish: adds the initial value's term, compares with the stored CRC and, on a
 *     mismatch, turns the parsed status into GHZ_ERR_CORRUPT, so every tile of the
 *     decode kernel leaves at once and tile 0 reports it.
 * Frames without the flag (or with a header already refused) cost three tiny launches
 * that return at once: whether a frame has a checksum is known only on the GPU. */
#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/detail/crc32c.h"
#include "ghz/codec/detail/header.h"

namespace ghz {
namespace detail {

namespace {

constexpr int kSeg = 128;           /* bytes of one segment */
constexpr int kCrcThreads = 256;
constexpr unsigned kMaxCtas = 1024; /* per chunk; more segments are strided over */

__device__ __forceinline__ bool wants_check(const chunk_t& c)
{
    return c.parsed->status == GHZ_SUCCESS && c.parsed->info.has_checksum;
}

__global__ void checksum_prepare_kernel(batch_t b)
{
    if (threadIdx.x < (unsigned)b.k) b.c[threadIdx.x].parsed->crc = 0u;
}

__global__ void __launch_bounds__(kCrcThreads) checksum_partial_kernel(batch_t b)
{
    __shared__ uint32_t table[256];
    const chunk_t& c = b.c[blockIdx.y];
    if (!wants_check(c)) return; /* the same verdict for the whole CTA */
    table[threadIdx.x] = ghz_crc32c_entry(threadIdx.x);
    __syncthreads();

    const uint64_t covered = c.parsed->info.frame_size - GHZ_CHECKSUM_SIZE;
    const uint64_t nseg = (covered + kSeg - 1) / kSeg;
    const uint64_t stride = (uint64_t)gridDim.x * kCrcThreads;
    const uint64_t j0 = (uint64_t)blockIdx.x * kCrcThreads + threadIdx.x;
    uint32_t acc = 0;
    if (j0 < nseg) {
        const uint32_t g = ghz_crc32c_shift((uint64_t)kSeg * stride);
        uint32_t gi = GHZ_CRC32C_ONE;
        for (uint64_t j = j0; j < nseg; j += stride) {
            const uint64_t hi = covered - j * kSeg, lo = hi > (uint64_t)kSeg ? hi - kSeg : 0;
            uint32_t r = 0;
            for (uint64_t i = lo; i < hi; ++i) r = table[(r ^ __ldg(c.src + i)) & 0xFFu] ^ (r >> 8);
            acc ^= ghz_crc32c_mul(r, gi);
            gi = ghz_crc32c_mul(gi, g);
        }
        acc = ghz_crc32c_mul(acc, ghz_crc32c_shift((uint64_t)kSeg * j0));
    }
    /* XOR over the warp (all lanes: those without a segment add 0), one atomic each */
    for (int k = 16; k; k >>= 1) acc ^= __shfl_xor_sync(0xFFFFFFFFu, acc, k);
    if ((threadIdx.x & 31u) == 0 && acc) atomicXor(&c.parsed->crc, acc);
}

__global__ void checksum_finish_kernel(batch_t b)
{
    if (threadIdx.x >= (unsigned)b.k) return;
    const chunk_t& c = b.c[threadIdx.x];
    if (!wants_check(c)) return;
    const uint64_t covered = c.parsed->info.frame_size - GHZ_CHECKSUM_SIZE;
    const uint32_t crc = ghz_crc32c_finish(c.parsed->crc, covered);
    if (crc != (uint32_t)ghz_load_le(c.src + covered, GHZ_CHECKSUM_SIZE)) {
        c.parsed->status = GHZ_ERR_CORRUPT;
        if (c.d_out) *c.d_out = 0;
    }
}

} // namespace

cudaError_t launch_checksum_verify(const batch_t& b, cudaStream_t stream)
{
    uint64_t most = 1;
    for (int i = 0; i < b.k; ++i) {
        const uint64_t ctas = (b.c[i].n / kSeg + 1 + kCrcThreads - 1) / kCrcThreads;
        if (ctas > most) most = ctas;
    }
    const dim3 grid((unsigned)(most < kMaxCtas ? most : kMaxCtas), (unsigned)b.k);
    checksum_prepare_kernel<<<1, GHZ_CUDA_MAX_BATCH, 0, stream>>>(b);
    checksum_partial_kernel<<<grid, kCrcThreads, 0, stream>>>(b);
    checksum_finish_kernel<<<1, GHZ_CUDA_MAX_BATCH, 0, stream>>>(b);
    return cudaGetLastError();
}

} // namespace detail
} // namespace ghz
