/* test/fuzz/fuzz_homo.c: libFuzzer target of the homomorphic operations on two
 * arbitrary streams. Built only when ghz/homo/homo.h exists (test/fuzz/CMakeLists.txt):
 * the homomorphic layer is being written on another branch.
 *
 * Input: one byte choosing the operation, a 4-byte little-endian length L, then
 * stream A (L bytes, clamped to what is there) and stream B (the rest). Both are
 * arbitrary bytes: valid streams (from the seed corpus), damaged ones and garbage. The
 * contract: a status, never a crash; on success the output is a valid stream that
 * ghz_decompress accepts, of as many values as A.
 *
 * Also the in-place form (result over A's copy, with the capacity ghz_homo_bound
 * names): the same contract, and the same bytes as the out-of-place result. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ghz/ghz.h"
#include "ghz/homo/homo.h"

static const ghz_homo_op_t HOMO_OPS[] = {GHZ_HOMO_SUM, GHZ_HOMO_SUB, GHZ_HOMO_MIN, GHZ_HOMO_MAX};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ghz_homo_op_t op;
    size_t la, lb, cap, out_size = 0, n = 0;
    uint64_t total = 0;
    uint8_t *out, *vals;
    ghz_status_t st;

    if (size < 5) return 0;
    op = HOMO_OPS[data[0] % (sizeof HOMO_OPS / sizeof HOMO_OPS[0])];
    la = (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16 | (size_t)data[4] << 24;
    data += 5;
    size -= 5;
    if (la > size) la = size;
    lb = size - la;
    /* The result of two valid streams is never larger than the larger operand's
     * worst case; a generous capacity keeps DST_TOO_SMALL out of the way. */
    cap = 2 * (la + lb) + 4096;
    out = (uint8_t*)malloc(cap);
    FUZZ_CHECK(out != NULL);
    {
        ghz_buf_t a = GHZ_BUF_INIT, b = GHZ_BUF_INIT, r = GHZ_BUF_INIT;
        a.data = (void*)data;
        a.size = a.capacity = la;
        b.data = (void*)(data + la);
        b.size = b.capacity = lb;
        r.data = out;
        r.capacity = cap;
        st = ghz_homo_binary(op, &a, &b, &r);
        out_size = r.size;
    }
    if (st == GHZ_SUCCESS) {
        /* in place over a copy of A with the capacity ghz_homo_bound names: same bytes */
        size_t bound = 0;
        FUZZ_CHECK(ghz_homo_bound(data, la, &bound) == GHZ_SUCCESS);
        {
            ghz_buf_t a = GHZ_BUF_INIT, b = GHZ_BUF_INIT;
            uint8_t* copy = (uint8_t*)malloc(bound + 1);
            FUZZ_CHECK(copy != NULL);
            memcpy(copy, data, la);
            a.data = copy;
            a.size = la;
            a.capacity = bound;
            b.data = (void*)(data + la);
            b.size = b.capacity = lb;
            FUZZ_CHECK(ghz_homo_binary_inplace(op, &a, &b) == GHZ_SUCCESS);
            FUZZ_CHECK(a.size == out_size && memcmp(copy, out, out_size) == 0);
            free(copy);
        }
    }
    if (st == GHZ_SUCCESS) {
        ghz_dtype_t t;
        uint64_t frames;
        FUZZ_CHECK(out_size <= cap);
        FUZZ_CHECK(ghz_stream_info(out, out_size, &total, &frames, &t) == GHZ_SUCCESS);
        vals = (uint8_t*)malloc((size_t)total * ghz_dtype_size(t) + 1);
        FUZZ_CHECK(vals != NULL);
        FUZZ_CHECK(ghz_decompress(out, out_size, vals, (size_t)total * ghz_dtype_size(t), &n) ==
                   GHZ_SUCCESS);
        FUZZ_CHECK(n == total);
        free(vals);
    }
    free(out);
    return 0;
}
