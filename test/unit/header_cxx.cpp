// test/unit/header_cxx.cpp: the public headers compile as C++11 (-pedantic -Wall
// -Wextra -Werror) with C linkage, and the initialiser macros work in C++.
#include "ghz/ghz.h"
#include "ghz/codec/block.h"
#include "ghz/codec/fixed.h"

#include <cstdio>
#include <vector>

static_assert(GHZ_COMPRESS_BOUND(100, GHZ_F64) == 64 + 16 + 800, "GHZ_COMPRESS_BOUND");

int main()
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_buf_t b = GHZ_BUF_INIT;
    std::vector<double> in(1000), out(1000);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i % 37) * 0.5;
    p.dtype = GHZ_F64;
    p.eb_mode = GHZ_EB_REL;
    p.eb = 1e-3;
    std::vector<unsigned char> buf(ghz_compress_bound(in.size(), GHZ_F64));
    b.data = buf.data();
    b.capacity = buf.size();
    ghz_status_t st = ghz_compress_buf(&p, in.data(), in.size(), &b);
    if (st != GHZ_SUCCESS) {
        std::fprintf(stderr, "compress: %s\n", ghz_status_string(st));
        return 1;
    }
    std::size_t n_out = 0;
    st = ghz_decompress_buf(&b, out.data(), out.size() * sizeof(double), &n_out);
    if (st != GHZ_SUCCESS || n_out != in.size()) return 1;
    ghz_frame_info_t fi;
    if (ghz_frame_info(b.data, b.size, &fi) != GHZ_SUCCESS) return 1;
    for (std::size_t i = 0; i < in.size(); ++i) {
        double d = in[i] - out[i];
        if (d > fi.eb_abs || -d > fi.eb_abs) return 1;
    }
    ghz_quantizer_t z = ghz_quantizer_make(0.5, 0);
    int32_t q = 0;
    if (!ghz_quantize(&z, 3.0, &q) || q != 3) return 1;
    return ghz_format_version() == GHZ_FORMAT_VERSION ? 0 : 1;
}
