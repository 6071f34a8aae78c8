/* ghz/codec/detail/scratch.h (private): the CPU codec's scratch arrays of a few bytes
 * per value. */
#ifndef GHZ_CODEC_DETAIL_SCRATCH_H
#define GHZ_CODEC_DETAIL_SCRATCH_H

#include <stddef.h>

/* bytes of memory, freed with free(). From 1 MiB on it is 2 MiB-aligned, a whole
 * number of 2 MiB, and given to ghz_huge_pages, which in a short run saves about as
 * much time as the coding of the values takes. */
void* ghz_scratch_alloc(size_t bytes);

#endif
