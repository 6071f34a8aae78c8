/* ghz/tools/coll_bench/args.c: the flags of nccl-tests (-b -e -f -i -n -w -c -o -d -r -a)
 * plus what only ghz has (--coll, --backend, --algo, --rel/--abs, --paths, --pool,
 * --chunk, --threads, --json, --raw). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

/* The names a name function gives, from value lo up to the first it does not know,
 * separated by spaces (ghz/coll's tables: every op, dtype and algorithm the library has). */
static const char* names_from(int lo, const char* (*name)(int), char* buf, size_t len)
{
    int i;
    *buf = '\0';
    for (i = lo; strcmp(name(i), "unknown") != 0; ++i) {
        if (*buf) strncat(buf, " ", len - strlen(buf) - 1);
        strncat(buf, name(i), len - strlen(buf) - 1);
    }
    return buf;
}

static const char* op_name(int i) { return ghz_op_name((ghz_op_t)i); }
static const char* algo_name(int i) { return ghz_algo_name((ghz_algo_t)i); }
static const char* dtype_name(int i) { return ghz_dtype_name((ghz_dtype_t)i); }

static void usage(FILE* f)
{
    char ops[256], dtypes[256], algos[256];
    fprintf(f,
"usage: mpirun -np N ghz-coll-bench [options]\n"
"  -b, --minbytes B     smallest size in bytes, K/M/G suffixes (default 32M)\n"
"  -e, --maxbytes B     largest size (default 32M)\n"
"  -f, --stepfactor F   next size = size * F (default 2)\n"
"  -i, --stepbytes B    next size = size + B instead (default 0: use -f)\n"
"  -n, --iters N        timed calls per row (default 20)\n"
"  -w, --warmup_iters N untimed calls before them (default 5)\n"
"  -c, --check 0|1      check every element of every result (default 1)\n"
"  -o, --op OP          %s (default sum)\n"
"  -d, --datatype T     %s\n"
"                       (default float)\n"
"  -r, --root R         root of reduce, broadcast, scatter, gather (default 0)\n"
"  -a, --average M      row time: 0 rank 0, 1 average, 2 min, 3 max over ranks\n"
"                       (default 1; min/avg/max columns are printed in any case)\n"
"  --coll C             allreduce | reduce | reduce_scatter | allgather | broadcast |\n"
"                       scatter | gather | alltoall (default allreduce; the last five\n"
"                       move data: -b/-e size as nccl-tests', the op unused, no doc row)\n"
"  --backend B          cpu (host buffers) | cuda (device buffers; ranks share the\n"
"                       node's GPUs round robin) (default cpu)\n"
"  --algo A             %s\n"
"                       (default auto)\n"
"  --rel X | --abs X    bound on the FINAL result of the lossy rows (default --rel 1e-4)\n"
"  --paths LIST         rows per size among homo,doc,exact,mpi, auto (ghz's own choice\n"
"                       of compressed or exact by its threshold: not in the default),\n"
"                       ratio (data movement in the codec's ratio frames: not in the\n"
"                       default) and, with --backend cuda, mpi-pinned (default all the\n"
"                       others)\n"
"  --pool B, --chunk B  ghz communicator pool and pipeline chunk (default: library's)\n"
"  --threads N          ghz CPU compute threads (0 = all; default 1)\n"
"  --check-args 0|1     ghz_comm_config_t.check_args: agree on every call's arguments (default 1)\n"
"  --graph 0|1          capture each ghz call once into a CUDA graph and time its\n"
"                       replays (--backend cuda --paths exact; default 0)\n"
"  --sync 0|1           1: every call ends on the clock (its stream synchronized),\n"
"                       out of place as in place, so that work a call leaves on the\n"
"                       stream is timed in the call it belongs to (default 0)\n"
"  --json FILE          also write one JSON object per row to FILE\n"
"  --raw FILE...        real data: rank r uses file r mod k, tiled to each size\n"
"  --raw-type f32|f64   element type of the --raw files (default: that of -d)\n"
"  -h, --help           this text\n"
"Without --raw, each rank synthesizes a smooth field of its own.\n",
            names_from(GHZ_OP_SUM, op_name, ops, sizeof ops), names_from(GHZ_F32, dtype_name, dtypes, sizeof dtypes),
            names_from(GHZ_ALGO_AUTO, algo_name, algos, sizeof algos));
}

int cb_parse_bytes(const char* s, size_t* v)
{
    char* end;
    unsigned long long x, mul = 1;
    if (!isdigit((unsigned char)s[0])) return 0;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno || end == s) return 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': mul = 1ull << 10; ++end; break;
    case 'M': mul = 1ull << 20; ++end; break;
    case 'G': mul = 1ull << 30; ++end; break;
    default: break;
    }
    if (toupper((unsigned char)*end) == 'B') ++end;
    if (*end != '\0' || x > (unsigned long long)SIZE_MAX / mul) return 0;
    *v = (size_t)(x * mul);
    return 1;
}

