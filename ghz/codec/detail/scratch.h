/* ghz/codec/detail/scratch.h (private): the CPU codec's scratch arrays of a few bytes
 * per value. */
#ifndef GHZ_CODEC_DETAIL_SCRATCH_H
#define GHZ_CODEC_DETAIL_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An array of `bytes` bytes (NULL when out of memory), freed with ghz_scratch_free.
 * From 1 MiB on its whole 2 MiB pages are given to ghz_huge_pages: in a short run the
 * page faults of 4 KiB pages cost about as much time as the coding of the values. */
void* ghz_scratch_alloc(size_t bytes);
void ghz_scratch_free(void* p);

/* p, holding *n elements of `size` bytes in room for *cap, with the m elements of src
 * appended (the room doubled as needed); NULL when out of memory (p is then unchanged). */
static inline void* ghz_append(void* p, uint64_t* n, uint64_t* cap, const void* src, uint64_t m, size_t size)
{
    if (*n + m > *cap) {
        uint64_t c = *cap ? *cap : 1024;
        void* grown;
        while (c < *n + m) c *= 2;
        if (!(grown = realloc(p, (size_t)(c * size)))) return NULL;
        p = grown;
        *cap = c;
    }
    if (m) memcpy((uint8_t*)p + *n * size, src, (size_t)(m * size));
    *n += m;
    return p;
}

#endif
