/* ghz/tools/cli/frames.c: frame-by-frame stream reading.
 *
 * ghz_frame_info checks the announced frame size against the bytes it is given, so
 * it cannot tell the size from the 64 header bytes alone. The reader therefore:
 *  1. reads 64 bytes and lets ghz_frame_info judge them: any verdict but "truncated"
 *     (foreign magic, unknown version, a corrupt field) is final;
 *  2. computes frame_size = 64 + round_up(n_blocks, 16) + payload_size (+ 4 for a
 *     checksum) from the
 *     little-endian fields, overflow-checked, and caps it by the worst case
 *     GHZ_COMPRESS_BOUND(n, dtype), so a damaged header cannot ask for terabytes;
 *  3. reads the rest of the frame, growing the buffer only as bytes arrive (and not
 *     at all when a regular file is too short for the announced size);
 *  4. calls ghz_frame_info on the complete frame, which must agree.
 * A fixed-rate frame (FIXED.md: byte 9, the mode, is 3) goes the same way with
 * ghz_fixed_info, whose size is exact: 64 + payload_size, checked against n and l. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "frames.h"

static uint64_t load_le64(const unsigned char* p)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
}

void cli_frames_init(cli_frame_reader* r, cli_in* in)
{
    memset(r, 0, sizeof *r);
    r->in = in;
}

void cli_frames_free(cli_frame_reader* r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

/* Frame size announced by a header that passed every check but the size one, or 0
 * when it exceeds what n elements can ever take (GHZ_COMPRESS_BOUND). */
static uint64_t announced_size(const unsigned char* h)
{
    uint64_t n = load_le64(h + 16), nb = load_le64(h + 24), payload = load_le64(h + 32);
    uint64_t elem = h[8] == GHZ_F64 ? 8 : 4, codes, worst;
    uint64_t tail = (h[11] & 0x02u) ? GHZ_CHECKSUM_SIZE : 0; /* flag bit 1: checksum */
    if (n > (UINT64_MAX - 4096) / elem) return 0;
    if (nb != n / 32 + (n % 32 != 0)) return 0;
    codes = (nb + 15) & ~(uint64_t)15;
    worst = GHZ_HEADER_SIZE + codes + n * elem;
    if (payload > worst - GHZ_HEADER_SIZE - codes) return 0;
    return GHZ_HEADER_SIZE + codes + payload + tail;
}

/* Exact size of the fixed-rate frame whose header passed every check but the size
 * one: payload_size then agrees with n and l, and 64 + it cannot overflow. */
static uint64_t announced_fixed_size(const unsigned char* h)
{
    return GHZ_HEADER_SIZE + load_le64(h + 32);
}

/* Judges the frame at h[0..got) with the reader of its mode and fills *f. Both
 * formats share the magic, version and dtype offsets, so byte 9 picks the reader;
 * a foreign or damaged header is then reported by either. */
static ghz_status_t judge(const unsigned char* h, size_t got, cli_frame_info* f)
{
    ghz_status_t st;
    memset(f, 0, sizeof *f);
    f->fixed = got > 9 && h[9] == GHZ_FIXED_MODE;
    if (f->fixed) {
        st = ghz_fixed_info(h, got, &f->fx);
        f->dtype = f->fx.dtype;
        f->n = f->fx.n;
        f->frame_size = f->fx.frame_size;
    } else {
        st = ghz_frame_info(h, got, &f->eb);
        f->dtype = f->eb.dtype;
        f->n = f->eb.n;
        f->frame_size = f->eb.frame_size;
    }
    return st;
}

/* Reports a problem of the current frame; returns -1. */
static int frame_fail(const cli_frame_reader* r, ghz_status_t st, const char* why)
{
    cli_fail(st, why, "%s: frame %llu at byte %llu", r->in->name, (unsigned long long)r->index,
             (unsigned long long)r->offset);
    return -1;
}

int cli_frames_next(cli_frame_reader* r, cli_frame_info* info)
{
    cli_in* in = r->in;
    uint64_t size;
    size_t got;
    ghz_status_t st;

    r->offset = in->pos;
    if (r->cap < GHZ_HEADER_SIZE) {
        unsigned char* p = (unsigned char*)realloc(r->buf, (size_t)1 << 16);
        if (!p) return frame_fail(r, GHZ_ERR_NOMEM, NULL);
        r->buf = p;
        r->cap = (size_t)1 << 16;
    }
    if (cli_in_read(in, r->buf, GHZ_HEADER_SIZE, &got) != 0) return -1;
    if (got == 0) {
        if (r->index) return 0;
        cli_fail(GHZ_ERR_TRUNCATED, "empty input holds no frame", "%s", in->name);
        return -1;
    }
    st = judge(r->buf, got, info);
    if (st == GHZ_ERR_TRUNCATED && got == GHZ_HEADER_SIZE) {
        size_t want;
        char why[160];
        size = info->fixed ? announced_fixed_size(r->buf) : announced_size(r->buf);
        if (size == 0)
            return frame_fail(r, GHZ_ERR_CORRUPT, "frame size beyond the worst case of its n");
        if (size > SIZE_MAX) return frame_fail(r, GHZ_ERR_NOMEM, "frame beyond the address space");
        want = (size_t)(size - GHZ_HEADER_SIZE);
        if (in->regular && in->pos <= in->size && want > in->size - in->pos) {
            snprintf(why, sizeof why, "frame of %llu bytes, only %llu left in the file",
                     (unsigned long long)size,
                     (unsigned long long)(in->size - in->pos + GHZ_HEADER_SIZE));
            return frame_fail(r, GHZ_ERR_TRUNCATED, why);
        }
        if (cli_in_read_grow(in, &r->buf, &r->cap, GHZ_HEADER_SIZE, want, &got) != 0) return -1;
        if (got < want) {
            snprintf(why, sizeof why, "frame of %llu bytes, input ends after %llu",
                     (unsigned long long)size, (unsigned long long)(GHZ_HEADER_SIZE + got));
            return frame_fail(r, GHZ_ERR_TRUNCATED, why);
        }
        st = judge(r->buf, (size_t)size, info);
        if (st == GHZ_SUCCESS && info->frame_size != size)
            return frame_fail(r, GHZ_ERR_CORRUPT, "frame size disagrees with the header");
    }
    if (st != GHZ_SUCCESS) {
        cli_fail_lib(st, "%s: frame %llu at byte %llu", in->name, (unsigned long long)r->index,
                     (unsigned long long)r->offset);
        return -1;
    }
    if (r->index && info->dtype != r->dtype)
        return frame_fail(r, GHZ_ERR_CORRUPT, "frames of one stream must share a dtype");
    r->dtype = info->dtype;
    r->index++;
    return 1;
}
