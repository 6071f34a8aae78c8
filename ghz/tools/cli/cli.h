/* ghz/tools/cli/cli.h: what the parts of ghz-cli share: the parsed command line,
 * the exit codes and the command entry points. */
#ifndef GHZ_TOOLS_CLI_CLI_H
#define GHZ_TOOLS_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/ghz.h"

/* Exit codes: 0 success, 1 runtime or data error, 2 usage error. */
enum { CLI_OK = 0, CLI_ERR_RUNTIME = 1, CLI_ERR_USAGE = 2 };

/* Elements per frame when --frame-elems is not given (FORMAT.md: 2^26). */
#define CLI_DEFAULT_FRAME_ELEMS ((uint64_t)1 << 26)

/* One bit per option group, so the command table can say which options a command
 * takes and a stray one is a usage error instead of being silently ignored. */
enum {
    CLI_OPT_IN = 1u << 0,      /* -i */
    CLI_OPT_CMP = 1u << 1,     /* -z */
    CLI_OPT_OUT = 1u << 2,     /* -o */
    CLI_OPT_TYPE = 1u << 3,    /* -t -f -d */
    CLI_OPT_BOUND = 1u << 4,   /* -M -E -A -a -R */
    CLI_OPT_FILL = 1u << 5,    /* --fill */
    CLI_OPT_DIMS = 1u << 6,    /* -1 -2 -3 */
    CLI_OPT_THREADS = 1u << 7, /* -n */
    CLI_OPT_EXEC = 1u << 8,    /* -x */
    CLI_OPT_FRAME = 1u << 9,   /* --frame-elems */
    CLI_OPT_REPORT = 1u << 10, /* -s */
    CLI_OPT_CHECKSUM = 1u << 11, /* --checksum --no-checksum */
    CLI_OPT_FIXED = 1u << 12,  /* --fixed */
    CLI_OPT_LIMIT = 1u << 13,  /* --max-frame-bytes */
    CLI_OPT_PREFER = 1u << 14, /* --prefer */
    CLI_OPT_COUNT = 15
};

/* The command line, parsed but not yet interpreted by a command. */
typedef struct {
    const char* command;     /* command word, or NULL: inferred from -i/-z/-o */
    const char* in;          /* -i: raw values (compress, stat) */
    const char* cmp;         /* -z: compressed stream */
    const char* out;         /* -o: decompressed values */
    const char** operands;   /* positional arguments after the command word */
    size_t n_operands;
    ghz_dtype_t dtype;       /* 0 when not given */
    ghz_eb_mode_t eb_mode;   /* 0 when not given */
    double eb;               /* valid when has_eb */
    int has_eb;
    int has_fill;
    double fill;
    int nthreads;            /* -n; -1 = the command's default */
    ghz_exec_t exec;
    uint64_t frame_elems;
    uint64_t dims_n;         /* product of -1/-2/-3, valid when has_dims */
    uint64_t dims[3];        /* -1/-2/-3, fastest first; the rest 1 */
    int has_dims;
    ghz_prefer_t prefer;     /* --prefer speed|ratio */
    int verbosity;           /* 0 -q, 1 default, 2 -v */
    int progress;            /* -1 auto, 0 --no-progress, 1 --progress */
    int checksum;            /* frames written carry a CRC-32C (default 1; --no-checksum) */
    uint64_t max_frame_bytes; /* --max-frame-bytes: the readers' limit, in decoded bytes
                                 per frame (0 = none; GHZ_FRAME_LIMIT_DEFAULT) */
    unsigned fixed_bits;     /* --fixed L: fixed-rate frames of l = 8, 16 or 32 bits per
                                value (FIXED.md); 0 = the error-bounded mode */
    unsigned seen;           /* CLI_OPT_* bits of the options given */
} cli_opts;

/* args.c: parses argv into *o. Returns CLI_OK, or -1 after printing help or the
 * version (exit 0), or CLI_ERR_USAGE after printing the problem. */
int cli_parse_args(int argc, char** argv, cli_opts* o);
/* The option spelling of one CLI_OPT_* bit, for messages ("-E", "--fill"). */
const char* cli_opt_name(unsigned bit);
void cli_print_help(void);
void cli_print_version(void);

/* Commands: each returns the process exit code. */
typedef int (*cli_command_fn)(const cli_opts* o);
int cli_cmd_compress(const cli_opts* o);
int cli_cmd_decompress(const cli_opts* o);
int cli_cmd_roundtrip(const cli_opts* o);
int cli_cmd_info(const cli_opts* o);
int cli_cmd_stat(const cli_opts* o);
/* cmd_homo.c: add, sub, min, max of two streams (ghz/homo) */
int cli_cmd_add(const cli_opts* o);
int cli_cmd_sub(const cli_opts* o);
int cli_cmd_min(const cli_opts* o);
int cli_cmd_max(const cli_opts* o);

/* Shared checks of the compressing commands (cmd_compress.c): fills *p from the
 * options (nthreads_default when -n is absent) and validates it with the library
 * before any file is touched, so a bad bound fails early. With --fixed, p carries
 * only the dtype, threads and exec (the rate is o->fixed_bits), and the error-bound
 * options, --fill and --checksum are usage errors: the fixed-rate format has no
 * bound, fill value or checksum (FIXED.md). The commands then open
 * the backend of p->exec (backend.h), also before touching a file, so that a
 * missing CUDA backend or GPU fails early too. */
int cli_make_params(const cli_opts* o, const char* what, int nthreads_default, ghz_params_t* p);

/* The dtype name of the CLI ("f32", "f64", "?"). */
const char* cli_dtype_name(ghz_dtype_t t);

#endif
