/* ghz/tools/bench/main.cu: ghz-bench SUBCOMMAND [options]; each subcommand is a
 * benchmark program of its own (bench_<name>.cu). */
#include <cstdio>
#include <cstring>

int bench_codec(int argc, char** argv);
int bench_fixed(int argc, char** argv);
int bench_homo(int argc, char** argv);
#ifdef GHZ_BENCH_HAVE_COLL
int bench_reduce(int argc, char** argv);
#endif

int main(int argc, char** argv)
{
    if (argc >= 2 && strcmp(argv[1], "codec") == 0) return bench_codec(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "fixed") == 0) return bench_fixed(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "homo") == 0) return bench_homo(argc, argv);
#ifdef GHZ_BENCH_HAVE_COLL
    if (argc >= 2 && strcmp(argv[1], "reduce") == 0) return bench_reduce(argc, argv);
    printf("usage: ghz-bench codec|fixed|homo|reduce [options]   (ghz-bench SUBCOMMAND --help)\n");
#else
    printf("usage: ghz-bench codec|fixed|homo [options]   (ghz-bench SUBCOMMAND --help)\n");
#endif
    return argc < 2 ? 0 : 2;
}
