/* ghz/coll/detail/auto_path.h: how GHZ_PATH_AUTO chooses between compressing a lossy
 * call and running it exact, from the times of earlier calls of the same size class.
 *
 * Compression has a large fixed cost per call (a range scan, kernels, status reads:
 * about 200 us on an H200) and a small cost per byte, the exact path the reverse, so
 * which one is faster depends on the size: over CUDA IPC exact won at every size from
 * 4 KiB to 1 GiB (two H200s), over a host-staged MPI compression won from 4 MiB up and
 * lost 2.5-5x at 64-256 KiB. One seconds-per-byte average over all sizes (what this
 * replaced) let a 1 GiB call's rate decide a 64 KiB one. Here each power-of-two class
 * of bytes per rank keeps its own averages, and the slower path is retried (to notice
 * when the data or the machine change, or that its first time was an outlier) ever
 * more rarely while it keeps losing: every 8th AUTO call, then 16th, ... up to every
 * 4096th, and back to every 8th when a retry wins. A retry that took q times the
 * faster path's time also spaces the next one at least 32 (q - 1) calls apart, so that
 * retries cost under 1/32 of the time: where ranks share one H100, a compressed 64 KiB
 * call took 2.3 ms against 60 us exact, and retries 8, 16, 32 ... 256 calls apart made
 * AUTO 69 us a call against 61 (session 15). (Until session 15 the intervals only
 * doubled, up to every 512th call.) The first call after a change of path does not
 * count, and the next call takes the same path again and counts: it pays for the
 * change (where ranks share a GPU, the peers' last kernels of the other path; the
 * host path's buffers coming back into the caches): two ranks on one H100, 4 MiB,
 * exact calls right after compressed ones took 2.1-2.4 ms (the first two 4.4 and 4.5)
 * against 1.7 in a row, so exact lost every retry to compression at 2.2 (session 15).
 * A path's first call in a class does not count either (the next takes the same path
 * and counts): it pays for set-up (lazy loading of kernels, first touches of buffers,
 * a team of threads). And a call more than COLL_AUTO_OUTLIER times its path's average
 * counts as that many times it: a stall of a few ms (2 x H200, session 16: 1-8 ms, now
 * and then, in a host scan whose steady time was 20 us) otherwise set the class on the
 * other path for thousands of calls, the retries spaced by the stall's cost; a path
 * that really became slower is followed within a few calls.
 * A class that has not measured exact yet takes it from the nearest smaller class
 * that has measured both paths, where compression won by COLL_AUTO_INHERIT_MIN or
 * more: compression costs a fixed time and less per byte than exact, so its lead only
 * grows with the size, and exact is first tried at the retry that lead would have
 * earned (not at the class's third call): over host-staged MPI (2 x H200, session 17)
 * each new class from 64 MiB up otherwise paid two exact calls of 3x a compressed one
 * (1 GiB: 350 ms against 122), and AUTO averaged 155 ms over 5 calls against 123.
 * Both ways: until session 14 only compression was retried, so a
 * class whose one exact measurement was slow (a first call's set-up; two ranks on one
 * H200 at 1 MiB, where exact took 0.4 ms and compression 1.5) compressed for good.
 *
 * Every rank keeps the same call counts (calls are collective) and the same times: a
 * call's time enters at the next call's agreement as the slowest rank's (collectives.c,
 * measured_agreed), so every rank decides alike without a vote. (Until session 14 each
 * rank kept its own times and the agreement ORed the votes: a rank whose retry was
 * vetoed never backed off, and each such call missed the staging of the host path.) */
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
