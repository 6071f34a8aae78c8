/* ghz/coll/agree_shm.c: the agreements' allreduce through shared memory (detail/agree_shm.h).
 * Why: an MPI_Allreduce of a few words costs microseconds, NCCL's tens (as much as a small
 * NCCL allreduce on NVLink); here it is a handful of cache-line transfers.
 * Two buffers suffice: a rank writes call s's words into buffer s mod 2 only after every
 * rank's sequence reached s - 1, which each publishes after reading call s - 2's words.
 * A waiting rank yields after a while (ranks may outnumber cores), and watches whether
 * the peer released its communicator or its process ended, so that the wait fails
 * instead of spinning until the job is killed. A process is watched only where this rank
 * sees it under the id and start time it wrote (another PID namespace, a hiding /proc:
 * a wrong verdict would fail a healthy job). */
#define _POSIX_C_SOURCE 200809L /* sched_yield, shm_open, gethostname */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ghz/coll/detail/agree_shm.h"
#include "ghz/detail/error.h"

/* The sequence shares the first words' cache line: a few words cost one line a peer. */
typedef struct {
    _Alignas(64) _Atomic uint64_t seq;
    int64_t words[COLL_SHM_WORDS];
} buf_t;
_Static_assert(sizeof(buf_t) % 64 == 0, "every buffer starts a cache line");

/* `gone` on a line of its own: read only by waiting ranks that yield. */
typedef struct {
    buf_t buf[2];
    _Alignas(64) _Atomic uint64_t gone;
    int64_t pid;
    uint64_t start; /* the process's start time, /proc/<pid>/stat's field 22 */
} slot_t;
_Static_assert(sizeof(slot_t) % 64 == 0, "every slot starts a cache line");

/* A line more than the slot: Open MPI's window parts are only 8-byte aligned. */
size_t coll_shm_part_bytes(void)
{
    return sizeof(slot_t) + 64;
}

static slot_t* slot_in(void* part)
{
    return (slot_t*)(((uintptr_t)part + 63u) & ~(uintptr_t)63u);
}

/* The POSIX segment: a header line (checked by ranks that open it by name), then the slots. */
typedef struct {
    _Alignas(64) _Atomic uint64_t nonce;
    int64_t size;
} header_t;
_Static_assert(sizeof(header_t) == 64, "the slots start a cache line");

static size_t posix_bytes(int size)
{
    return sizeof(header_t) + (size_t)size * sizeof(slot_t);
}

struct coll_shm {
    void* map;         /* the POSIX mapping, or NULL (parts: their owner frees them) */
    size_t map_bytes;
    slot_t** slots;    /* every rank's, in rank order */
    int rank, size;
    uint64_t seq;      /* this rank's last call */
    int gone_rank;     /* -1, or the rank whose release ended an exchange (out of step since) */
    unsigned char* watch; /* per rank: its process is watched while this one waits */
};

/* 1: pid runs (*start: its start time); 0: it ended (or is a zombie); -1: cannot tell. */
static int proc_state(int64_t pid, uint64_t* start)
{
    char path[64], buf[1024];
    const char* p;
    unsigned long long st = 0;
    char state = 0;
    size_t len;
    FILE* f;
    int field;
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    f = fopen(path, "r");
    if (!f) return errno == ENOENT || errno == ESRCH ? 0 : -1;
    len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    /* (the command name may hold spaces and parentheses: field 3 follows the last ')') */
    p = strrchr(buf, ')');
    if (!p || sscanf(p + 1, " %c", &state) != 1) return -1;
    if (state == 'Z' || state == 'X') return 0;
    for (field = 3, p += 2; field < 22 && p; field++) p = strchr(p + 1, ' ');
    if (!p || sscanf(p, " %llu", &st) != 1) return -1;
    *start = st;
    return 1;
}

static void write_self(slot_t* own)
{
    uint64_t start = 0;
    own->pid = (int64_t)getpid();
    own->start = proc_state(own->pid, &start) == 1 ? start : 0;
}

static void choose_watched(coll_shm_t* s)
{
    int q;
    for (q = 0; q < s->size; q++) {
        uint64_t start = 0;
        const slot_t* t = s->slots[q];
        s->watch[q] = q != s->rank && t->pid > 0 && t->start != 0 && proc_state(t->pid, &start) == 1 &&
                      start == t->start;
    }
}

static int peer_ended(const coll_shm_t* s, int q)
{
    uint64_t start = 0;
    int r;
    if (!s->watch[q]) return 0;
    r = proc_state(s->slots[q]->pid, &start);
    /* (a running process with another start time took the ended one's id) */
    return r == 0 || (r == 1 && start != s->slots[q]->start);
}

static void free_shm(coll_shm_t* s)
{
    if (s->map) munmap(s->map, s->map_bytes);
    free(s->slots);
    free(s->watch);
    free(s);
}