static int parse_int(const char* s, long lo, long hi, int* v)
{
    char* end;
    long x;
    errno = 0;
    x = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || x < lo || x > hi) return 0;
    *v = (int)x;
    return 1;
}

static int parse_positive(const char* s, double* v)
{
    char* end;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(*v) && *v > 0;
}

/* The value from lo up whose name (by `name`) is s; hi < lo: up to the first value the
 * name function does not know. */
static int find_name(const char* s, int lo, int hi, const char* (*name)(int), int* v)
{
    int i;
    for (i = lo; hi < lo ? strcmp(name(i), "unknown") != 0 : i <= hi; ++i)
        if (strcmp(s, name(i)) == 0) {
            *v = i;
            return 1;
        }
    return 0;
}
static const char* coll_name(int i) { return cb_coll_name((cb_coll_t)i); }
static const char* path_name(int i) { return cb_path_name((cb_path_t)i); }

/* ghz's names (ghz_dtype_name) and the short and nccl-tests spellings. */
static int parse_dtype(const char* s, ghz_dtype_t* t)
{
    static const struct { const char* name; ghz_dtype_t t; } alias[] = {
        {"f32", GHZ_F32}, {"float32", GHZ_F32}, {"f64", GHZ_F64}, {"float64", GHZ_F64},
        {"i8", GHZ_I8}, {"char", GHZ_I8}, {"u8", GHZ_U8}, {"i16", GHZ_I16}, {"u16", GHZ_U16},
        {"i32", GHZ_I32}, {"int", GHZ_I32}, {"u32", GHZ_U32}, {"i64", GHZ_I64},
        {"u64", GHZ_U64}};
    size_t i;
    int d;
    if (find_name(s, GHZ_F32, -1, dtype_name, &d)) {
        *t = (ghz_dtype_t)d;
        return 1;
    }
    for (i = 0; i < sizeof alias / sizeof alias[0]; ++i)
        if (strcmp(s, alias[i].name) == 0) {
            *t = alias[i].t;
            return 1;
        }
    return 0;
}

/* "homo,doc,exact,mpi,mpi-pinned" in any order, each at most once. */
static int parse_paths(const char* s, cb_args_t* a)
{
    char buf[128];
    char* tok;
    char* save = NULL;
    if (strlen(s) >= sizeof buf) return 0;
    strcpy(buf, s);
    a->npaths = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k, found;
        if (!find_name(tok, 0, CB_PATH_COUNT - 1, path_name, &found) || a->npaths == CB_PATH_COUNT)
            return 0;
        for (k = 0; k < a->npaths; ++k)
            if ((int)a->paths[k] == found) return 0;
        a->paths[a->npaths++] = (cb_path_t)found;
    }
    return a->npaths > 0;
}

static void defaults(cb_args_t* a)
{
    /* mpi-pinned joins these on the CUDA backend (finish). */
    static const cb_path_t all[] = {CB_PATH_HOMO, CB_PATH_DOC, CB_PATH_EXACT, CB_PATH_MPI};
    memset(a, 0, sizeof *a);
    a->min_bytes = a->max_bytes = (size_t)32 << 20;
    a->factor = 2.0;
    a->iters = 20;
    a->warmup = 5;
    a->check = 1;
    a->op = GHZ_OP_SUM;
    a->dtype = GHZ_F32;
    a->root = 0;
    a->time_mode = CB_TIME_AVG;
    a->coll = CB_ALLREDUCE;
    a->algo = GHZ_ALGO_AUTO;
    a->eb_mode = GHZ_EB_REL;
    a->eb = 1e-4;
    memcpy(a->paths, all, sizeof all);
    a->npaths = (int)(sizeof all / sizeof all[0]);
    a->backend = GHZ_EXEC_CPU;
    a->threads = 1;
    a->check_args = 1;
    a->raw_type = (ghz_dtype_t)0;
}

/* Every option but -h and --raw takes one value. */
static int known(const char* o)
{
    static const char* const names[] = {
        "-b", "--minbytes", "-e", "--maxbytes", "-i", "--stepbytes", "-f", "--stepfactor",
        "-n", "--iters", "-w", "--warmup_iters", "-c", "--check", "-o", "--op", "-d",
        "--datatype", "-r", "--root", "-a", "--average", "--coll", "--backend", "--algo",
        "--rel", "--abs",
        "--paths", "--pool", "--chunk", "--threads", "--check-args", "--json", "--raw-type", "--graph", "--sync"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(o, names[i]) == 0) return 1;
    return 0;
}

