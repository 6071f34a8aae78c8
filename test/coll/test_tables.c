/* test/coll/test_tables.c: COLL.md's tables of names and of environment variables are
 * the library's own tables (detail/names.h, detail/knobs.h): each row the docs show is
 * made here from the table and compared, so that a knob, an algorithm or a transport
 * added, renamed or described anew in one place and not the other fails. On a
 * difference the test prints the rows as they should be. Also: the name functions and
 * the agreed knobs follow the tables, the calls' numbers there are the kinds', and no
 * file of ghz/coll reads an environment variable that is not in the knobs' table (but the
 * tests' seams, GHZ_COLL_TEST_*). */
/* opendir, readdir, stat (POSIX) */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/knobs.h"
#include "ghz/coll/detail/names.h"

#if !defined(GHZ_COLL_MD) || !defined(GHZ_COLL_SRC)
#error "GHZ_COLL_MD, GHZ_COLL_SRC: the paths of ghz/coll/COLL.md and of ghz/coll"
#endif

enum { ROW = 2048, ROWS = 64 };

/* COLL.md's rows of the table whose header line is `header`, after its separator line,
 * up to the first line that is not a row: *n of them. */
static char (*doc_rows(const char* header, int* n))[ROW]
{
    static char rows[ROWS][ROW];
    char line[ROW];
    FILE* f = fopen(GHZ_COLL_MD, "r");
    int in = 0;
    *n = 0;
    cr_assert(f != NULL, "cannot open %s", GHZ_COLL_MD);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!in) {
            if (!strcmp(line, header)) in = 1;
            continue;
        }
        if (in == 1) { /* the separator */
            in = 2;
            continue;
        }
        if (line[0] != '|' || *n == ROWS) break;
        strcpy(rows[(*n)++], line);
    }
    fclose(f);
    cr_assert(in, "COLL.md has no table headed %s", header);
    return rows;
}

/* Compares COLL.md's rows with the wanted ones; prints the wanted table on a difference. */
static void compare(const char* header, char (*want)[ROW], int nwant)
{
    int n, i, same;
    char(*got)[ROW] = doc_rows(header, &n);
    same = n == nwant;
    for (i = 0; same && i < n; i++) same = !strcmp(got[i], want[i]);
    if (!same) {
        fprintf(stderr, "COLL.md's table %s differs from the library's table; it should read:\n%s\n", header, header);
        for (i = 0; i < nwant; i++) fprintf(stderr, "%s\n", want[i]);
        for (i = 0; i < n || i < nwant; i++)
            if (i >= n || i >= nwant || strcmp(got[i], want[i]))
                fprintf(stderr, "first difference, row %d:\n  COLL.md: %s\n  table:   %s\n", i + 1, i < n ? got[i] : "(none)",
                        i < nwant ? want[i] : "(none)");
    }
    cr_expect(same, "COLL.md's table %s is not the library's (the rows it should have are printed above)", header);
}

/* "`a`, `b`, ..." of the n names (NULL entries skipped) into out. */
static void names_list(const char* const* names, int n, char* out, size_t len)
{
    int i;
    *out = '\0';
    for (i = 0; i < n; i++) {
        if (!names[i]) continue;
        if (*out) strncat(out, ", ", len - strlen(out) - 1);
        strncat(out, "`", len - strlen(out) - 1);
        strncat(out, names[i], len - strlen(out) - 1);
        strncat(out, "`", len - strlen(out) - 1);
    }
}

Test(tables, environment)
{
    static char want[ROWS][ROW];
    int n, i;
    const coll_knob_doc_t* k = coll_knob_docs(&n);
    cr_assert(n <= ROWS);
    for (i = 0; i < n; i++) {
        char takes[ROW / 4];
        if (k[i].how == COLL_KNOB_WORDS) {
            names_list(k[i].words, k[i].nwords, takes, sizeof takes);
            strncat(takes, k[i].takes, sizeof takes - strlen(takes) - 1);
        } else {
            snprintf(takes, sizeof takes, "%s", k[i].takes);
        }
        snprintf(want[i], ROW, "| `%s` | %s | %s | %s |", k[i].name, takes, k[i].dflt, k[i].what);
    }
    compare("| Variable | Takes | Default | What it does |", want, n);
}