static coll_shm_t* alloc_shm(int rank, int size)
{
    coll_shm_t* s = (coll_shm_t*)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->slots = (slot_t**)calloc((size_t)size, sizeof *s->slots);
    s->watch = (unsigned char*)calloc((size_t)size, 1);
    if (!s->slots || !s->watch) {
        free_shm(s);
        return NULL;
    }
    s->rank = rank;
    s->size = size;
    s->gone_rank = -1;
    return s;
}

int coll_shm_wanted(void)
{
#ifdef GHZ_COLL_TEST_STAGED
    const char* v = getenv("GHZ_COLL_TEST_AGREE_SHM");
    return !(v && strcmp(v, "0") == 0);
#else
    return 1;
#endif
}

/* FNV-1a, then a finalising mix: FNV-1a's high bits depend weakly on the last bytes. */
static uint64_t hash_bytes(uint64_t seed, const void* data, size_t n)
{
    const unsigned char* p = (const unsigned char*)data;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

#define SEED_NAME 0x6e616d65u  /* the segment's name */
#define SEED_NONCE 0x6e6f6e63u /* the nonce in its header */
#define SEED_HOST 0x686f7374u  /* the host's identity */

uint64_t coll_shm_host_id(void)
{
    char buf[512];
    uint64_t h;
    struct stat st;
    FILE* f;
    memset(buf, 0, sizeof buf);
    if (gethostname(buf, 255) != 0) buf[0] = '\0';
    h = hash_bytes(SEED_HOST, buf, strlen(buf));
    /* (two machines with one hostname differ in their boot id) */
    memset(buf, 0, sizeof buf);
    f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
        fclose(f);
    }
    h = hash_bytes(h, buf, strlen(buf));
    /* (containers with /dev/shm mounts of their own cannot open each other's segment) */
    if (stat("/dev/shm", &st) == 0) {
        uint64_t id[2];
        id[0] = (uint64_t)st.st_dev;
        id[1] = (uint64_t)st.st_ino;
        h = hash_bytes(h, id, sizeof id);
    }
    return h;
}

void coll_shm_posix_name(const void* key, size_t key_bytes, char* name, size_t len)
{
    snprintf(name, len, "/ghz-coll-%016llx", (unsigned long long)hash_bytes(SEED_NAME, key, key_bytes));
}

static ghz_status_t any_failed(coll_shm_ctl_fn ctl, void* ctx, int fail, int* any)
{
    int64_t w = fail != 0;
    const ghz_status_t st = ctl(ctx, &w, 1);
    *any = st != GHZ_SUCCESS || w != 0;
    return st;
}

/* The named segment mapped; create: made (O_EXCL: never a segment a crashed job left
 * under the same name; a failed create removes the name), its nonce written last; else
 * opened, its header checked. 0 where it could not be. */
static int map_segment(coll_shm_t* s, const char* name, uint64_t nonce, int create)
{
    const size_t bytes = posix_bytes(s->size);
    struct stat st;
    header_t* h = MAP_FAILED;
    int q, fd = create ? shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600) : shm_open(name, O_RDWR, 0);
    if (fd < 0) return 0;
    if (create ? ftruncate(fd, (off_t)bytes) == 0 : fstat(fd, &st) == 0 && st.st_size == (off_t)bytes)
        h = (header_t*)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (h == MAP_FAILED) {
        if (create) shm_unlink(name);
        return 0;
    }
    s->map = h;
    s->map_bytes = bytes;
    for (q = 0; q < s->size; q++) s->slots[q] = (slot_t*)(h + 1) + q;
    if (!create) return atomic_load_explicit(&h->nonce, memory_order_acquire) == nonce && h->size == s->size;
    h->size = s->size;
    atomic_store_explicit(&h->nonce, nonce, memory_order_release);
    return 1;
}

/* The last step of a creation: s on every rank (ok: this rank's is ready), or on none. */
static coll_shm_t* all_or_none(coll_shm_t* s, int ok, coll_shm_ctl_fn ctl, void* ctx, ghz_status_t* status)
{
    int any;
    *status = any_failed(ctl, ctx, !ok, &any);
    if (!any) choose_watched(s);
    else if (s) free_shm(s);
    return any ? NULL : s;
}

