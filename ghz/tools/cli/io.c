/* ghz/tools/cli/io.c: files, stdin/stdout, temporary outputs (POSIX). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "io.h"
#include "progress.h"

/* Temporary files to remove when the process is interrupted (SIGINT, SIGTERM,
 * SIGHUP): a run writes at most two outputs (roundtrip). */
#define CLEANUP_SLOTS 4
static char cleanup_path[CLEANUP_SLOTS][PATH_MAX];
static volatile sig_atomic_t cleanup_used[CLEANUP_SLOTS];
static int handlers_installed;

static void on_signal(int sig)
{
    int i;
    for (i = 0; i < CLEANUP_SLOTS; ++i)
        if (cleanup_used[i]) unlink(cleanup_path[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static int cleanup_add(const char* path)
{
    int i;
    if (strlen(path) >= PATH_MAX) return 0;
    if (!handlers_installed) {
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
        size_t k;
        for (k = 0; k < sizeof sigs / sizeof sigs[0]; ++k)
            if (signal(sigs[k], on_signal) == SIG_IGN) signal(sigs[k], SIG_IGN);
        handlers_installed = 1;
    }
    for (i = 0; i < CLEANUP_SLOTS; ++i) {
        if (!cleanup_used[i]) {
            strcpy(cleanup_path[i], path);
            cleanup_used[i] = 1;
            return i + 1;
        }
    }
    return 0;
}

static void cleanup_remove(int slot)
{
    if (slot > 0) cleanup_used[slot - 1] = 0;
}

static int is_dash(const char* path)
{
    return path[0] == '-' && path[1] == '\0';
}

/* ---- input ----------------------------------------------------------------------- */

int cli_in_open(cli_in* in, const char* path)
{
    struct stat st;
    memset(in, 0, sizeof *in);
    in->path = path;
    in->size = CLI_SIZE_UNKNOWN;
    if (is_dash(path)) {
        in->name = "stdin";
        if (isatty(fileno(stdin)))
            return cli_usage_error("refusing to read binary data from a terminal; "
                                   "give an input file or redirect stdin");
        in->f = stdin;
    } else {
        in->name = path;
        in->f = fopen(path, "rb");
        if (!in->f) return cli_fail_errno("cannot open %s", path);
    }
    if (fstat(fileno(in->f), &st) != 0) {
        int rc = cli_fail_errno("cannot stat %s", in->name);
        cli_in_close(in);
        return rc;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_in_close(in);
        return cli_fail(GHZ_ERR_IO, "Is a directory", "cannot read %s", path);
    }
    if (S_ISREG(st.st_mode)) {
        off_t at = ftello(in->f);
        if (at >= 0 && at <= st.st_size) {
            in->regular = 1;
            in->start = at;
            in->size = (uint64_t)(st.st_size - at);
        }
    }
    return 0;
}

int cli_in_read(cli_in* in, void* buf, size_t want, size_t* got)
{
    size_t n = 0;
    while (n < want) {
        size_t k = fread((char*)buf + n, 1, want - n, in->f);
        n += k;
        if (k == 0) {
            if (ferror(in->f)) {
                *got = n;
                return cli_fail_errno("read %s", in->name);
            }
            break; /* end of input */
        }
    }
    in->pos += n;
    *got = n;
    return 0;
}

void* cli_alloc_large(size_t bytes)
{
#if defined(__linux__)
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge / 2 && bytes <= SIZE_MAX - huge) {
        const size_t size = (bytes + huge - 1) & ~(huge - 1);
        void* p = aligned_alloc(huge, size);
        if (p) ghz_huge_pages(p, size);
        if (p) return p;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

int cli_in_read_grow(cli_in* in, unsigned char** buf, size_t* cap, size_t off, size_t max,
                     size_t* got)
{
    const size_t first = (size_t)1 << 20;
    size_t n = 0;
    *got = 0;
    /* A regular file says how much is left: allocate that much at once. */
    if (in->regular && in->pos <= in->size && in->size - in->pos < max)
        max = (size_t)(in->size - in->pos);
    if (max > SIZE_MAX - off)
        return cli_fail(GHZ_ERR_NOMEM, "larger than the address space", "reading %s", in->name);
    while (n < max) {
        size_t k, want;
        if (off + n >= *cap) {
            /* Double (from 1 MiB), never beyond off + max. */
            size_t grow = *cap < first ? first : *cap, end = off + max, newcap;
            unsigned char* p;
            newcap = in->regular || grow >= end - *cap ? end : *cap + grow;
            p = (unsigned char*)(*buf ? realloc(*buf, newcap) : cli_alloc_large(newcap));
            if (!p)
                return cli_fail(GHZ_ERR_NOMEM, NULL, "reading %s: %zu bytes", in->name, newcap);
            *buf = p;
            *cap = newcap;
        }
        want = (*cap - off < max ? *cap - off : max) - n;
        if (cli_in_read(in, *buf + off + n, want, &k) != 0) {
            *got = n + k;
            return CLI_ERR_RUNTIME;
        }
        n += k;
        *got = n;
        if (k < want) break; /* end of input */
    }
    return 0;
}

int cli_in_check_whole(cli_in* in)
{
    struct stat st;
    char why[160];
    if (!in->regular) return 0;
    if (fstat(fileno(in->f), &st) != 0) return cli_fail_errno("cannot stat %s", in->name);
    /* One more byte past the size read means the file grew (or, like the files of
     * /proc, never had the size it reported). */
    if (in->pos == in->size && (uint64_t)st.st_size == (uint64_t)in->start + in->size &&
        fgetc(in->f) == EOF && !ferror(in->f))
        return 0;
    if (in->pos == in->size)
        snprintf(why, sizeof why, "%llu bytes when opened, more now",
                 (unsigned long long)in->size);
    else
        snprintf(why, sizeof why, "%llu bytes when opened, %llu read, %llu now",
                 (unsigned long long)in->size, (unsigned long long)in->pos,
                 (unsigned long long)(st.st_size > in->start ? st.st_size - in->start : 0));
    return cli_fail(GHZ_ERR_IO, why, "%s changed size while it was read", in->name);
}

int cli_in_rewind(cli_in* in)
{
    if (!in->regular || fseeko(in->f, in->start, SEEK_SET) != 0)
        return cli_fail_errno("cannot rewind %s", in->name);
    in->pos = 0;
    return 0;
}

void cli_in_close(cli_in* in)
{
    if (in->f && in->f != stdin) fclose(in->f);
    in->f = NULL;
}

/* ---- output ---------------------------------------------------------------------- */

/* Longest file name component (POSIX NAME_MAX on the usual file systems). */
#define NAME_LEN_MAX 255

/* "<dir>/.<base>.ghz-tmp-XXXXXX" for mkstemp, with <base> cut short so that the
 * name stays a valid component even when the final name is 255 bytes long. */
static char* temp_template(const char* final_path)
{
    static const char suffix[] = ".ghz-tmp-XXXXXX";
    const char* slash = strrchr(final_path, '/');
    size_t dir_len = slash ? (size_t)(slash - final_path) + 1 : 0;
    const char* base = final_path + dir_len;
    size_t keep = strlen(base), most = NAME_LEN_MAX - 1 - (sizeof suffix - 1);
    size_t len;
    char* t;
    if (keep > most) keep = most;
    len = dir_len + 1 + keep + sizeof suffix;
    t = (char*)malloc(len);
    if (!t) return NULL;
    memcpy(t, final_path, dir_len);
    snprintf(t + dir_len, len - dir_len, ".%.*s%s", (int)keep, base, suffix);
    return t;
}

/* The file a chain of symbolic links ending in a missing name would create (malloc'd),
 * or NULL with errno set. Relative targets are taken from the link's directory. */
static char* dangling_target(const char* path)
{
    char* cur = strdup(path);
    int hops;
    for (hops = 0; cur && hops < 40; ++hops) {
        struct stat st;
        char target[PATH_MAX];
        ssize_t k;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur; /* the missing end */
        k = readlink(cur, target, sizeof target - 1);
        if (k < 0) break;
        target[k] = '\0';
        if (target[0] != '/') {
            const char* slash = strrchr(cur, '/');
            size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;
            char* next = (char*)malloc(dir + (size_t)k + 1);
            if (!next) break;
            memcpy(next, cur, dir);
            memcpy(next + dir, target, (size_t)k + 1);
            free(cur);
            cur = next;
        } else {
            free(cur);
            cur = strdup(target);
        }
    }
    if (cur && hops >= 40) errno = ELOOP;
    free(cur);
    return NULL;
}

int cli_out_open(cli_out* out, const char* path)
{
    struct stat st;
    mode_t mode;
    int fd, exists;

    memset(out, 0, sizeof *out);
    out->path = path;
    if (is_dash(path)) {
        out->name = "stdout";
        if (isatty(fileno(stdout)))
            return cli_usage_error("refusing to write binary data to a terminal; "
                                   "give an output file or redirect stdout");
        out->f = stdout;
        return 0;
    }
    out->name = path;
    exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return cli_fail(GHZ_ERR_IO, "Is a directory", "cannot write %s", path);
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or FIFO (/dev/null, a named pipe) cannot be replaced: write to it
         * directly. */
        out->f = fopen(path, "wb");
        if (!out->f) return cli_fail_errno("cannot open %s", path);
        return 0;
    }
    /* A symbolic link is followed, so that the file it names is replaced, not the
     * link; a dangling one gets its target created, through a temporary file in the
     * target's directory like any other output. */
    if (exists) {
        out->final_path = realpath(path, NULL);
    } else if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        out->final_path = dangling_target(path);
        if (!out->final_path) return cli_fail_errno("cannot follow the link %s", path);
    }
    if (!out->final_path) out->final_path = strdup(path);
    if (!out->final_path) return cli_fail(GHZ_ERR_NOMEM, NULL, "cannot write %s", path);
    out->tmp_path = temp_template(out->final_path);
    if (!out->tmp_path) {
        cli_out_abort(out);
        return cli_fail(GHZ_ERR_NOMEM, NULL, "cannot write %s", path);
    }
    fd = mkstemp(out->tmp_path);
    if (fd < 0) {
        int rc = cli_fail_errno("cannot create %s", path);
        free(out->tmp_path);
        out->tmp_path = NULL;
        cli_out_abort(out);
        return rc;
    }
    out->slot = cleanup_add(out->tmp_path);
    /* mkstemp makes the file 0600: give it the mode the final file would have had. */
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
    out->f = fdopen(fd, "wb");
    if (!out->f) {
        int rc = cli_fail_errno("cannot open %s", out->tmp_path);
        close(fd);
        cli_out_abort(out);
        return rc;
    }
    return 0;
}

int cli_out_write(cli_out* out, const void* data, size_t n)
{
    if (n && fwrite(data, 1, n, out->f) != n) return cli_fail_errno("write %s", out->name);
    out->written += n;
    return 0;
}

/* Makes a rename in the directory of path durable (best effort: some file systems
 * refuse fsync on a directory, and the data itself is already on disk). */
static void sync_dir(const char* path)
{
    const char* slash = strrchr(path, '/');
    char* dir = slash ? strdup(path) : strdup(".");
    int fd;
    if (!dir) return;
    if (slash) dir[slash == path ? 1 : (size_t)(slash - path)] = '\0';
    fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int cli_out_commit(cli_out* out)
{
    int bad;
    if (!out->f) return 0;
    if (out->f == stdout) {
        out->f = NULL;
        if (fflush(stdout) != 0 || ferror(stdout)) return cli_fail_errno("write %s", out->name);
        return 0;
    }
    /* On disk before the rename: a crash then leaves the old file or the whole new
     * one under the final name, never a renamed but empty one. A device or FIFO
     * written directly may not support fsync (EINVAL): that is no failure. */
    bad = fflush(out->f) != 0 || ferror(out->f);
    if (!bad && fsync(fileno(out->f)) != 0 && errno != EINVAL && errno != ENOTSUP)
        bad = 1;
    bad |= fclose(out->f) != 0;
    out->f = NULL;
    if (bad) {
        int rc = cli_fail_errno("write %s", out->name);
        cli_out_abort(out);
        return rc;
    }
    if (out->tmp_path) {
        if (rename(out->tmp_path, out->final_path) != 0) {
            int rc = cli_fail_errno("cannot rename %s to %s", out->tmp_path, out->final_path);
            cli_out_abort(out);
            return rc;
        }
        cleanup_remove(out->slot);
        out->slot = 0;
        free(out->tmp_path);
        out->tmp_path = NULL;
        sync_dir(out->final_path);
    }
    free(out->final_path);
    out->final_path = NULL;
    return 0;
}

void cli_out_abort(cli_out* out)
{
    if (out->f && out->f != stdout) fclose(out->f);
    if (out->f == stdout) fflush(stdout);
    out->f = NULL;
    if (out->tmp_path) {
        unlink(out->tmp_path);
        cleanup_remove(out->slot);
        out->slot = 0;
        free(out->tmp_path);
        out->tmp_path = NULL;
    }
    free(out->final_path);
    out->final_path = NULL;
}

int cli_same_file(const char* a, const char* b)
{
    struct stat sa, sb;
    if (!a || !b || is_dash(a) || is_dash(b)) return 0;
    if (strcmp(a, b) == 0) return 1;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
