/* test/coll/test_agree_shm.c: the agreements' POSIX shared segment (agree_shm.c,
 * coll_shm_create_posix), the one a communicator made without MPI uses, on the CPU and
 * without NCCL: each test forks its ranks, which set the segment up through a stand-in
 * for NCCL's control allreduce (an anonymous shared mapping made before the fork), then
 * exchange through it. GPU machines run the same code under NCCL in
 * coll.gpu.nccl.no_mpi.np*.
 *
 * Each rank exits with 0 (every check passed) or the number of the check that failed;
 * every rank sets an alarm, so a hang ends in a failure, never in processes left
 * spinning. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ghz/coll/detail/agree_shm.h"

#define MAX_RANKS 8
#define CTL_WORDS 8
#define CTL_ROWS 4 /* a rank is at most one exchange ahead of the slowest reader */

/* The stand-in for NCCL's allreduce: round r's words in row r mod CTL_ROWS, published by
 * a per-rank counter. */
typedef struct {
    _Atomic uint64_t round[MAX_RANKS];
    int64_t w[CTL_ROWS][MAX_RANKS][CTL_WORDS];
} fake_t;

typedef struct {
    fake_t* f;
    int rank, size;
    uint64_t round;
    int calls;
} ctl_t;

static ghz_status_t fake_max(void* ctx, int64_t* w, int n)
{
    ctl_t* c = (ctl_t*)ctx;
    const uint64_t r = ++c->round;
    int q, i;
    c->calls++;
    if (n > CTL_WORDS) return GHZ_ERR_INVALID_ARG;
    memcpy(c->f->w[r % CTL_ROWS][c->rank], w, (size_t)n * sizeof *w);
    atomic_store_explicit(&c->f->round[c->rank], r, memory_order_release);
    for (q = 0; q < c->size; q++) {
        while (atomic_load_explicit(&c->f->round[q], memory_order_acquire) < r) sched_yield();
        for (i = 0; i < n; i++)
            if (c->f->w[r % CTL_ROWS][q][i] > w[i]) w[i] = c->f->w[r % CTL_ROWS][q][i];
    }
    return GHZ_SUCCESS;
}

/* What one rank is given, and does after the creation. */
typedef struct {
    uint64_t host[MAX_RANKS];  /* each rank's host identity */
    unsigned char key[MAX_RANKS][16];
    int want[MAX_RANKS];
    int expect_shm;            /* every rank must get the segment (1) or none (0) */
    int exchanges;             /* then this many exchanges, checked */
    int abandon_rank;          /* -1, or a rank that releases the segment alone at once */
    int kill_rank;             /* -1, or a rank whose process is killed (SIGKILL) at once */
    int name_taken;            /* the test holds the name: it stays after the creation */
} plan_t;

static int64_t value(int rank, int call, int i)
{
    /* a different rank holds each word's maximum, negative values included */
    return (int64_t)((rank * 7 + call * 3 + i) % 11) - 5 + (int64_t)call * 1000;
}

static int run_rank(const plan_t* p, fake_t* f, int rank, int size)
{
    ctl_t ctl = {f, rank, size, 0, 0};
    ghz_status_t st = GHZ_ERR_UNSUPPORTED;
    coll_shm_t* s;
    char name[64];
    int call, i, q;
    alarm(30);
    s = coll_shm_create_posix(rank, size, p->host[rank], p->key[rank], sizeof p->key[rank], p->want[rank], fake_max,
                              &ctl, &st);
    if (st != GHZ_SUCCESS) return 1;
    if ((s != NULL) != p->expect_shm) return 2;
    if (s && !coll_shm_is_posix(s)) return 3;
    /* every rank made the same number of control calls: none waits for a peer that left
     * the creation earlier */
    {
        int64_t w[2] = {ctl.calls, -ctl.calls};
        if (fake_max(&ctl, w, 2) != GHZ_SUCCESS || w[0] != -w[1]) return 4;
    }
    /* no name is left, whatever the outcome (but the test's own) */
    coll_shm_posix_name(p->key[0], sizeof p->key[0], name, sizeof name);
    {
        const int fd = shm_open(name, O_RDONLY, 0);
        if (fd >= 0 && !p->name_taken) {
            close(fd);
            return 5;
        }
        if (fd >= 0) close(fd);
    }
    if (!s) return 0;
    if (rank == p->abandon_rank) {
        coll_shm_abandon(s);
        return 0;
    }
    if (rank == p->kill_rank) raise(SIGKILL); /* (no release: its slot says nothing) */
    for (call = 0; call < p->exchanges; call++) {
        int64_t w[COLL_SHM_WORDS];
        const int n = 1 + call % COLL_SHM_WORDS;
        for (i = 0; i < n; i++) w[i] = value(rank, call, i);
        st = coll_shm_max(s, w, n);
        if (p->abandon_rank >= 0 || p->kill_rank >= 0) {
            /* every exchange fails, the first after waiting, the others at once */
            if (st != GHZ_ERR_PEER) return 6;
            continue;
        }
        if (st != GHZ_SUCCESS) return 7;
        for (i = 0; i < n; i++) {
            int64_t ex = INT64_MIN;
            for (q = 0; q < size; q++)
                if (value(q, call, i) > ex) ex = value(q, call, i);
            if (w[i] != ex) return 8;
        }
    }
    coll_shm_destroy(s);
    return 0;
}

