/* ghz/coll/detail/auto_path.h: how GHZ_PATH_AUTO chooses between compressing a lossy
 * call and running it exact, from the times of earlier calls of the same size class.
 *
 * Compression has a large fixed cost per call (a range scan, kernels, status reads:
 * about 200 us on an H200) and a small cost per byte, the exact path the reverse, so
 * which one is faster depends on the size: over CUDA IPC exact won at every size from
 * 4 KiB to 1 GiB (two H200s), over a host-staged MPI compression won from 4 MiB up and
 * lost 2.5-5x at 64-256 KiB. One seconds-per-byte average over all sizes (what this
 * replaced) let a 1 GiB call's rate decide a 64 KiB one. Here each power-of-two class
 * of bytes per rank keeps its own averages, and while exact wins in a class the
 * compressed retries (to notice when the data or the machine change) come ever more
 * rarely: every 8th AUTO call, then 16th, ... up to every 512th, and back to every 8th
 * when a retry wins. At 64 KiB over MPI that makes the amortised retry cost 0.4 %
 * instead of 50 % (a compressed call at 5x the exact time every 8th call).
 *
 * Every rank keeps the same call counts (calls are collective); times differ by rank,
 * and the agreement ORs the votes (collectives.c), so every rank runs the same path. */
#ifndef GHZ_COLL_DETAIL_AUTO_PATH_H
#define GHZ_COLL_DETAIL_AUTO_PATH_H

#include <stddef.h>
#include <stdint.h>

/* Classes of bytes per rank: [2^16, 2^17), [2^17, 2^18), ..., [2^31, inf). Smaller
 * calls never compress under AUTO: below COLL_AUTO_LOSSY_MIN_BYTES (64 KiB) the
 * compression's fixed costs outweigh what it saves (COLL.md, Choices), so such a call
 * runs exact on every rank without a vote. One constant for both ideas, so that the
 * least class and the least compressed call cannot drift apart. */
#define COLL_AUTO_CLASS_MIN_LOG2 16
#define COLL_AUTO_LOSSY_MIN_BYTES ((size_t)1 << COLL_AUTO_CLASS_MIN_LOG2)
#define COLL_AUTO_CLASSES 16
#define COLL_AUTO_RETRY_MIN 8u
#define COLL_AUTO_RETRY_MAX 512u

typedef struct {
    double spb_exact, spb_lossy; /* seconds per byte, running averages (0: none yet) */
    uint32_t calls;              /* AUTO lossy calls of this class so far */
    uint32_t retry;              /* while exact wins, compress every retry-th call */
} coll_auto_class_t;

typedef struct {
    coll_auto_class_t cls[COLL_AUTO_CLASSES];
} coll_auto_t;

/* The class of a call of `bytes` per rank. */
int coll_auto_class(size_t bytes);

/* 1 when this rank votes for running the next AUTO call of `bytes` exact. A zeroed
 * coll_auto_t is valid (nothing measured: compress first, then measure exact). */
int coll_auto_vote_exact(const coll_auto_t* a, size_t bytes);

/* Counts an AUTO lossy call of `bytes` (after it is decided, whichever path ran). */
void coll_auto_count(coll_auto_t* a, size_t bytes);

/* Records a call's time: `exact` or compressed, `seconds` for `bytes` per rank. A
 * compressed call slower than the class's exact rate doubles the retry interval, a
 * faster one resets it. */
void coll_auto_measured(coll_auto_t* a, size_t bytes, int exact, double seconds);

#endif
