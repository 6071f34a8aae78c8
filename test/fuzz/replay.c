/* test/fuzz/replay.c: runs a fuzz target's LLVMFuzzerTestOneInput once on each file
 * of the directories (or files) given, without libFuzzer, so the inputs of
 * test/fuzz/regress/ run in the ordinary test suite with any compiler (and under ASan
 * and UBSan in scripts/test.sh's sanitizer build). Exits non-zero when a directory is
 * unreadable or holds no input; a failing input aborts (FUZZ_CHECK) or trips a
 * sanitizer, as under the fuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

static int run_file(const char* path)
{
    FILE* f = fopen(path, "rb");
    uint8_t* buf;
    long len;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (f) fclose(f);
        return -1;
    }
    /* An exact-size copy, so that ASan sees a read one past the input. */
    buf = (uint8_t*)malloc(len ? (size_t)len : 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    printf("replay: %s (%ld bytes)\n", path, len);
    fflush(stdout);
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    return 1;
}

int main(int argc, char** argv)
{
    int i, count = 0;
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            struct dirent** names;
            int k, m = scandir(argv[i], &names, NULL, alphasort);
            if (m < 0) {
                fprintf(stderr, "replay: cannot list %s\n", argv[i]);
                return 1;
            }
            for (k = 0; k < m; ++k) {
                char path[4096];
                if (names[k]->d_name[0] != '.') {
                    snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
                    if (run_file(path) < 0) return 1;
                    count++;
                }
                free(names[k]);
            }
            free(names);
        } else {
            if (run_file(argv[i]) < 0) return 1;
            count++;
        }
    }
    if (count == 0) {
        fprintf(stderr, "replay: no input\n");
        return 1;
    }
    printf("replay: %d inputs, no failure\n", count);
    return 0;
}
