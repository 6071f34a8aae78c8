/* ghz/tools/cli/args.c: command-line parsing. Options follow SZ3 and zfp (-i -z -o
 * -t -M -E -1/-2/-3 -x -a), with zstd's hygiene (-h/-V, '-' for stdio, exit 2 on
 * usage errors). Commands interpret the result (main.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"

/* Longest frame accepted by --frame-elems: 2^40 values (8 TiB of f64). */
#define MAX_FRAME_ELEMS ((uint64_t)1 << 40)

static const char* const opt_names[CLI_OPT_COUNT] = {
    "-i", "-z", "-o", "-t", "-M/-E", "--fill", "-1/-2/-3", "-n", "-x", "--frame-elems", "-s",
    "--no-checksum", "--fixed", "--max-frame-bytes", "--prefer"};

const char* cli_opt_name(unsigned bit)
{
    unsigned i;
    for (i = 0; i < CLI_OPT_COUNT; ++i)
        if (bit == 1u << i) return opt_names[i];
    return "?";
}

const char* cli_dtype_name(ghz_dtype_t t)
{
    return t == GHZ_F32 ? "f32" : t == GHZ_F64 ? "f64" : "?";
}

static int eq_nocase(const char* a, const char* b)
{
    for (; *a && *b; ++a, ++b)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* A whole string as a finite double > 0. */
static int parse_bound(const char* s, double* v)
{
    char* end;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(*v) && *v > 0;
}

/* A whole string as a decimal unsigned integer in [lo, hi]. */
static int parse_u64(const char* s, uint64_t lo, uint64_t hi, uint64_t* v)
{
    char* end;
    unsigned long long x;
    if (!isdigit((unsigned char)s[0])) return 0;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno || end == s || *end != '\0' || x < lo || x > hi) return 0;
    *v = x;
    return 1;
}

/* A byte count: a decimal integer with an optional binary suffix K, M, G or T
 * (KiB...), as zstd's --memory takes it. */
static int parse_bytes(const char* s, uint64_t* v)
{
    static const char units[] = "KMGT";
    char digits[32];
    size_t len = strlen(s), shift = 0;
    const char* u;
    uint64_t x;
    if (len == 0 || len >= sizeof digits) return 0;
    memcpy(digits, s, len + 1);
    if ((u = strchr(units, toupper((unsigned char)digits[len - 1]))) != NULL && *u) {
        shift = 10 * (size_t)(u - units + 1);
        digits[--len] = '\0';
    }
    if (!parse_u64(digits, 0, UINT64_MAX >> shift, &x)) return 0;
    *v = x << shift;
    return 1;
}

/* Does s look like a number (for the optional bound after -M)? */
static int looks_numeric(const char* s)
{
    char* end;
    if (!(isdigit((unsigned char)s[0]) || s[0] == '.' || s[0] == '+')) return 0;
    (void)strtod(s, &end);
    return end != s && *end == '\0';
}

typedef struct {
    int argc;
    char** argv;
    int i;              /* index of the current argument */
    const char* inline_value; /* "--opt=VALUE": VALUE */
} cursor;

/* The value of the current option: after '=' or the next argument. */
static const char* take_value(cursor* c, const char* opt)
{
    if (c->inline_value) {
        const char* v = c->inline_value;
        c->inline_value = NULL;
        return v;
    }
    if (c->i + 1 >= c->argc) {
        cli_usage_error("option %s needs a value", opt);
        return NULL;
    }
    return c->argv[++c->i];
}

/* A setting given twice with different values is a usage error, not "the last one
 * wins": "-M ABS -E 1 -R 1e-3" or "-t f32 ... -t f64" most likely hides a mistake.
 * The same value twice is harmless and accepted. */
static int conflict(const char* what, const char* opt)
{
    return cli_usage_error("conflicting options: %s is given twice with different values "
                           "(the second time by %s)", what, opt);
}

static const char* mode_name(ghz_eb_mode_t m)
{
    return m == GHZ_EB_ABS ? "ABS" : "REL";
}

static int put_mode(cli_opts* o, ghz_eb_mode_t m, const char* opt)
{
    if (o->eb_mode && o->eb_mode != m) {
        char what[64];
        snprintf(what, sizeof what, "the error-bound mode (%s, then %s)", mode_name(o->eb_mode),
                 mode_name(m));
        return conflict(what, opt);
    }
    o->eb_mode = m;
    o->seen |= CLI_OPT_BOUND;
    return 0;
}

