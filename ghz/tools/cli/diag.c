/* ghz/tools/cli/diag.c: error and usage messages on stderr. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "progress.h"

static void vreport(ghz_status_t st, const char* detail, const char* fmt, va_list ap)
{
    fflush(stdout); /* keep the order of what a terminal shows */
    cli_progress_interrupt();
    fputs("ghz-cli: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, ": %s", ghz_status_string(st));
    if (detail && detail[0]) fprintf(stderr, " (%s)", detail);
    fputc('\n', stderr);
}

int cli_fail_lib(ghz_status_t st, const char* what_fmt, ...)
{
    char detail[512];
    va_list ap;
    /* Copy first: nothing below may call the library, but be safe anyway. */
    snprintf(detail, sizeof detail, "%s", ghz_last_error_detail());
    va_start(ap, what_fmt);
    vreport(st, detail, what_fmt, ap);
    va_end(ap);
    return CLI_ERR_RUNTIME;
}

int cli_fail(ghz_status_t st, const char* detail, const char* what_fmt, ...)
{
    va_list ap;
    va_start(ap, what_fmt);
    vreport(st, detail, what_fmt, ap);
    va_end(ap);
    return CLI_ERR_RUNTIME;
}

int cli_fail_errno(const char* what_fmt, ...)
{
    char detail[256];
    va_list ap;
    snprintf(detail, sizeof detail, "%s", errno ? strerror(errno) : "unknown error");
    va_start(ap, what_fmt);
    vreport(GHZ_ERR_IO, detail, what_fmt, ap);
    va_end(ap);
    return CLI_ERR_RUNTIME;
}

int cli_usage_error(const char* fmt, ...)
{
    va_list ap;
    cli_progress_interrupt();
    fputs("ghz-cli: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'ghz-cli --help' for more information.\n", stderr);
    return CLI_ERR_USAGE;
}

void cli_note(const char* fmt, ...)
{
    va_list ap;
    cli_progress_interrupt();
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
