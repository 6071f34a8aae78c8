/* test/fuzz/fuzz_check.h: the assertion of the fuzz targets. It aborts (a crash that
 * libFuzzer records with its input) and is never compiled out, unlike assert(). */
#ifndef GHZ_TEST_FUZZ_CHECK_H
#define GHZ_TEST_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

#endif
