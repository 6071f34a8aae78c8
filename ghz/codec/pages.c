/* ghz/codec/pages.c: huge pages for large buffers (ghz_huge_pages, codec.h) and the
 * CPU codec's scratch arrays (detail/scratch.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise under -std=c11 */
#include <sys/mman.h>
#endif
#include <stdint.h>
#include <stdlib.h>

#include "ghz/codec/codec.h"
#include "ghz/codec/detail/scratch.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define HEAD 64u /* room before an array for the address to free, keeping it 64-aligned */

void ghz_huge_pages(void* p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (p && bytes <= UINTPTR_MAX - (uintptr_t)p && hi > lo) (void)madvise((void*)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* From malloc, so that a process calling the codec again gets the same memory back
 * (glibc keeps a freed block of this size for the next request), its pages already
 * touched; with room to start the array on a 2 MiB boundary and end it on one, so
 * that the first call's pages are huge ones. */
void* ghz_scratch_alloc(size_t bytes)
{
    const int large = bytes >= HUGE_PAGE / 2 && bytes <= SIZE_MAX - 2 * HUGE_PAGE - HEAD;
    const size_t room = large ? ((bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)) + HUGE_PAGE + HEAD : bytes + HEAD;
    uint8_t* block = (uint8_t*)malloc(room);
    uint8_t* a;
    if (!block) return NULL;
    a = block + HEAD;
    if (large) {
        a = (uint8_t*)(((uintptr_t)a + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        ghz_huge_pages(a, room - (size_t)(a - block));
    }
    ((void**)a)[-1] = block;
    return a;
}

void ghz_scratch_free(void* p)
{
    if (p) free(((void**)p)[-1]);
}
