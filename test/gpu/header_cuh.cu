// test/gpu/header_cuh.cu: the installed device headers (the advanced tier's warp.cuh
// and fixed.cuh, with GHZ_ADVANCED) compile with nvcc on their own, together with
// every public C header, and their versioned namespace is the one version.h names.
// Built in CUDA builds; running it needs no GPU.
#define GHZ_ADVANCED 1
#include "ghz/codec/fixed.cuh"
#include "ghz/codec/warp.cuh"
#include "ghz/ghz.h"
#include "ghz/codec/codec_cuda.h"
#include "ghz/codec/fixed_cuda.h"
#include "ghz/homo/homo_cuda.h"

#include <type_traits>

// Instantiated, so that the templates are compiled, not only parsed.
__global__ void use_headers(ghz_fixed_view_t v, float* out)
{
    ghz::fixed_raw r = ghz::fixed_chunk_fetch<16>(v, threadIdx.x);
    float vals[ghz::fixed_chunk<16>::elems];
    ghz::fixed_chunk_values<float, 16>(r, vals);
    out[threadIdx.x] = vals[0] + (float)ghz_lane_id();
}

static_assert(std::is_same<ghz::fixed_raw, ghz::GHZ_ABI_NS::fixed_raw>::value,
              "fixed.cuh lives in the versioned inline namespace");

int main()
{
    return 0;
}
