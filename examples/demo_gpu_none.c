/* examples/demo_gpu_none.c: ghz-demo's GPU half in a build without the CUDA codec. */
#include <stdio.h>

#include "demo_gpu.h"

int demo_gpu_open(char* name, size_t len)
{
    snprintf(name, len, "no GPU backend in this build");
    return 0;
}

ghz_status_t demo_gpu_run(const ghz_params_t* p, const float* x, size_t n,
                          const unsigned char* cpu_z, size_t cpu_size, const float* cpu_y,
                          int reps, demo_gpu_result_t* r)
{
    (void)p, (void)x, (void)n, (void)cpu_z, (void)cpu_size, (void)cpu_y, (void)reps, (void)r;
    return GHZ_ERR_UNSUPPORTED;
}

void demo_gpu_close(void)
{
}