/* Forks `size` ranks of plan p and expects every one to exit 0. */
static void run(const plan_t* p, int size)
{
    fake_t* f = (fake_t*)mmap(NULL, sizeof *f, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pid[MAX_RANKS];
    int r;
    cr_assert(f != MAP_FAILED);
    memset(f, 0, sizeof *f);
    for (r = 0; r < size; r++) {
        pid[r] = fork();
        cr_assert(pid[r] >= 0);
        if (pid[r] == 0) _exit(run_rank(p, f, r, size));
    }
    for (r = 0; r < size; r++) {
        int status = 0;
        cr_assert(waitpid(pid[r], &status, 0) == pid[r]);
        if (r == p->kill_rank) {
            cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "rank %d: not killed", r);
            continue;
        }
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "rank %d of %d: %s %d", r, size,
                  WIFEXITED(status) ? "failed check" : "killed by signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    munmap(f, sizeof *f);
}

/* A key of this test process's own (concurrent runs never meet), the same on every rank. */
static void plan_init(plan_t* p, int expect_shm, int exchanges)
{
    int r;
    memset(p, 0, sizeof *p);
    for (r = 0; r < MAX_RANKS; r++) {
        const pid_t me = getpid();
        p->host[r] = 0x1234abcdu;
        memcpy(p->key[r], "ghz-test", 8);
        memcpy(p->key[r] + 8, &me, sizeof me);
        p->want[r] = 1;
    }
    p->expect_shm = expect_shm;
    p->exchanges = exchanges;
    p->abandon_rank = -1;
    p->kill_rank = -1;
}

Test(agree_shm, ranks_exchange_through_the_segment, .timeout = 60)
{
    plan_t p;
    int size;
    /* 2 to 5 ranks; many exchanges, word counts 1 to 64, so both buffers are reused with
     * ranks at different speeds (CI has 2 cores for 5 ranks) */
    for (size = 2; size <= 5; size++) {
        plan_init(&p, 1, 2000);
        run(&p, size);
    }
}

Test(agree_shm, one_rank_makes_no_segment)
{
    plan_t p;
    plan_init(&p, 0, 0);
    run(&p, 1);
}

Test(agree_shm, a_rank_on_another_host_leaves_every_rank_without, .timeout = 60)
{
    plan_t p;
    plan_init(&p, 0, 0);
    p.host[2] = 0x5678u;
    run(&p, 4);
}

Test(agree_shm, a_rank_that_does_not_want_it_leaves_every_rank_without, .timeout = 60)
{
    plan_t p;
    plan_init(&p, 0, 0);
    p.want[1] = 0; /* GHZ_COLL_TEST_AGREE_SHM=0 on that rank */
    run(&p, 3);
}

/* A rank that reports the same host but cannot see rank 0's segment (a container with a
 * /dev/shm of its own): here it looks under another name, and finds nothing. */
Test(agree_shm, a_rank_that_cannot_open_it_leaves_every_rank_without, .timeout = 60)
{
    plan_t p;
    plan_init(&p, 0, 0);
    p.key[3][0] ^= 1;
    run(&p, 4);
}

/* The name is taken (a job that crashed between creation and removal, or another user):
 * rank 0 never uses a segment it did not create. */
Test(agree_shm, a_taken_name_leaves_every_rank_without, .timeout = 60)
{
    plan_t p;
    char name[64];
    int fd;
    plan_init(&p, 0, 0);
    coll_shm_posix_name(p.key[0], sizeof p.key[0], name, sizeof name);
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    cr_assert(fd >= 0, "shm_open: %s", strerror(errno));
    close(fd);
    p.name_taken = 1;
    run(&p, 3);
    /* the test's own object is still there: nobody removed a name it did not create */
    fd = shm_open(name, O_RDONLY, 0);
    cr_expect(fd >= 0, "the test's object was removed");
    if (fd >= 0) close(fd);
    shm_unlink(name);
}

/* A rank that releases its communicator alone (ghz_comm_abort): the ranks that wait for
 * it fail with GHZ_ERR_PEER instead of spinning, and keep failing at once. */
Test(agree_shm, a_released_rank_ends_its_peers_waits, .timeout = 60)
{
    plan_t p;
    plan_init(&p, 1, 3);
    p.abandon_rank = 1;
    run(&p, 3);
}

/* A rank whose process is killed (it releases nothing): the ranks that wait for it see
 * its process gone (here a zombie until the test reaps it, which /proc tells apart) and
 * fail with GHZ_ERR_PEER instead of spinning; the alarm of 30 s would fail a hang. */
Test(agree_shm, a_killed_rank_ends_its_peers_waits, .timeout = 60)
{
    plan_t p;
    plan_init(&p, 1, 3);
    p.kill_rank = 2;
    run(&p, 3);
}
