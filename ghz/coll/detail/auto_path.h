/* ghz/coll/detail/auto_path.h: how GHZ_PATH_AUTO chooses between compressing a lossy
 * call and running it exact over the MPI and CUDA IPC transports, from the times of
 * earlier calls of the same size class (over NCCL the choice is a size fixed at init
 * instead: nccl/nccl_comm.c). The measurements behind each rule are in
 * docs/history/RESULTS-sessions.md.
 *
 * Compression has a large fixed cost per call (a range scan, kernels, status reads) and
 * a small cost per byte, the exact path the reverse, so which one is faster depends on
 * the size: each power-of-two class of bytes per rank keeps its own averages. The
 * slower path is retried ever more rarely while it keeps losing (every 8th AUTO call,
 * then 16th, ... up to every 4096th, back to every 8th when a retry wins), and a retry
 * that took q times the faster path's time spaces the next at least 32 (q - 1) calls
 * apart, so that retries cost under 1/32 of the time. Rules that keep one unusual call
 * from deciding a class: the first call after a change of path, and a path's first call
 * in a class, do not count (they pay for the change or for set-up), and the next call
 * takes the same path again and counts; a call more than COLL_AUTO_OUTLIER times its
 * path's average counts as that many times it (a stall of a few ms would otherwise set
 * the class on the other path for thousands of calls). A class that has not measured
 * exact yet takes it from the nearest smaller class that measured both paths, where
 * compression won by COLL_AUTO_INHERIT_MIN or more: compression's lead only grows with
 * the size, so exact is first tried at the retry that lead would have earned.
 *
 * Every rank keeps the same call counts (calls are collective) and the same times: a
 * call's time enters at the next call's agreement as the slowest rank's (collectives.c,
 * measured_agreed), so every rank decides alike without a vote. */
#ifndef GHZ_COLL_DETAIL_AUTO_PATH_H
#define GHZ_COLL_DETAIL_AUTO_PATH_H

#include <stddef.h>
#include <stdint.h>

/* Classes of bytes per rank: [2^16, 2^17), [2^17, 2^18), ..., [2^31, inf). Smaller
 * calls never compress under AUTO: below COLL_AUTO_LOSSY_MIN_BYTES (64 KiB) the
 * compression's fixed costs outweigh what it saves (COLL.md, Choices), so such a call
 * runs exact on every rank without measuring. One constant for both ideas, so that the
 * least class and the least compressed call cannot drift apart. */
#define COLL_AUTO_CLASS_MIN_LOG2 16
#define COLL_AUTO_LOSSY_MIN_BYTES ((size_t)1 << COLL_AUTO_CLASS_MIN_LOG2)
#define COLL_AUTO_CLASSES 16
#define COLL_AUTO_RETRY_MIN 8u
#define COLL_AUTO_RETRY_MAX 4096u
/* a losing retry's extra time is kept under 1/32 of all calls' (auto_path.c) */
#define COLL_AUTO_RETRY_SHARE_INV 32.0
/* a call's time counts as at most this many times its path's average */
#define COLL_AUTO_OUTLIER 4.0
/* a smaller class's lead of compression (exact's time / compressed time) that a class
 * without an exact measurement of its own takes as its own */
#define COLL_AUTO_INHERIT_MIN 1.5

typedef struct {
    double spb_exact, spb_lossy; /* seconds per byte, running averages (0: none yet) */
    uint32_t calls;              /* AUTO lossy calls of this class so far */
    uint32_t retry;              /* run the slower path every retry-th call (0: the least) */
    uint8_t last_exact;          /* the path of the last measured call */
    uint8_t again;               /* that call's time was set aside (it changed path, or
                                  * was its path's first): the next call takes the same
                                  * path, and counts */
    uint8_t warm_exact, warm_lossy; /* that path's first call has run */
} coll_auto_class_t;

typedef struct {
    coll_auto_class_t cls[COLL_AUTO_CLASSES];
} coll_auto_t;

/* The class of a call of `bytes` per rank. */
int coll_auto_class(size_t bytes);

/* 1 when the next AUTO call of `bytes` runs exact. A zeroed
 * coll_auto_t is valid (nothing measured: compress first, then measure exact, unless a
 * smaller class saw compression lead by COLL_AUTO_INHERIT_MIN). */
int coll_auto_runs_exact(const coll_auto_t* a, size_t bytes);

/* Counts an AUTO lossy call of `bytes` (after it is decided, whichever path ran). */
void coll_auto_count(coll_auto_t* a, size_t bytes);

/* Records a call's time: `exact` or compressed, `seconds` for `bytes` per rank. A call
 * that changed path, or its path's first, is set aside (the next takes the same path);
 * one more than COLL_AUTO_OUTLIER times its path's average counts as that much; a call
 * of the slower path that is still slower than the faster path's rate at least doubles
 * the retry interval (more, the slower it was), a faster one resets it. */
void coll_auto_measured(coll_auto_t* a, size_t bytes, int exact, double seconds);

#endif
