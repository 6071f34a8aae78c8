/* examples/demo_gpu.h: the GPU half of ghz-demo. With a CUDA build and a usable GPU
 * the demo runs every case on the GPU too and checks that the GPU writes the very
 * bytes of the CPU reference; otherwise these report "no GPU" and the demo stays on
 * the CPU. */
#ifndef GHZ_DEMO_GPU_H
#define GHZ_DEMO_GPU_H

#include <stddef.h>

#include "ghz/ghz.h"

typedef struct {
    double comp_gbs, decomp_gbs; /* GB/s of uncompressed data, median of the repetitions */
    int same_bytes;              /* GPU stream == CPU stream */
    int decoded_same;            /* GPU decode == CPU decode, bit for bit */
} demo_gpu_result_t;

/* 1 and the device's name in name[0..len) when a GPU can be used, else 0 and why. */
int demo_gpu_open(char* name, size_t len);

/* Compresses x (n floats, parameters p) on the GPU reps times, decompresses as often,
 * and compares with the CPU's stream cpu_z (cpu_size bytes) and decoded values cpu_y. */
ghz_status_t demo_gpu_run(const ghz_params_t* p, const float* x, size_t n,
                          const unsigned char* cpu_z, size_t cpu_size, const float* cpu_y,
                          int reps, demo_gpu_result_t* r);

void demo_gpu_close(void);

#endif
