/* test/unit/header_cuda_c99.c: the public C headers of the CUDA API (codec_cuda.h,
 * fixed_cuda.h, homo_cuda.h) compile as strict C99 (-std=c99 -pedantic -Wall -Wextra
 * -Werror) without GHZ_ADVANCED, and their initialisers work from C. Built in CUDA
 * builds only; running it needs no GPU (it calls nothing that touches one). */
#include "ghz/codec/codec_cuda.h"
#include "ghz/codec/fixed_cuda.h"
#include "ghz/homo/homo_cuda.h"

int main(void)
{
    ghz_cuda_ctx_config_t cfg = GHZ_CUDA_CTX_CONFIG_INIT;
    ghz_buf_t b = GHZ_BUF_INIT;
    ghz_params_t p = GHZ_PARAMS_INIT;
    size_t bytes = 0, n = 1000;
    /* the stable tier's macros, as constant expressions */
    static unsigned char frame[GHZ_COMPRESS_BOUND(40, GHZ_F32)];
    static unsigned char fixed[GHZ_FIXED_SIZE(40, 16)];
    if (cfg.struct_size != sizeof cfg || cfg.device != -1 || b.d_size != NULL || p.d_range != NULL ||
        p.d_eb_abs != NULL || sizeof frame != 64 + 16 + 160 || sizeof fixed != ghz_fixed_size(40, 16))
        return 1;
    /* a size query touches no device */
    if (ghz_cuda_compress_workspace(1, &n, &bytes) != GHZ_SUCCESS || bytes == 0) return 1;
    return 0;
}
