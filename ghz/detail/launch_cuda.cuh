/* ghz/detail/launch_cuda.cuh (private): the one way ghz's CUDA code launches a kernel,
 * shared by the codec (ghz/codec/cuda) and the collectives (ghz/coll/cuda).
 *
 * Why cudaLaunchKernelEx and never `<<<>>>`: a `<<<>>>` launch reports a failure only
 * through cudaGetLastError(), which also returns (and clears) an error left behind by
 * the caller's earlier, unrelated work, so ghz would blame itself for it and erase it.
 * cudaLaunchKernelEx returns the error of this launch and nothing else. (It also never
 * runs nvcc's host stub of the kernel, whose first call initialises a function-local
 * static: the libraries build those stubs with --legacy-launch-seq, see
 * ghz/CMakeLists.txt.) */
#ifndef GHZ_DETAIL_LAUNCH_CUDA_CUH
#define GHZ_DETAIL_LAUNCH_CUDA_CUH

#include <cuda_runtime.h>

#include <utility>

#include "ghz/detail/error.h"

namespace ghz {
namespace detail {

/* kernel<<<grid, block, smem, stream>>>(args...), returning this launch's own error. */
template <typename... Exp, typename... Act>
cudaError_t launch_smem(void (*kernel)(Exp...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                        Act&&... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = nullptr;
    cfg.numAttrs = 0;
    return cudaLaunchKernelEx(&cfg, kernel, std::forward<Act>(args)...);
}

/* kernel<<<grid, block, 0, stream>>>(args...), returning this launch's own error. */
template <typename... Exp, typename... Act>
cudaError_t launch(void (*kernel)(Exp...), dim3 grid, dim3 block, cudaStream_t stream, Act&&... args)
{
    return launch_smem(kernel, grid, block, 0, stream, std::forward<Act>(args)...);
}

/* The same, as a status: GHZ_ERR_CUDA with "what: kernel launch failed: ..." recorded.
 * The failed launch is also the runtime's last error, and it is this launch's own:
 * it is cleared (unless sticky), so that the caller's next cudaGetLastError() does not
 * report it a second time. */
template <typename... Exp, typename... Act>
ghz_status_t launch_status(const char* what, void (*kernel)(Exp...), dim3 grid, dim3 block, cudaStream_t stream,
                           Act&&... args)
{
    const cudaError_t e = launch(kernel, grid, block, stream, std::forward<Act>(args)...);
    if (e == cudaSuccess) return GHZ_SUCCESS;
    (void)cudaGetLastError();
    return ghz_fail(GHZ_ERR_CUDA, "%s: kernel launch failed: %s", what, cudaGetErrorString(e));
}

} // namespace detail
} // namespace ghz

#endif