static int set_mode(cli_opts* o, const char* s, const char* opt)
{
    if (eq_nocase(s, "ABS")) return put_mode(o, GHZ_EB_ABS, opt);
    if (eq_nocase(s, "REL") || eq_nocase(s, "VR_REL")) return put_mode(o, GHZ_EB_REL, opt);
    return cli_usage_error("unknown error-bound mode '%s' (ghz has ABS and REL)", s);
}

static int set_bound(cli_opts* o, const char* s, const char* opt)
{
    double v;
    if (!parse_bound(s, &v))
        return cli_usage_error("%s '%s': the bound must be a finite number > 0", opt, s);
    if (o->has_eb && v != o->eb) {
        char what[96];
        snprintf(what, sizeof what, "the error bound (%g, then %g)", o->eb, v);
        return conflict(what, opt);
    }
    o->eb = v;
    o->has_eb = 1;
    o->seen |= CLI_OPT_BOUND;
    return 0;
}

static int set_type(cli_opts* o, const char* s, const char* opt)
{
    ghz_dtype_t t;
    if (eq_nocase(s, "f32") || eq_nocase(s, "float") || eq_nocase(s, "float32"))
        t = GHZ_F32;
    else if (eq_nocase(s, "f64") || eq_nocase(s, "double") || eq_nocase(s, "float64"))
        t = GHZ_F64;
    else
        return cli_usage_error("unknown type '%s' (f32 or f64)", s);
    if (o->dtype && o->dtype != t) return conflict("the type (-t/-f/-d)", opt);
    o->dtype = t;
    o->seen |= CLI_OPT_TYPE;
    return 0;
}

/* A file option (-i, -z, -o): a second, different path conflicts. */
static int set_path(const char** slot, const char* v, const char* opt)
{
    if (*slot && strcmp(*slot, v) != 0) return conflict(opt, opt);
    *slot = v;
    return 0;
}

/* An unsigned setting of group `bit`: given again with another value conflicts. */
static int set_u64(cli_opts* o, unsigned bit, uint64_t* slot, uint64_t v, const char* opt)
{
    if ((o->seen & bit) && *slot != v) return conflict(cli_opt_name(bit), opt);
    *slot = v;
    o->seen |= bit;
    return 0;
}

static int set_dims(cli_opts* o, cursor* c, int k, const char* opt)
{
    uint64_t prod = 1;
    int d;
    if (c->i + k >= c->argc)
        return cli_usage_error("option %s needs %d dimension%s", opt, k, k > 1 ? "s" : "");
    for (d = 0; d < k; ++d) {
        uint64_t v;
        const char* s = c->argv[++c->i];
        if (!parse_u64(s, 1, UINT64_MAX, &v))
            return cli_usage_error("%s: '%s' is not a dimension (an integer >= 1)", opt, s);
        if (prod > UINT64_MAX / v) return cli_usage_error("%s: the dimensions overflow", opt);
        prod *= v;
    }
    if (o->has_dims && o->dims_n != prod) return conflict("the dimensions (-1/-2/-3)", opt);
    for (d = 0; d < 3; ++d) o->dims[d] = d < k ? strtoull(c->argv[c->i - k + 1 + d], NULL, 10) : 1u;
    o->dims_n = prod;
    o->has_dims = 1;
    o->seen |= CLI_OPT_DIMS;
    return 0;
}

/* The first positional argument is the command word, the others its operands. */
static void add_positional(cli_opts* o, const char* arg)
{
    if (!o->command)
        o->command = arg;
    else
        o->operands[o->n_operands++] = arg;
}

