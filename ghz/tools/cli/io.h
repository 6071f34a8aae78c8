/* ghz/tools/cli/io.h: input and output files. '-' means stdin or stdout. An output
 * file is written under a temporary name in its directory and renamed over the
 * final name only by cli_out_commit, so a failed or interrupted run never leaves a
 * half-written file under the name the user asked for. */
#ifndef GHZ_TOOLS_CLI_IO_H
#define GHZ_TOOLS_CLI_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct {
    const char* path; /* as given; "-" = stdin */
    const char* name; /* for messages: the path, or "stdin" */
    FILE* f;
    int regular;      /* a regular file: its size is known and it can be read again */
    uint64_t size;    /* bytes from the start position to the end, or CLI_SIZE_UNKNOWN */
    off_t start;      /* where reading began (stdin redirected from a file may be
                         positioned anywhere) */
    uint64_t pos;     /* bytes consumed since start */
} cli_in;

/* Opens path for reading. Refuses to read binary data from a terminal. Returns 0,
 * or CLI_ERR_RUNTIME / CLI_ERR_USAGE after reporting. */
int cli_in_open(cli_in* in, const char* path);

/* Reads `want` bytes, fewer only at the end of the input; *got receives the count.
 * Returns 0, or CLI_ERR_RUNTIME after reporting a read error. */
int cli_in_read(cli_in* in, void* buf, size_t want, size_t* got);

/* Memory for a large buffer (at least 1 byte; freed with free, grown with realloc):
 * from 1 MiB on 2 MiB-aligned, whole 2 MiB, and given to ghz_huge_pages, without
 * which a short run spends about as long in the page faults of its input or output
 * as in the coding. */
void* cli_alloc_large(size_t bytes);

/* Reads up to `max` bytes into (*buf)[off..], growing *buf (capacity *cap, realloc)
 * only as data actually arrives, so that neither a short input nor a size announced
 * by a corrupted header makes it allocate much more than the bytes that exist.
 * *got receives the count. Returns 0 (fewer than max bytes only at the end of the
 * input) or CLI_ERR_RUNTIME after reporting. */
int cli_in_read_grow(cli_in* in, unsigned char** buf, size_t* cap, size_t off, size_t max,
                     size_t* got);

/* After reading a regular file to its end: 0 when exactly the size it had at open was
 * read, it still has that size and holds no byte more; else CLI_ERR_RUNTIME after reporting that the file
 * changed while it was read (a file cut short must not compress silently into a
 * shorter stream). 0 for other inputs. */
int cli_in_check_whole(cli_in* in);

/* Goes back to the start position (regular files only). Returns 0 or an exit code. */
int cli_in_rewind(cli_in* in);

void cli_in_close(cli_in* in);

typedef struct {
    const char* path;  /* as given; "-" = stdout */
    const char* name;  /* for messages */
    FILE* f;
    char* final_path;  /* what the temporary file becomes; NULL when writing directly */
    char* tmp_path;    /* the temporary file; NULL when writing directly */
    int slot;          /* 1 + entry in the interrupt cleanup list; 0 = none */
    uint64_t written;  /* bytes written so far */
} cli_out;

/* Opens path for writing. A regular file (new or existing) goes through a temporary
 * file; stdout, devices and FIFOs are written directly. Refuses to write binary data
 * to a terminal. Returns 0, CLI_ERR_RUNTIME or CLI_ERR_USAGE after reporting. */
int cli_out_open(cli_out* out, const char* path);

/* Writes n bytes. Returns 0 or CLI_ERR_RUNTIME after reporting. */
int cli_out_write(cli_out* out, const void* data, size_t n);

/* Flushes, closes and renames the temporary file over the final name. Returns 0 or
 * CLI_ERR_RUNTIME after reporting (the temporary file is then removed). */
int cli_out_commit(cli_out* out);

/* Closes and removes the temporary file (the final name is left untouched). Safe to
 * call on a cli_out that was never opened or already committed, if zeroed first. */
void cli_out_abort(cli_out* out);

/* Nonzero when a and b name the same file (same path, or same device and inode);
 * "-" is never the same as anything. */
int cli_same_file(const char* a, const char* b);

#endif
