/* ghz/codec/cuda/checksum.cuh (private): the GPU reader verifies a frame's checksum
 * (FORMAT.md, Checksum) before a single value is decoded.
 *
 * The work rides in the offsets kernel of decompress.cu, in CTAs of its own after the
 * offset groups, between the init kernel (which parses each chunk's header into
 * c.parsed and zeroes the accumulator) and the decode kernel:
 *  - partial: the covered bytes [0, L) of a checksummed frame are cut into segments
 *    of kSeg bytes counted from the END (segment j = [L - (j+1)kSeg, L - j kSeg),
 *    the first one short), so that segment j's raw CRC enters the whole with the
 *    factor x^(8 kSeg j), whatever L is. Each thread takes segments j, j + stride,
 *    j + 2 stride...; it keeps sum_i raw_i * G^i with G = x^(8 kSeg stride) (two
 *    GF(2) products per segment), multiplies the sum by x^(8 kSeg j0) once at the end
 *    and XORs it into the accumulator;
 *  - finish, by the last checksum CTA of the chunk to arrive (a ticket counter): adds
 *    the initial value's term, compares with the stored CRC and, on a mismatch, sets
 *    the chunk's crc_status to GHZ_ERR_CORRUPT, which the decode kernel reads with the
 *    header's status: every tile of the chunk leaves at once and tile 0 reports it.
 * A frame without the flag (or with a header already refused) costs those CTAs one
 * read each: whether a frame has a checksum is known only on the GPU. Riding in the
 * offsets kernel's launch, they add no launch or wait of their own to a call. */
#ifndef GHZ_CODEC_CUDA_CHECKSUM_CUH
#define GHZ_CODEC_CUDA_CHECKSUM_CUH

#include "ghz/codec/cuda/tile.cuh"
#include "ghz/codec/detail/crc32c.h"
#include "ghz/codec/detail/header.h"

namespace ghz {
namespace detail {

constexpr int kSeg = 128;              /* bytes of one segment */
constexpr unsigned kMaxCrcCtas = 2048; /* per chunk; more segments are strided over */

/* Checksum CTAs (of kThreads threads) per frame for frames of at most `bytes` bytes
 * (ghz/homo's kernels size theirs with it too). */
inline unsigned checksum_ctas(uint64_t bytes)
{
    const uint64_t ctas = (bytes / kSeg + 1 + kThreads - 1) / kThreads;
    return (unsigned)(ctas < kMaxCrcCtas ? ctas : kMaxCrcCtas);
}

/* Checksum CTAs for the largest chunk of a batch. */
inline unsigned checksum_ctas(const batch_t& b)
{
    uint64_t most = 0;
    for (int i = 0; i < b.k; ++i)
        if (b.c[i].n > most) most = b.c[i].n;
    return checksum_ctas(most);
}

/* By all threads of checksum CTA `cta` of `ctas` for chunk c; table: 256 words of
 * shared memory. */
__device__ __forceinline__ void checksum_part(const chunk_t& c, unsigned cta, unsigned ctas, uint32_t* table)
{
    parsed_t* const p = c.parsed;
    if (p->status != GHZ_SUCCESS || !p->info.has_checksum) return; /* the same for the whole CTA */
    for (unsigned i = threadIdx.x; i < 256u; i += kThreads) table[i] = ghz_crc32c_entry(i);
    __syncthreads();

    const uint64_t covered = p->info.frame_size - GHZ_CHECKSUM_SIZE;
    const uint64_t nseg = (covered + kSeg - 1) / kSeg;
    const uint64_t stride = (uint64_t)ctas * kThreads;
    const uint64_t j0 = (uint64_t)cta * kThreads + threadIdx.x;
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
    if ((threadIdx.x & 31u) == 0 && acc) atomicXor(&p->crc, acc);

    /* The last CTA to arrive finishes: every share is in once its ticket is the last. */
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&p->crc_done, 1u) == ctas - 1u) {
            __threadfence();
            const uint32_t crc = ghz_crc32c_finish(atomicXor(&p->crc, 0u), covered);
            if (crc != (uint32_t)ghz_load_le(c.src + covered, GHZ_CHECKSUM_SIZE)) {
                p->crc_status = GHZ_ERR_CORRUPT;
                if (c.d_out) *c.d_out = 0;
            }
        }
    }
}

} // namespace detail
} // namespace ghz

#endif