#define USAGE_ERR(...)                                                           \
    do {                                                                         \
        if (speak) {                                                             \
            fprintf(stderr, "ghz-coll-bench: " __VA_ARGS__);                     \
            fprintf(stderr, "\n(ghz-coll-bench -h lists the options)\n");       \
        }                                                                        \
        return CB_EXIT_USAGE;                                                    \
    } while (0)

/* Checks that hold between options once all are read. */
static int finish(cb_args_t* a, int speak)
{
    if (a->min_bytes == 0 || a->max_bytes < a->min_bytes)
        USAGE_ERR("sizes: need 0 < -b <= -e");
    if (a->step_bytes == 0 && !(a->factor > 1.0))
        USAGE_ERR("-f must be > 1 (or give -i)");
    if (a->op == GHZ_OP_AVG && a->dtype != GHZ_F32 && a->dtype != GHZ_F64)
        USAGE_ERR("-o avg needs -d float or double (AVG is defined for floating point only)");
    if (a->backend == GHZ_EXEC_CUDA) {
#ifndef GHZ_WITH_CUDA
        USAGE_ERR("--backend cuda: this build has no CUDA (configure with -DGHZ_ENABLE_CUDA=ON)");
#endif
        if (!a->paths_given) a->paths[a->npaths++] = CB_PATH_MPI_PINNED;
#ifdef GHZ_WITH_NCCL
        if (!a->paths_given) a->paths[a->npaths++] = CB_PATH_NCCL;
#else
        {
            int k;
            for (k = 0; k < a->npaths; ++k)
                if (a->paths[k] == CB_PATH_NCCL) USAGE_ERR("path nccl: this build has no NCCL");
        }
#endif
    } else {
        int k;
        for (k = 0; k < a->npaths; ++k)
            if (a->paths[k] == CB_PATH_MPI_PINNED || a->paths[k] == CB_PATH_NCCL)
                USAGE_ERR("path %s needs --backend cuda", cb_path_name(a->paths[k]));
    }
    if (a->graph) {
        /* what ghz can capture (COLL.md, CUDA graphs): its exact calls on device buffers */
        if (a->backend != GHZ_EXEC_CUDA) USAGE_ERR("--graph 1 needs --backend cuda");
        if (a->npaths != 1 || a->paths[0] != CB_PATH_EXACT)
            USAGE_ERR("--graph 1 captures ghz's exact calls only: give --paths exact");
    }
    if (a->nraw > 0) {
        if (a->raw_type == 0) a->raw_type = a->dtype == GHZ_F64 ? GHZ_F64 : GHZ_F32;
        if (a->dtype != GHZ_F32 && a->dtype != GHZ_F64)
            USAGE_ERR("--raw needs -d float or double (the files hold floating-point data)");
    } else if (a->raw_type != 0) {
        USAGE_ERR("--raw-type without --raw");
    }
    return -1;
}

