/* ghz/tools/cli/progress.h: the "\r"-updated progress line on stderr, and the clock. */
#ifndef GHZ_TOOLS_CLI_PROGRESS_H
#define GHZ_TOOLS_CLI_PROGRESS_H

#include <stdint.h>

/* Seconds on a monotonic clock. */
double cli_now(void);

#define CLI_SIZE_UNKNOWN UINT64_MAX

typedef struct {
    int mode;          /* -1 auto, 0 off, 1 on (--progress / --no-progress) */
    const char* label; /* "compress", "scan", ... */
    uint64_t total;    /* bytes of the whole job, or CLI_SIZE_UNKNOWN */
    double t0;         /* start time */
    double last;       /* time of the last redraw */
    int shown;         /* a line is on the screen */
} cli_progress;

/* Starts a job of `total` bytes (CLI_SIZE_UNKNOWN when not known). In auto mode the
 * line appears only when stderr is a terminal and the job is long: more than 256 MiB
 * announced, or running for more than a second. */
void cli_progress_start(cli_progress* p, int mode, const char* label, uint64_t total);

/* Reports `done` bytes processed; redraws at most a few times a second. */
void cli_progress_update(cli_progress* p, uint64_t done);

/* Erases the line, if one was drawn. */
void cli_progress_end(cli_progress* p);

/* Erases whatever progress line is on the screen, so that a message printed next
 * starts on a clean line (diag.c calls this). */
void cli_progress_interrupt(void);

#endif
