/* ghz/codec/scratch.c: scratch memory (detail/scratch.h). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise under -std=c11 */
#include <sys/mman.h>
#endif
#include <stdint.h>
#include <stdlib.h>

#include "ghz/codec/detail/scratch.h"

void* ghz_scratch_alloc(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge / 2 && bytes <= SIZE_MAX - huge) {
        const size_t size = (bytes + huge - 1) & ~(huge - 1);
        void* p = aligned_alloc(huge, size);
        if (p) {
            (void)madvise(p, size, MADV_HUGEPAGE);
            return p;
        }
    }
#endif
    return malloc(bytes ? bytes : 1);
}
