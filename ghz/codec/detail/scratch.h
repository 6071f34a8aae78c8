/* ghz/codec/detail/scratch.h (private): the CPU codec's scratch arrays of a few bytes
 * per value. */
#ifndef GHZ_CODEC_DETAIL_SCRATCH_H
#define GHZ_CODEC_DETAIL_SCRATCH_H

#include <stddef.h>

/* An array of `bytes` bytes (NULL when out of memory), freed with ghz_scratch_free.
 * From 1 MiB on its whole 2 MiB pages are given to ghz_huge_pages: in a short run the
 * page faults of 4 KiB pages cost about as much time as the coding of the values. */
void* ghz_scratch_alloc(size_t bytes);
void ghz_scratch_free(void* p);

#endif