int cb_parse_args(int argc, char** argv, int speak, cb_args_t* a)
{
    int i;
    defaults(a);
    for (i = 1; i < argc; ++i) {
        const char* o = argv[i];
        const char* v;
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            if (speak) usage(stdout);
            return CB_EXIT_OK;
        }
        if (strcmp(o, "--raw") == 0) {
            /* Every following argument up to the next option names a file. */
            if (i + 1 >= argc || argv[i + 1][0] == '-') USAGE_ERR("--raw needs files");
            if (a->nraw > 0) USAGE_ERR("--raw given twice: list every file after one --raw");
            a->raw = (const char**)&argv[i + 1];
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                ++a->nraw;
                ++i;
            }
            continue;
        }
        if (o[0] != '-') USAGE_ERR("unexpected argument: %s", o);
        if (!known(o)) USAGE_ERR("unknown option: %s", o);
        if (i + 1 >= argc) USAGE_ERR("%s needs a value", o);
        v = argv[++i];
        if (!strcmp(o, "-b") || !strcmp(o, "--minbytes")) {
            if (!cb_parse_bytes(v, &a->min_bytes)) USAGE_ERR("bad size for %s: %s", o, v);
        } else if (!strcmp(o, "-e") || !strcmp(o, "--maxbytes")) {
            if (!cb_parse_bytes(v, &a->max_bytes)) USAGE_ERR("bad size for %s: %s", o, v);
        } else if (!strcmp(o, "-i") || !strcmp(o, "--stepbytes")) {
            if (!cb_parse_bytes(v, &a->step_bytes)) USAGE_ERR("bad size for %s: %s", o, v);
        } else if (!strcmp(o, "-f") || !strcmp(o, "--stepfactor")) {
            if (!parse_positive(v, &a->factor)) USAGE_ERR("bad factor: %s", v);
        } else if (!strcmp(o, "-n") || !strcmp(o, "--iters")) {
            if (!parse_int(v, 1, 1000000000L, &a->iters)) USAGE_ERR("bad -n: %s", v);
        } else if (!strcmp(o, "-w") || !strcmp(o, "--warmup_iters")) {
            if (!parse_int(v, 0, 1000000000L, &a->warmup)) USAGE_ERR("bad -w: %s", v);
        } else if (!strcmp(o, "-c") || !strcmp(o, "--check")) {
            if (!parse_int(v, 0, 1, &a->check)) USAGE_ERR("-c takes 0 or 1: %s", v);
        } else if (!strcmp(o, "-o") || !strcmp(o, "--op")) {
            int x;
            if (!find_name(v, GHZ_OP_SUM, -1, op_name, &x)) USAGE_ERR("unknown op: %s", v);
            a->op = (ghz_op_t)x;
        } else if (!strcmp(o, "-d") || !strcmp(o, "--datatype")) {
            if (!parse_dtype(v, &a->dtype)) USAGE_ERR("unknown datatype: %s", v);
        } else if (!strcmp(o, "-r") || !strcmp(o, "--root")) {
            if (!parse_int(v, 0, 1 << 30, &a->root)) USAGE_ERR("bad root: %s", v);
        } else if (!strcmp(o, "-a") || !strcmp(o, "--average")) {
            int m;
            if (!parse_int(v, 0, 3, &m)) USAGE_ERR("-a takes 0..3: %s", v);
            a->time_mode = (cb_time_mode_t)m;
        } else if (!strcmp(o, "--coll")) {
            int x;
            if (!find_name(v, CB_ALLREDUCE, CB_COLL_LAST, coll_name, &x))
                USAGE_ERR("unknown collective: %s", v);
            a->coll = (cb_coll_t)x;
        } else if (!strcmp(o, "--backend")) {
            if (!strcmp(v, "cpu")) a->backend = GHZ_EXEC_CPU;
            else if (!strcmp(v, "cuda")) a->backend = GHZ_EXEC_CUDA;
            else USAGE_ERR("--backend takes cpu or cuda: %s", v);
        } else if (!strcmp(o, "--algo")) {
            int x;
            if (!find_name(v, GHZ_ALGO_AUTO, -1, algo_name, &x))
                USAGE_ERR("unknown algorithm: %s", v);
            a->algo = (ghz_algo_t)x;
        } else if (!strcmp(o, "--rel") || !strcmp(o, "--abs")) {
            if (!parse_positive(v, &a->eb)) USAGE_ERR("%s needs a finite bound > 0: %s", o, v);
            a->eb_mode = o[2] == 'r' ? GHZ_EB_REL : GHZ_EB_ABS;
        } else if (!strcmp(o, "--paths")) {
            if (!parse_paths(v, a))
                USAGE_ERR("--paths: a list of homo,doc,exact,mpi,mpi-pinned,auto,nccl,ratio: %s", v);
            a->paths_given = 1;
        } else if (!strcmp(o, "--pool")) {
            if (!cb_parse_bytes(v, &a->pool_bytes)) USAGE_ERR("bad size for --pool: %s", v);
        } else if (!strcmp(o, "--chunk")) {
            if (!cb_parse_bytes(v, &a->chunk_bytes)) USAGE_ERR("bad size for --chunk: %s", v);
        } else if (!strcmp(o, "--graph")) {
            if (!parse_int(v, 0, 1, &a->graph)) USAGE_ERR("--graph takes 0 or 1: %s", v);
        } else if (!strcmp(o, "--sync")) {
            if (!parse_int(v, 0, 1, &a->sync)) USAGE_ERR("--sync takes 0 or 1: %s", v);
        } else if (!strcmp(o, "--check-args")) {
            if (!parse_int(v, 0, 1, &a->check_args)) USAGE_ERR("bad --check-args: %s", v);
        } else if (!strcmp(o, "--threads")) {
            if (!parse_int(v, 0, 1 << 16, &a->threads)) USAGE_ERR("bad --threads: %s", v);
        } else if (!strcmp(o, "--json")) {
            a->json = v;
        } else if (!strcmp(o, "--raw-type")) {
            if (!strcmp(v, "f32")) a->raw_type = GHZ_F32;
            else if (!strcmp(v, "f64")) a->raw_type = GHZ_F64;
            else USAGE_ERR("--raw-type takes f32 or f64: %s", v);
        } else {
            USAGE_ERR("unknown option: %s", o);
        }
    }
    return finish(a, speak);
}