Test(tables, names)
{
#define NAME_OF(value, name) name,
    static const char* const algos[] = {COLL_ALGOS(NAME_OF)};
    static const char* const transports[] = {COLL_TRANSPORTS(NAME_OF)};
    static const char* const ops[] = {COLL_OPS(NAME_OF)};
    static const char* const dtypes[] = {COLL_DTYPES(NAME_OF)};
    static const char* const paths[] = {COLL_PATHS(NAME_OF)};
#undef NAME_OF
    static const struct {
        const char* what;
        const char* const* names;
        int n;
    } lists[] = {
        {"algorithms (`ghz_algo_t`, `ghz_algo_name`)", algos, (int)(sizeof algos / sizeof *algos)},
        {"transports (`ghz_transport_t`, `ghz_transport_name`, `GHZ_COLL_TRANSPORT`)", transports,
         (int)(sizeof transports / sizeof *transports)},
        {"ops (`ghz_op_t`, `ghz_op_name`)", ops, (int)(sizeof ops / sizeof *ops)},
        {"dtypes (`ghz_dtype_t`, `ghz_dtype_name`)", dtypes, (int)(sizeof dtypes / sizeof *dtypes)},
        {"lossy paths (`ghz_path_t`, `ghz_path_name`)", paths, (int)(sizeof paths / sizeof *paths)},
    };
    static char want[ROWS][ROW];
    size_t i;
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        char names[ROW / 2];
        names_list(lists[i].names, lists[i].n, names, sizeof names);
        snprintf(want[i], ROW, "| %s | %s |", lists[i].what, names);
    }
    compare("| Names of | Names |", want, (int)(sizeof lists / sizeof lists[0]));
}

/* The name functions and the tables agree (the functions are made from them), and every
 * value without a name is "unknown". */
Test(tables, name_functions)
{
#define CHECK_NAME(fn, type, value, name) cr_expect_str_eq(fn((type)(value)), name, #fn "(%d)", (int)(value));
#define ALGO(value, name) CHECK_NAME(ghz_algo_name, ghz_algo_t, value, name)
#define TRANSPORT(value, name) CHECK_NAME(ghz_transport_name, ghz_transport_t, value, name)
#define OP(value, name) CHECK_NAME(ghz_op_name, ghz_op_t, value, name)
#define DTYPE(value, name) CHECK_NAME(ghz_dtype_name, ghz_dtype_t, value, name)
#define PATH(value, name) CHECK_NAME(ghz_path_name, ghz_path_t, value, name)
    COLL_ALGOS(ALGO)
    COLL_TRANSPORTS(TRANSPORT)
    COLL_OPS(OP)
    COLL_DTYPES(DTYPE)
    COLL_PATHS(PATH)
    cr_expect_str_eq(ghz_algo_name((ghz_algo_t)999), "unknown");
    cr_expect_str_eq(ghz_transport_name((ghz_transport_t)999), "unknown");
}

/* The knobs the agreement compares are the table's agreed ones, by name. */
Test(tables, agreed)
{
    coll_knobs_t k;
    const char* names[32];
    int64_t values[32];
    int n, nk, i, j = 0;
    const coll_knob_doc_t* d = coll_knob_docs(&nk);
    cr_assert(coll_knobs_read(&k) == GHZ_SUCCESS);
    n = coll_knobs_agreed(&k, names, values, 32);
    for (i = 0; i < nk; i++) {
        if (!d[i].agreed) continue;
        cr_assert(j < n, "%s is agreed in the table, not in coll_knobs_agreed", d[i].name);
        cr_expect(!strncmp(names[j], d[i].name, strlen(d[i].name)), "agreed %d: %s, the table's %s", j, names[j],
                  d[i].name);
        j++;
    }
    cr_expect_eq(j, n, "coll_knobs_agreed gives %d knobs, the table %d", n, j);
}