/* Handles one option; c->i points at it. */
static int parse_option(cli_opts* o, cursor* c, const char* arg)
{
    char name[64];
    const char* v;
    const char* eq = NULL;
    uint64_t u;
    double d;
    ghz_exec_t x;

    /* Split "--long=value". */
    if (arg[1] == '-' && (eq = strchr(arg, '=')) != NULL) {
        size_t len = (size_t)(eq - arg);
        if (len >= sizeof name) return cli_usage_error("unknown option '%s'", arg);
        memcpy(name, arg, len);
        name[len] = '\0';
        arg = name;
        c->inline_value = eq + 1;
    }
#define IS(a) (strcmp(arg, a) == 0)
#define IS2(a, b) (IS(a) || IS(b))
    if (IS2("-h", "--help")) {
        cli_print_help();
        return -1;
    }
    if (IS2("-V", "--version")) {
        cli_print_version();
        return -1;
    }
    if (IS2("-i", "--input")) {
        if (!(v = take_value(c, arg)) || set_path(&o->in, v, arg)) return CLI_ERR_USAGE;
        o->seen |= CLI_OPT_IN;
    } else if (IS2("-z", "--compressed")) {
        if (!(v = take_value(c, arg)) || set_path(&o->cmp, v, arg)) return CLI_ERR_USAGE;
        o->seen |= CLI_OPT_CMP;
    } else if (IS2("-o", "--output")) {
        if (!(v = take_value(c, arg)) || set_path(&o->out, v, arg)) return CLI_ERR_USAGE;
        o->seen |= CLI_OPT_OUT;
    } else if (IS2("-t", "--type")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        return set_type(o, v, arg);
    } else if (IS("-f")) {
        return set_type(o, "f32", arg);
    } else if (IS("-d")) {
        return set_type(o, "f64", arg);
    } else if (IS2("-M", "--mode")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (set_mode(o, v, arg)) return CLI_ERR_USAGE;
        /* SZ3 form "-M ABS 1e-3": an optional bound right after the mode. */
        if (c->i + 1 < c->argc && looks_numeric(c->argv[c->i + 1]))
            return set_bound(o, c->argv[++c->i], arg);
    } else if (IS2("-E", "--bound")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        return set_bound(o, v, arg);
    } else if (IS2("-A", "--abs") || IS("-a")) {
        if (!(v = take_value(c, arg)) || put_mode(o, GHZ_EB_ABS, arg)) return CLI_ERR_USAGE;
        return set_bound(o, v, arg);
    } else if (IS2("-R", "--rel")) {
        if (!(v = take_value(c, arg)) || put_mode(o, GHZ_EB_REL, arg)) return CLI_ERR_USAGE;
        return set_bound(o, v, arg);
    } else if (IS("--fixed")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (!parse_u64(v, 8, 32, &u) || (u != 8 && u != 16 && u != 32))
            return cli_usage_error("--fixed '%s': the rate l is 8, 16 or 32 bits per value", v);
        if ((o->seen & CLI_OPT_FIXED) && o->fixed_bits != u) return conflict("--fixed", arg);
        o->fixed_bits = (unsigned)u;
        o->seen |= CLI_OPT_FIXED;
    } else if (IS("--max-frame-bytes")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (!parse_bytes(v, &u))
            return cli_usage_error("--max-frame-bytes '%s': a byte count, with an optional "
                                   "K, M, G or T (binary) suffix; 0 = no limit", v);
        return set_u64(o, CLI_OPT_LIMIT, &o->max_frame_bytes, u, arg);
    } else if (IS("--fill")) {
        char* end;
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        d = strtod(v, &end);
        if (end == v || *end != '\0') return cli_usage_error("--fill '%s' is not a number", v);
        if (o->has_fill && memcmp(&d, &o->fill, sizeof d) != 0) return conflict("--fill", arg);
        o->fill = d;
        o->has_fill = 1;
        o->seen |= CLI_OPT_FILL;
    } else if (IS("--prefer")) {
        ghz_prefer_t pf;
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (eq_nocase(v, "speed"))
            pf = GHZ_PREFER_SPEED;
        else if (eq_nocase(v, "ratio"))
            pf = GHZ_PREFER_RATIO;
        else
            return cli_usage_error("--prefer '%s': speed (the default) or ratio", v);
        if ((o->seen & CLI_OPT_PREFER) && o->prefer != pf) return conflict("--prefer", arg);
        o->prefer = pf;
        o->seen |= CLI_OPT_PREFER;
    } else if (IS("-1") || IS("-2") || IS("-3")) {
        return set_dims(o, c, arg[1] - '0', arg);
    } else if (IS2("-n", "--threads")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (!parse_u64(v, 0, 4096, &u))
            return cli_usage_error("%s '%s': threads must be an integer 0..4096 (0 = all)", arg, v);
        if ((o->seen & CLI_OPT_THREADS) && (uint64_t)o->nthreads != u) return conflict("-n", arg);
        o->nthreads = (int)u;
        o->seen |= CLI_OPT_THREADS;
    } else if (IS2("-x", "--exec")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (eq_nocase(v, "cpu"))
            x = GHZ_EXEC_CPU;
        else if (eq_nocase(v, "cuda"))
            x = GHZ_EXEC_CUDA;
        else
            return cli_usage_error("%s '%s': the execution policy is cpu or cuda", arg, v);
        if ((o->seen & CLI_OPT_EXEC) && o->exec != x) return conflict("-x", arg);
        o->exec = x;
        o->seen |= CLI_OPT_EXEC;
    } else if (IS("--frame-elems")) {
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (!parse_u64(v, 1, MAX_FRAME_ELEMS, &u))
            return cli_usage_error("--frame-elems '%s': an integer from 1 to 2^40", v);
        return set_u64(o, CLI_OPT_FRAME, &o->frame_elems, u, arg);
    } else if (IS2("-s", "--report")) {
        o->seen |= CLI_OPT_REPORT;
    } else if (IS2("-v", "--verbose")) {
        o->verbosity = 2;
    } else if (IS2("-q", "--quiet")) {
        o->verbosity = 0;
    } else if (IS("--progress")) {
        o->progress = 1;
    } else if (IS("--no-progress")) {
        o->progress = 0;
    } else if (IS("--no-checksum") || IS("--checksum")) {
        int want = IS("--checksum");
        if ((o->seen & CLI_OPT_CHECKSUM) && o->checksum != want)
            return conflict("--checksum / --no-checksum", arg);
        o->checksum = want;
        o->seen |= CLI_OPT_CHECKSUM;
    } else if (IS("--info")) {
        /* zstd-style "--info FILE" = "info FILE". */
        if (!(v = take_value(c, arg))) return CLI_ERR_USAGE;
        if (o->command && strcmp(o->command, "info") != 0)
            return cli_usage_error("--info cannot follow the command '%s'", o->command);
        o->command = "info";
        o->operands[o->n_operands++] = v;
    } else {
        return cli_usage_error("unknown option '%s'", arg);
    }
#undef IS
#undef IS2
    if (c->inline_value) return cli_usage_error("option %s takes no value", arg);
    return 0;
}