coll_shm_t* coll_shm_create_posix(int rank, int size, uint64_t host, const void* key, size_t key_bytes, int want,
                                  coll_shm_ctl_fn ctl, void* ctx, ghz_status_t* status)
{
    coll_shm_t* s = NULL;
    char name[64];
    int64_t w[3];
    uint64_t nonce;
    int ok, any;
    *status = GHZ_SUCCESS;
    if (size < 2) return NULL;
    if (want) s = alloc_shm(rank, size);
    /* 1. every rank on one host (v and ~v, as agree.c does) and willing */
    w[0] = (int64_t)host;
    w[1] = ~(int64_t)host;
    w[2] = s == NULL;
    *status = ctl(ctx, w, 3);
    if (*status != GHZ_SUCCESS || w[0] != ~w[1] || w[2] != 0) {
        if (s) free_shm(s);
        return NULL;
    }
    coll_shm_posix_name(key, key_bytes, name, sizeof name);
    nonce = hash_bytes(SEED_NONCE, key, key_bytes) | 1u; /* (never the 0 of a fresh segment) */
    /* 2. rank 0 made it (the others wait here until it did) */
    ok = rank != 0 || map_segment(s, name, nonce, 1);
    *status = any_failed(ctl, ctx, !ok, &any);
    if (any) {
        /* (rank 0's create removes its name itself when it fails half-way) */
        if (ok && rank == 0) shm_unlink(name);
        free_shm(s);
        return NULL;
    }
    /* 3. every rank mapped it (and wrote whose its slot is): all of them use it, or none */
    ok = rank == 0 || map_segment(s, name, nonce, 0);
    if (ok) write_self(s->slots[rank]);
    s = all_or_none(s, ok, ctl, ctx, status);
    if (rank == 0) shm_unlink(name); /* (no name outlives this, even if the job crashes later) */
    return s;
}

coll_shm_t* coll_shm_create_parts(int rank, int size, void* const* parts, coll_shm_ctl_fn ctl, void* ctx,
                                  ghz_status_t* status)
{
    coll_shm_t* s = parts ? alloc_shm(rank, size) : NULL;
    int q;
    for (q = 0; s && q < size; q++) s->slots[q] = slot_in(parts[q]);
    if (s) {
        memset(s->slots[rank], 0, sizeof(slot_t)); /* (zero sequences: the first call is 1) */
        write_self(s->slots[rank]);
    }
    return all_or_none(s, s != NULL, ctl, ctx, status);
}

enum { HERE = 0, GONE_ALONE = 1, GONE_TOGETHER = 2 };

/* (once: the first word written is the one every peer reads) */
static void mark_gone(coll_shm_t* s, uint64_t how)
{
    uint64_t here = HERE;
    if (s->slots[s->rank])
        atomic_compare_exchange_strong_explicit(&s->slots[s->rank]->gone, &here, how, memory_order_acq_rel,
                                                memory_order_acquire);
}

int coll_shm_together(coll_shm_t* s)
{
    int q, together = 1;
    if (!s) return 1;
    mark_gone(s, GONE_TOGETHER);
    for (q = 0; q < s->size; q++) {
        const slot_t* peer = s->slots[q];
        uint64_t g;
        unsigned spins = 0;
        if (q == s->rank) continue;
        while ((g = atomic_load_explicit(&peer->gone, memory_order_acquire)) == HERE) {
            if ((++spins & 1023u) == 0 && peer_ended(s, q)) break;
            sched_yield();
        }
        if (g != GONE_TOGETHER) together = 0;
    }
    return together;
}

void coll_shm_destroy(coll_shm_t* s)
{
    if (!s) return;
    mark_gone(s, GONE_TOGETHER);
    free_shm(s);
}

void coll_shm_abandon(coll_shm_t* s)
{
    if (!s) return;
    mark_gone(s, GONE_ALONE);
    free_shm(s);
}

ghz_status_t coll_shm_max(coll_shm_t* s, int64_t* w, int n)
{
    uint64_t seq;
    int b, q, i;
    if (s->gone_rank >= 0)
        return ghz_fail(GHZ_ERR_PEER, "rank %d released the communicator or ended during an earlier call",
                        s->gone_rank);
    seq = ++s->seq;
    b = (int)(seq & 1);
    memcpy(s->slots[s->rank]->buf[b].words, w, (size_t)n * sizeof *w);
    atomic_store_explicit(&s->slots[s->rank]->buf[b].seq, seq, memory_order_release);
    for (q = 0; q < s->size; q++) {
        const slot_t* peer = s->slots[q];
        const buf_t* t = &peer->buf[b];
        if (q == s->rank) continue;
        unsigned spins = 0;
        while (atomic_load_explicit(&t->seq, memory_order_acquire) < seq)
            if (++spins > 256) {
                const int released = atomic_load_explicit(&peer->gone, memory_order_acquire) != HERE;
                /* (reading /proc costs microseconds: once every 1024 yields) */
                if ((released || ((spins & 1023u) == 0 && peer_ended(s, q))) &&
                    atomic_load_explicit(&t->seq, memory_order_acquire) < seq) {
                    s->gone_rank = q;
                    if (released)
                        return ghz_fail(GHZ_ERR_PEER, "rank %d released the communicator (ghz_comm_abort or "
                                                      "ghz_comm_destroy) while this rank agreed a call", q);
                    return ghz_fail(GHZ_ERR_PEER, "rank %d (process %lld) ended while this rank agreed a call", q,
                                    (long long)peer->pid);
                }
                sched_yield();
            }
        for (i = 0; i < n; i++)
            if (t->words[i] > w[i]) w[i] = t->words[i];
    }
    return GHZ_SUCCESS;
}

int coll_shm_is_posix(const coll_shm_t* s)
{
    return s && s->map != NULL;
}