/* The calls' numbers in the agreement's table of names (COLL_CALLS) are the kinds the
 * calls put in the agreement (coll_kind_t, detail/calls.h, the one numbering of every
 * call; + 1 for a data movement's v form), and no internal kind (the two-level stages,
 * never agreed) has a public call's name. */
Test(tables, calls)
{
    static const struct {
        int kind;
        const char* name;
    } want[] = {{KIND_ALLREDUCE, "allreduce"},   {KIND_REDUCE, "reduce"},         {KIND_REDUCE_SCATTER, "reduce_scatter"},
                {MV_ALLGATHER, "allgather"},     {MV_ALLGATHER + 1, "allgatherv"}, {MV_BCAST, "broadcast"},
                {MV_SCATTER, "scatter"},         {MV_SCATTER + 1, "scatterv"},     {MV_GATHER, "gather"},
                {MV_GATHER + 1, "gatherv"},      {MV_ALLTOALL, "alltoall"},        {MV_ALLTOALL + 1, "alltoallv"}};
#define CALL_OF(value, name) {value, name},
    static const struct {
        int kind;
        const char* name;
    } table[] = {COLL_CALLS(CALL_OF)};
#undef CALL_OF
    size_t i;
    cr_assert_eq(sizeof table / sizeof table[0], sizeof want / sizeof want[0]);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_expect_eq(table[i].kind, want[i].kind, "COLL_CALLS %zu: %d, the kind %s is %d", i, table[i].kind,
                     want[i].name, want[i].kind);
        cr_expect_str_eq(table[i].name, want[i].name);
    }
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        cr_expect(table[i].kind != KIND_RS_SPLIT && table[i].kind != KIND_AG_SPLIT && table[i].kind != KIND_BCAST,
                  "COLL_CALLS names the internal kind %d", table[i].kind);
}

/* Every environment variable a file under dir reads by name (getenv("...")) is a knob of
 * the table or a seam of the tests (GHZ_COLL_TEST_*): *found counts the reads. */
static void scan_getenv(const char* dir, int* found)
{
    DIR* d = opendir(dir);
    struct dirent* e;
    cr_assert(d != NULL, "cannot open %s", dir);
    while ((e = readdir(d)) != NULL) {
        char path[1024];
        struct stat st;
        const char* dot = strrchr(e->d_name, '.');
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            scan_getenv(path, found);
            continue;
        }
        if (!dot || (strcmp(dot, ".c") && strcmp(dot, ".h") && strcmp(dot, ".cu"))) continue;
        {
            FILE* f = fopen(path, "r");
            char line[4096];
            cr_assert(f != NULL, "cannot open %s", path);
            while (fgets(line, sizeof line, f)) {
                const char* at = line;
                while ((at = strstr(at, "getenv(\"")) != NULL) {
                    char name[128];
                    int n, nk, i, known = 0;
                    const coll_knob_doc_t* k = coll_knob_docs(&nk);
                    at += strlen("getenv(\"");
                    n = (int)strcspn(at, "\"");
                    snprintf(name, sizeof name, "%.*s", n < 127 ? n : 127, at);
                    for (i = 0; i < nk; i++) known |= !strcmp(name, k[i].name);
                    known |= !strncmp(name, "GHZ_COLL_TEST_", strlen("GHZ_COLL_TEST_"));
                    cr_expect(known, "%s reads %s, which is neither in COLL_KNOBS (detail/knobs.h) nor a test seam",
                              path, name);
                    (*found)++;
                }
            }
            fclose(f);
        }
    }
    closedir(d);
}

/* A knob read anywhere but through the table would be a knob the docs, the agreement and
 * the INFO line do not know. */
Test(tables, no_other_knobs)
{
    int found = 0;
    scan_getenv(GHZ_COLL_SRC, &found);
    cr_expect(found > 0, "no getenv(\"...\") found under %s: the scan reads nothing", GHZ_COLL_SRC);
}