int cli_parse_args(int argc, char** argv, cli_opts* o)
{
    cursor c;
    int only_positional = 0;

    memset(o, 0, sizeof *o);
    o->nthreads = -1;
    o->exec = GHZ_EXEC_CPU;
    o->frame_elems = CLI_DEFAULT_FRAME_ELEMS;
    o->max_frame_bytes = GHZ_FRAME_LIMIT_DEFAULT;
    o->verbosity = 1;
    o->progress = -1;
    o->checksum = 1;
    /* Operands can never outnumber the arguments. */
    o->operands = (const char**)calloc((size_t)argc + 1, sizeof *o->operands);
    if (!o->operands) return cli_fail(GHZ_ERR_NOMEM, NULL, "arguments");

    c.argc = argc;
    c.argv = argv;
    c.inline_value = NULL;
    for (c.i = 1; c.i < argc; ++c.i) {
        const char* arg = argv[c.i];
        int rc;
        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            add_positional(o, arg);
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if ((rc = parse_option(o, &c, arg)) != 0) return rc;
    }
    if (o->verbosity == 0 && o->progress < 0) o->progress = 0; /* -q: errors only */
    return CLI_OK;
}

void cli_print_version(void)
{
    unsigned v = ghz_version_number();
    printf("ghz-cli %s\n", GHZ_VERSION_STRING);
    printf("library: ghz %u.%u.%u, stream format %u\n", v / 10000, v / 100 % 100, v % 100,
           ghz_format_version());
#ifdef GHZ_WITH_CUDA
    printf("backends: cpu, cuda (-x cuda)\n");
#else
    printf("backends: cpu (cuda not built)\n");
#endif
}

