/* ghz/tools/cli/progress.c: progress line and monotonic clock (POSIX). */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define LONG_JOB_BYTES ((uint64_t)256 << 20)
#define LONG_JOB_SECONDS 1.0
#define REDRAW_SECONDS 0.2
#define LINE_WIDTH 60

/* The line currently on the screen, if any: only one job draws at a time. */
static cli_progress* on_screen;

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void erase_line(void)
{
    fprintf(stderr, "\r%*s\r", LINE_WIDTH, "");
    fflush(stderr);
}

void cli_progress_start(cli_progress* p, int mode, const char* label, uint64_t total)
{
    p->mode = mode;
    if (mode < 0 && !isatty(fileno(stderr))) p->mode = 0;
    p->label = label;
    p->total = total;
    p->t0 = p->last = cli_now();
    p->shown = 0;
}

void cli_progress_update(cli_progress* p, uint64_t done)
{
    double t, mb, rate;
    if (p->mode == 0) return;
    t = cli_now();
    if (p->mode < 0 && !p->shown && t - p->t0 < LONG_JOB_SECONDS &&
        (p->total == CLI_SIZE_UNKNOWN || p->total <= LONG_JOB_BYTES))
        return;
    if (p->shown && t - p->last < REDRAW_SECONDS) return;
    p->last = t;
    mb = (double)done / 1e6;
    rate = t > p->t0 ? mb / (t - p->t0) : 0.0;
    if (p->total != CLI_SIZE_UNKNOWN && p->total > 0)
        fprintf(stderr, "\r%-10s %5.1f%%  %10.1f MB  %8.1f MB/s ", p->label,
                100.0 * (double)done / (double)p->total, mb, rate);
    else
        fprintf(stderr, "\r%-10s %10.1f MB  %8.1f MB/s ", p->label, mb, rate);
    fflush(stderr);
    p->shown = 1;
    on_screen = p;
}

void cli_progress_end(cli_progress* p)
{
    if (p->shown) erase_line();
    p->shown = 0;
    if (on_screen == p) on_screen = NULL;
}

void cli_progress_interrupt(void)
{
    if (on_screen) cli_progress_end(on_screen);
}
