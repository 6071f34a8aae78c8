/* ghz/tools/cli/diag.h: every message ghz-cli prints on stderr goes through here,
 * so all of them read "ghz-cli: <what>: <status> (<detail>)". */
#ifndef GHZ_TOOLS_CLI_DIAG_H
#define GHZ_TOOLS_CLI_DIAG_H

#include "ghz/errors.h"

#if defined(__GNUC__) || defined(__clang__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Reports a library failure: "ghz-cli: <what>: <ghz_status_string(st)> (<detail>)",
 * the detail being ghz_last_error_detail(), which must still be that of the failing
 * call. Returns CLI_ERR_RUNTIME. */
int cli_fail_lib(ghz_status_t st, const char* what_fmt, ...) CLI_PRINTF(2, 3);

/* The same for a failure the CLI found itself, with its own detail (may be NULL or
 * ""): the data errors reuse the library's status words (truncated input, I/O
 * error...). Returns CLI_ERR_RUNTIME. */
int cli_fail(ghz_status_t st, const char* detail, const char* what_fmt, ...) CLI_PRINTF(3, 4);

/* An I/O failure: the detail is strerror(errno) as errno is on entry. */
int cli_fail_errno(const char* what_fmt, ...) CLI_PRINTF(1, 2);

/* A usage error: "ghz-cli: <message>" and a hint to --help. Returns CLI_ERR_USAGE. */
int cli_usage_error(const char* fmt, ...) CLI_PRINTF(1, 2);

/* Informational line on stderr ("ghz-cli: " is not prepended). */
void cli_note(const char* fmt, ...) CLI_PRINTF(1, 2);

#endif
