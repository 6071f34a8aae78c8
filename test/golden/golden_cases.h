/* test/golden/golden_cases.h: the frozen golden streams, shared by make_golden.c (which
 * writes them) and test/unit/test_golden.c (which checks the library still writes and
 * reads them). Changing a row here means regenerating the files: see README.md. */
#ifndef GHZ_TEST_GOLDEN_CASES_H
#define GHZ_TEST_GOLDEN_CASES_H

#include <stddef.h>

#include "ghz/ghz.h"

typedef struct {
    const char* name; /* files <name>.raw (input, little-endian) and <name>.ghz */
    ghz_dtype_t dtype;
    ghz_eb_mode_t eb_mode;
    double eb;
    int has_fill;
    double fill;
    size_t n;
    int v02;          /* 1: <name>.v02.ghz is the frame 0.2 wrote for this input without
                         a fill (before a frame without a declared fill declared NaN:
                         FORMAT.md, NaN as the fill value), frozen for the readers */
} golden_case_t;

static const golden_case_t golden_cases[] = {
    /* random walk, QUANT blocks of several widths, short last block */
    {"f32_abs_walk", GHZ_F32, GHZ_EB_ABS, 1e-2, 0, 0.0, 1500, 1},
    /* REL over a walk with jumps, NaN (the fill, next to an Inf), Inf, -0.0, a
     * signalling NaN (RAW and CONST blocks) */
    {"f64_rel_mixed", GHZ_F64, GHZ_EB_REL, 1e-4, 0, 0.0, 700, 1},
    /* fill value: FILLED blocks, masked QUANT blocks, fill next to NaN */
    {"f32_rel_fill", GHZ_F32, GHZ_EB_REL, 1e-3, 1, -9999.0, 500, 0},
    /* a single short block with a fill value and halfway points */
    {"f64_abs_tiny", GHZ_F64, GHZ_EB_ABS, 0.25, 1, -1e34, 37, 0},
    /* NaN as the fill value (FORMAT.md): NaN runs (FILLED, masked QUANT), a NaN of
     * another payload and an Inf (RAW), a block of the other NaN (CONST) */
    {"f32_abs_nanfill", GHZ_F32, GHZ_EB_ABS, 1e-3, 0, 0.0, 600, 0},
};

#define GOLDEN_N_CASES (sizeof golden_cases / sizeof golden_cases[0])

#endif