void cli_print_help(void)
{
    fputs(
"Usage:\n"
"  ghz-cli compress   -i RAW -z OUT.ghz -t f32|f64 -M ABS|REL -E BOUND [options]\n"
"  ghz-cli compress   -i RAW -z OUT.ghz -t f32|f64 --fixed 8|16|32 [options]\n"
"  ghz-cli decompress -z IN.ghz -o RAW [options]\n"
"  ghz-cli roundtrip  -i RAW -z OUT.ghz -o DEC -t ... -M ... -E ... [-s]\n"
"  ghz-cli stat       -i RAW -t f32|f64 -M ABS|REL -E BOUND [options]\n"
"  ghz-cli info       [-v] FILE.ghz...\n"
"  ghz-cli add|sub|min|max A.ghz B.ghz -o OUT.ghz\n"
"  ghz-cli -i RAW -z OUT.ghz [-o DEC] -t ... -M ... -E ...  (SZ3/zfp form: the\n"
"  ghz-cli -z IN.ghz -o RAW                                  command is inferred)\n"
"\n"
"Error-bounded lossy compression of raw little-endian float32/float64 arrays.\n"
"Every finite value x comes back as x' with |x - x'| <= E: E = BOUND (ABS), or\n"
"E = BOUND * (max - min) over the finite non-fill values of the whole input\n"
"(REL).\n"
"NaN, Inf and the fill value come back bit for bit.\n"
"\n"
"Fixed-rate mode (--fixed L, FIXED.md) instead stores every value in l = 8, 16\n"
"or 32 bits plus 16 bits per block of 32 values (the block's exponent), so the\n"
"size depends only on n and l. The error is relative to each block's largest\n"
"magnitude M: |x - x'| <= 2^(1-l) * M / (1 - 2^-l) (about 2^-7, 2^-15, 2^-31 of\n"
"M). NaN stays NaN, an Inf comes back as itself (as NaN in a block that mixes\n"
"kinds). compress, roundtrip and stat take --fixed; decompress and info read\n"
"either mode, even mixed in one stream.\n"
"\n"
"Commands:\n"
"  compress     raw values (-i) -> ghz stream (-z, or -o)\n"
"  decompress   ghz stream (-z, or -i) -> raw values of the stream's type (-o)\n"
"  roundtrip    compress to -z and decompress to -o in one pass\n"
"  stat         compress and decompress in memory, report ratio, bits/value, max\n"
"               error, max error/bound (eb_abs of the frame headers; --fixed: the\n"
"               bound of each value's block), PSNR, NRMSE\n"
"               (over the finite non-fill values; range = their max - min) and\n"
"               compress/decompress speed in GB/s of uncompressed data (time in\n"
"               the codec calls only, REL's range pass included; no file I/O;\n"
"               with -x cuda the GPU's time, host<->device copies included);\n"
"               exits 1 if a value breaks the bound\n"
"  info         print the header fields of every frame and the totals; decodes\n"
"               every frame to validate it (like zstd -l / zstd -t), on the\n"
"               backend of -x\n"
"  add, sub,    A + B, A - B, min(A, B), max(A, B) element by element, on the\n"
"  min, max     compressed streams (ghz/homo): the output is the stream that\n"
"               decompress, operate, compress -M ABS -E eb_abs would write; a\n"
"               value that is fill in A or B is fill in the output. A and B\n"
"               must match frame by frame: type, values, eb_abs and fill value\n"
"               (compress both with -M ABS and the same bound); fixed-rate\n"
"               frames are refused (ghz/homo is defined for the bounded mode)\n"
"\n",
        stdout);
    fputs(
"Files ('-' is stdin or stdout; binary data is never written to a terminal):\n"
"  -i, --input FILE        raw input: little-endian values, no header\n"
"  -z, --compressed FILE   ghz stream\n"
"  -o, --output FILE       decompressed values (or compress's output)\n"
"  --info FILE             same as 'info FILE'\n"
"\n"
"Data and bound:\n"
"  -t, --type f32|f64      type of the raw values (-f = f32, -d = f64)\n"
"  -M, --mode ABS|REL [BOUND]  error-bound mode (SZ3); the bound may follow\n"
"  -E, --bound BOUND       ABS: the absolute error; REL: a fraction of the range\n"
"  -A, -a BOUND            -M ABS -E BOUND (-a as in zfp)\n"
"  -R BOUND                -M REL -E BOUND\n"
"  --fixed L               fixed-rate frames of l = 8, 16 or 32 bits per value\n"
"                          instead of an error bound; excludes -M/-E/-A/-R,\n"
"                          --fill and --checksum (the fixed-rate format has no\n"
"                          bound, fill value or checksum); one CPU thread\n"
"  --fill VALUE            values bit-identical to VALUE (in the type) are kept\n"
"                          exactly and left out of the REL range (_FillValue);\n"
"                          fill-only blocks cost nothing\n"
"  --prefer speed|ratio    speed (default): the block frames, GB/s to TB/s and\n"
"                          homomorphic; ratio: predicted along the dimensions\n"
"                          and entropy coded (ghz/codec/RATIO.md): several times\n"
"                          fewer bytes on smooth fields, same bound, slower\n"
"  -1 NX | -2 NX NY | -3 NX NY NZ\n"
"                          dimensions, fastest first (C order: the last numpy\n"
"                          axis first); they shape --prefer ratio's prediction\n"
"                          (frames hold whole slabs of the slowest dimension)\n"
"                          and are checked against the number of values\n"
"\n",
        stdout);
    fputs(
"Execution:\n"
"  -n, --threads N         CPU threads, 0 = all (default 0; stat: 1)\n"
"  -x, --exec cpu|cuda     where the codec runs: cpu (default), or cuda: the\n"
"                          current CUDA device (CUDA_VISIBLE_DEVICES picks it),\n"
"                          frame by frame, with each frame's data copied to the\n"
"                          GPU and back. Same output bytes as cpu. Needs a\n"
"                          library built with CUDA (ghz-cli -V lists the\n"
"                          backends); with cuda, -n only sets the threads of\n"
"                          REL's range pass, which stays on the CPU\n"
"  --frame-elems N         values per frame (default 67108864 = 2^26); memory use\n"
"                          is about N values for the input, the compressed frame\n"
"                          and, when decompressing too, the decoded values\n"
"  --max-frame-bytes N     readers (decompress, info, add/sub/min/max): refuse a\n"
"                          frame that decodes to more than N bytes, judged on its\n"
"                          header before anything is read or allocated (default\n"
"                          1G = 1 GiB; K, M, G, T are binary; 0 = no limit). A\n"
"                          small file can announce gigabytes: raise it only for\n"
"                          input you trust\n"
"  --checksum              end every frame with a CRC-32C, 4 bytes, which every\n"
"                          reader checks before decoding: a damaged file is\n"
"                          reported, not decoded (the default)\n"
"  --no-checksum           write frames without their CRC-32C.\n"
"                          Fixed-rate frames have no checksum: readers check their\n"
"                          header and block words, but a changed code byte decodes\n"
"                          to another value unnoticed\n"
"\n"
"Output:\n"
"  -s, --report            roundtrip: also print stat's report (stdout, or stderr\n"
"                          when a data stream goes to stdout)\n"
"  -v, --verbose           more detail (a summary line; info: every header field)\n"
"  -q, --quiet             errors only\n"
"  --progress, --no-progress\n"
"                          progress line on stderr; by default shown only when\n"
"                          stderr is a terminal and the job is long (> 1 s or\n"
"                          > 256 MiB)\n"
"  -h, --help              this help\n"
"  -V, --version           versions of ghz-cli, the library and the stream format\n"
"\n",
        stdout);
    fputs(
"Memory: files are processed frame by frame in bounded memory, except REL input\n"
"that is not a regular file (a pipe): REL needs the range of the whole input\n"
"before the first frame, so such input is read into memory whole (a regular file\n"
"is read twice instead). Readers hold one frame at a time and refuse a frame\n"
"above --max-frame-bytes from its header. Output files are written under a\n"
"temporary name in the same directory (the target's, through a symbolic link),\n"
"synced and renamed at the end; on failure nothing is left behind.\n"
"\n"
"Exit status: 0 success, 1 runtime or data error (unreadable, truncated or\n"
"corrupted input, a frame above --max-frame-bytes, an input file that changed\n"
"size while read, I/O error, bound violated in stat, -x cuda without a CUDA\n"
"build or a usable GPU, a CUDA error), 2 usage error (an option given twice\n"
"with different values, a bound that cannot be used, REL's included).\n"
"\n"
"Examples:\n"
"  ghz-cli compress -i t.f32 -z t.ghz -t f32 -M REL -E 1e-4\n"
"  ghz-cli decompress -z t.ghz -o t.out\n"
"  ghz-cli -i t.f32 -z t.ghz -o t.out -t f32 -M ABS -E 0.01 -s\n"
"  ghz-cli stat -i t.f64 -d -M REL 1e-3 --fill -9999\n"
"  ghz-cli stat -i t.f32 -f -A 0.01 -x cuda\n"
"  ghz-cli compress -i t.f64 -z t.ghz -d --fixed 16 && ghz-cli info t.ghz\n"
"  cat t.f32 | ghz-cli compress -t f32 -A 0.5 | ghz-cli decompress > t.out\n",
        stdout);
}
