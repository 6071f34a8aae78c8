/* ghz/tools/cli/main.c: ghz-cli entry point: parse, pick the command (named, or
 * inferred from -i/-z/-o as zfp and SZ3 do), check its options, run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"

typedef struct {
    const char* name;
    cli_command_fn run;
    unsigned accepts;      /* CLI_OPT_* bits of the options it takes */
    size_t max_operands;   /* positional arguments after the command word */
} cli_command;

#define RAW_OPTS \
    (CLI_OPT_TYPE | CLI_OPT_BOUND | CLI_OPT_FIXED | CLI_OPT_FILL | CLI_OPT_DIMS | CLI_OPT_FRAME | CLI_OPT_PREFER)
#define WRITE_OPTS (RAW_OPTS | CLI_OPT_CHECKSUM)
#define RUN_OPTS (CLI_OPT_THREADS | CLI_OPT_EXEC)

/* The commands. -v/-q, --progress, -h and -V apply to all of them. The homomorphic
 * ones (cmd_homo.c) take two stream operands and -o; they run on the CPU. */
static const cli_command commands[] = {
    {"compress", cli_cmd_compress, CLI_OPT_IN | CLI_OPT_CMP | CLI_OPT_OUT | WRITE_OPTS | RUN_OPTS, 1},
    {"decompress", cli_cmd_decompress,
     CLI_OPT_IN | CLI_OPT_CMP | CLI_OPT_OUT | CLI_OPT_TYPE | CLI_OPT_DIMS | RUN_OPTS | CLI_OPT_LIMIT, 1},
    {"roundtrip", cli_cmd_roundtrip,
     CLI_OPT_IN | CLI_OPT_CMP | CLI_OPT_OUT | WRITE_OPTS | RUN_OPTS | CLI_OPT_REPORT, 1},
    {"stat", cli_cmd_stat, CLI_OPT_IN | RAW_OPTS | RUN_OPTS, 1},
    {"info", cli_cmd_info, CLI_OPT_IN | CLI_OPT_CMP | RUN_OPTS | CLI_OPT_LIMIT, (size_t)-1},
    {"add", cli_cmd_add, CLI_OPT_OUT | CLI_OPT_CHECKSUM | CLI_OPT_LIMIT, 2},
    {"sub", cli_cmd_sub, CLI_OPT_OUT | CLI_OPT_CHECKSUM | CLI_OPT_LIMIT, 2},
    {"min", cli_cmd_min, CLI_OPT_OUT | CLI_OPT_CHECKSUM | CLI_OPT_LIMIT, 2},
    {"max", cli_cmd_max, CLI_OPT_OUT | CLI_OPT_CHECKSUM | CLI_OPT_LIMIT, 2},
};

static const cli_command* find_command(const char* name)
{
    size_t i;
    for (i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* zfp/SZ3 form without a command word: -i -z -o = roundtrip, -i -z = compress,
 * -z -o = decompress. */
static const char* infer_command(const cli_opts* o)
{
    if (o->in && o->cmp && o->out) return "roundtrip";
    if (o->in && o->cmp) return "compress";
    if (o->cmp && o->out) return "decompress";
    return NULL;
}

int main(int argc, char** argv)
{
    cli_opts o;
    const cli_command* cmd;
    unsigned stray;
    int rc;

    if (argc < 2) {
        return cli_usage_error("no command given (compress, decompress, roundtrip, stat, info, add, sub, min, max)");
    }
    rc = cli_parse_args(argc, argv, &o);
    if (rc != CLI_OK) {
        free((void*)o.operands);
        return rc < 0 ? CLI_OK : rc; /* -1: help or version printed */
    }
    if (!o.command) {
        o.command = infer_command(&o);
        if (!o.command) {
            free((void*)o.operands);
            return cli_usage_error("no command given, and -i/-z/-o do not name one "
                                   "(-i -z: compress, -z -o: decompress, all three: roundtrip)");
        }
    }
    if (strcmp(o.command, "help") == 0) {
        cli_print_help();
        free((void*)o.operands);
        return CLI_OK;
    }
    cmd = find_command(o.command);
    if (!cmd) {
        rc = cli_usage_error("unknown command '%s'", o.command);
        free((void*)o.operands);
        return rc;
    }
    stray = o.seen & ~cmd->accepts;
    if (stray) {
        rc = cli_usage_error("option %s does not apply to %s", cli_opt_name(stray & -stray),
                             cmd->name);
        free((void*)o.operands);
        return rc;
    }
    if (o.n_operands > cmd->max_operands) {
        rc = cli_usage_error("%s: unexpected argument '%s'", cmd->name,
                             o.operands[cmd->max_operands]);
        free((void*)o.operands);
        return rc;
    }
    rc = cmd->run(&o);
    free((void*)o.operands);
    if (fflush(stdout) != 0 && rc == CLI_OK) rc = cli_fail_errno("write stdout");
    return rc;
}
