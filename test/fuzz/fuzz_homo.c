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
 * TODO(homo): the call below assumes the API planned for ghz/homo/homo.h,
 *   ghz_status_t ghz_homo_binary(ghz_homo_op_t op, const void* a, size_t a_size,
 *                                const void* b, size_t b_size, void* dst,
 *                                size_t dst_capacity, size_t* dst_size);
 * with ops GHZ_HOMO_ADD and GHZ_HOMO_SUB (GHZ_ERR_MISMATCH for operands of another
 * dtype, length or bound, GHZ_ERR_OVERFLOW when a sum leaves the integer range).
 * Adjust this call and HOMO_OPS to the header as merged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ghz/ghz.h"
#include "ghz/homo/homo.h"

static const ghz_homo_op_t HOMO_OPS[] = {GHZ_HOMO_ADD, GHZ_HOMO_SUB};

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
    st = ghz_homo_binary(op, data, la, data + la, lb, out, cap, &out_size);
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
