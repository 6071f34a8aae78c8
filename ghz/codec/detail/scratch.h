/* ghz/codec/detail/scratch.h (private): the CPU codec's scratch arrays of a few bytes
 * per value. */
#ifndef GHZ_CODEC_DETAIL_SCRATCH_H
#define GHZ_CODEC_DETAIL_SCRATCH_H

#include <stddef.h>

/* bytes of memory, freed with free(). From 1 MiB on it is 2 MiB-aligned, a whole
 * number of 2 MiB, and marked for transparent huge pages (Linux, where the kernel
 * leaves them to madvise, as Debian does): a fresh process then pays one page fault per
 * 2 MiB it touches instead of one per 4 KiB, which in a short run of the codec costs
 * as much as the coding of the values. A hint: the memory is the same without it. */
void* ghz_scratch_alloc(size_t bytes);

#endif
