/* ghz/homo/detail/engine.h (private): the CPU engine behind every stream operation of
 * ghz/homo: walks k input streams frame by frame and block by block and writes the
 * combined stream (HOMO.md). */
#ifndef GHZ_HOMO_DETAIL_ENGINE_H
#define GHZ_HOMO_DETAIL_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/errors.h"

/* What to compute: op is GHZ_HOMO_SUM..MAX (SUM with k inputs is the n-ary sum) or
 * GHZ_HOP_NEG / GHZ_HOP_MUL (k = 1, factor for MUL). */
typedef struct {
    int op;
    int32_t factor;
} ghz_homo_job;

/* Combines in[0..k) (in_size[i] bytes each) into out[0..out_cap), *out_size bytes.
 * in[0] may lie inside out as ghz_homo_binary_inplace arranges it (HOMO.md, In
 * place): the engine copies each frame's header and codes of input 0 aside before
 * writing that frame, and reads every input block before writing its output block. */
ghz_status_t ghz_homo_run(const ghz_homo_job* job, size_t k, const uint8_t* const* in,
                          const size_t* in_size, uint8_t* out, size_t out_cap, size_t* out_size);

#endif
