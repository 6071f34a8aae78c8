/* ghz/coll/cuda/fence_cuda.cu: the device-side fence (detail/fence_cuda.h).
 *
 * The kernel starts after every earlier operation of this rank's stream has completed;
 * thread 0's __threadfence_system and the release store of the new sequence number make
 * those writes visible, at system scope, before the number. A waiter's acquire load
 * that sees a peer's number orders the peer's earlier writes before everything this
 * rank's stream does after the kernel. The wait sleeps between polls: ranks that share
 * one GPU time-slice it, and spinning would only delay the peer waited for. */
#include "ghz/coll/detail/fence_cuda.h"
#include "ghz/detail/error.h"
#include "ghz/detail/launch_cuda.cuh"

namespace {

__device__ __forceinline__ uint64_t load_acquire(const uint64_t* p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release(uint64_t* p, uint64_t v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint64_t now_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void __launch_bounds__(32) fence_kernel(uint64_t* mine, uint64_t* const* peers, int n, int me,
                                                   uint64_t timeout_ns)
{
    const int lane = (int)threadIdx.x;
    /* only this rank writes its sequence word: its last value is the last fence's */
    const uint64_t seq = load_acquire(mine + GHZ_COLL_FENCE_SEQ) + 1u;
    const int failed = load_acquire(mine + GHZ_COLL_FENCE_ERROR) != 0;
    __syncwarp();
    if (lane == 0) {
        __threadfence_system();
        store_release(mine + GHZ_COLL_FENCE_SEQ, seq);
    }
    if (failed) return; /* a peer was missing before: publish, do not wait again */
    const uint64_t t0 = now_ns();
    for (int p = lane; p < n; p += 32) {
        if (p == me) continue;
        const uint64_t* const word = peers[p] + GHZ_COLL_FENCE_SEQ;
        while (load_acquire(word) < seq) {
            if (now_ns() - t0 > timeout_ns) {
                /* the first peer found missing, plus one (0 means none) */
                atomicCAS((unsigned long long*)(mine + GHZ_COLL_FENCE_ERROR), 0ull, (unsigned long long)p + 1ull);
                break;
            }
            __nanosleep(500);
        }
    }
}

} // namespace

extern "C" ghz_status_t ghz_coll_fence_cuda(uint64_t* mine, uint64_t* const* d_peers, int n, int me,
                                            uint64_t timeout_ns, cudaStream_t stream)
{
    return ghz::detail::launch_status("fence kernel", fence_kernel, dim3(1), dim3(32), stream, mine, d_peers, n, me,
                                      timeout_ns);
}
