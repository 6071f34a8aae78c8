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

void* ghz_scratch_alloc(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_PAGE / 2 && bytes <= SIZE_MAX - HUGE_PAGE) {
        const size_t size = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void* p = aligned_alloc(HUGE_PAGE, size);
        if (p) {
            ghz_huge_pages(p, size);
            return p;
        }
    }
#endif
    return malloc(bytes ? bytes : 1);
}
