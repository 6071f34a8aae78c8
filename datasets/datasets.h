/* datasets/datasets.h: deterministic generators of realistic float fields, and a
 * raw-file loader, for the ghz tests, the demo and the benchmarks.
 *
 * Plain C11 (C++ compatible header), no dependency beyond libc and libm. Public
 * symbols are prefixed ghz_ds_ / GHZ_DS_. Every function is thread-safe (no global
 * mutable state) and single-threaded.
 *
 * Fields (datasets/README.md has the details):
 *   wave3d    3-D acoustic wave snapshot from a finite-difference time-domain run in
 *             a layered velocity model with a salt body (default 128 x 128 x 128)
 *   smooth2d  smooth multi-scale 2-D field, temperature-like, in kelvin
 *             (default 2048 x 1024)
 *   noisy2d   smooth2d plus seeded white noise of 2% of its range (default 2048 x 1024)
 *   ocean2d   sea-surface-temperature-like field in deg C with about 30% land set to
 *             GHZ_DS_OCEAN_FILL (default 1440 x 720)
 *   frames    a stack of nz astronomical frames of one scene with per-frame noise,
 *             jitter and hot pixels (default 512 x 512 x 16; ghz_ds_frame below)
 *
 * Layout: nx * ny * nz values, x fastest: value (i, j, k) is at i + nx * (j + ny * k).
 * The 2-D fields accept nz > 1 and then produce nz correlated slices (a slow time
 * evolution: drifting features, the same land mask in every slice).
 *
 * Determinism: the output depends only on (name, nx, ny, nz, seed). The generators
 * use their own PRNG (splitmix64) and their own exp/sin/cos/log built from + - * /
 * (no libm function other than the correctly rounded sqrt and the exact floor, ceil,
 * fabs, frexp and ldexp), so on any IEEE-754 platform with FLT_EVAL_METHOD == 0 the
 * output is bit-identical, as long as datasets.c is compiled without floating-point
 * contraction or fast math: datasets/CMakeLists.txt passes -ffp-contract=off
 * -fno-fast-math, GCC does not contract in ISO C mode anyway, and datasets.c sets
 * "#pragma STDC FP_CONTRACT OFF" for Clang. Tests should still rely only on
 * properties of the data, not on golden hashes of it.
 */
#ifndef GHZ_DATASETS_DATASETS_H
#define GHZ_DATASETS_DATASETS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The land value of ocean2d (netCDF's customary _FillValue). In f64 output the land
 * value is this float widened, GHZ_DS_OCEAN_FILL_F64 = -9.999999790214768e33 (not the
 * double -1e34), so that ghz_params_t.fill = GHZ_DS_OCEAN_FILL matches bit for bit in
 * both dtypes. */
#define GHZ_DS_OCEAN_FILL (-1e34f)
#define GHZ_DS_OCEAN_FILL_F64 ((double)GHZ_DS_OCEAN_FILL)

/* Return codes: 0 on success, one of these (negative) on failure. */
#define GHZ_DS_OK 0
#define GHZ_DS_ERR_ARG (-1)     /* NULL pointer or invalid argument */
#define GHZ_DS_ERR_NAME (-2)    /* unknown field name */
#define GHZ_DS_ERR_DIMS (-3)    /* nx * ny * nz (in bytes) overflows size_t */
#define GHZ_DS_ERR_NOMEM (-4)   /* out of memory */
#define GHZ_DS_ERR_OPEN (-5)    /* the file could not be opened */
#define GHZ_DS_ERR_READ (-6)    /* read error */
#define GHZ_DS_ERR_WRITE (-7)   /* write or close error (disk full, ...) */
#define GHZ_DS_ERR_SIZE (-8)    /* file size not a multiple of elem_size */
#define GHZ_DS_ERR_TOO_BIG (-9) /* the file does not fit in memory (size_t) */

/* A static English string for a code above ("unknown error" for others). */
const char* ghz_ds_strerror(int code);

/* The field names, in a fixed order, as a NULL-terminated array of static strings:
 * "wave3d", "smooth2d", "noisy2d", "ocean2d", "frames". */
const char* const* ghz_ds_names(void);

/* A one-line static description of the field, or NULL for an unknown name. */
const char* ghz_ds_description(const char* name);

/* The default dimensions of the field: dims[0] = nx, dims[1] = ny, dims[2] = nz
 * (1 for the 2-D fields; never 0). Returns 0, GHZ_DS_ERR_NAME or GHZ_DS_ERR_ARG. */
int ghz_ds_default_dims(const char* name, size_t dims[3]);

/* Fills out[0 .. nx*ny*nz) with the field `name` (x fastest).
 * Any dimensions >= 1 work (wave3d with nz = 1 runs a 2-D simulation, with ny = nz = 1
 * a 1-D one); a zero dimension gives an empty array and returns 0 (out may then be
 * NULL). Cost: the 2-D fields are O(n); wave3d is O(n * max(nx, ny, nz)) time (its
 * number of time steps grows with the domain) and uses about 3 floats per cell of
 * the domain plus an absorbing border of 12 cells: 128^3 (441 time steps) takes 3-5 s
 * on one core at -O2 (50 MB), 256^3 (768 steps) about 40 s (320 MB).
 * Returns 0, GHZ_DS_ERR_NAME, GHZ_DS_ERR_ARG (out NULL), GHZ_DS_ERR_DIMS or
 * GHZ_DS_ERR_NOMEM. */
int ghz_ds_generate(const char* name, size_t nx, size_t ny, size_t nz, uint64_t seed,
                    float* out);

/* The same field in double precision. The 2-D fields are computed in double
 * natively (ghz_ds_generate's output is exactly this output rounded to float;
 * ocean2d's land is GHZ_DS_OCEAN_FILL_F64). wave3d is simulated in float and only
 * its final normalisation is done in double, so its f64 values carry no more physical
 * precision than the f32 ones (their low bits are not zero, though). */
int ghz_ds_generate_f64(const char* name, size_t nx, size_t ny, size_t nz, uint64_t seed,
                        double* out);

/* Reads the whole file at path as a raw array of little-endian elements of elem_size
 * bytes (byte-swapped on a big-endian host when elem_size is 2, 4 or 8).
 * On success *out is a malloc'd buffer the caller frees (never NULL, even for an
 * empty file) and *n the number of elements. On failure *out is NULL and *n is 0.
 * Returns 0, GHZ_DS_ERR_ARG (NULL argument or elem_size 0), GHZ_DS_ERR_OPEN,
 * GHZ_DS_ERR_READ, GHZ_DS_ERR_SIZE, GHZ_DS_ERR_TOO_BIG or GHZ_DS_ERR_NOMEM. */
int ghz_ds_load_raw(const char* path, size_t elem_size, void** out, size_t* n);

/* Writes bytes bytes of data to path (created or truncated), as they are in memory:
 * little-endian on every little-endian host (x86-64, aarch64). data may be NULL when
 * bytes is 0. Returns 0, GHZ_DS_ERR_ARG, GHZ_DS_ERR_OPEN or GHZ_DS_ERR_WRITE. */
int ghz_ds_save_raw(const char* path, const void* data, size_t bytes);

/* ---- astronomical frame stacks (datasets/frames.c; README.md, "Frame stacks") ----
 *
 * One fixed scene seen through a telescope, frame after frame: stars as Moffat PSF
 * blobs of power-law brightness, faint small galaxies and one large spiral galaxy, on
 * a sky background with a gradient. Each frame shifts the whole scene by a sub-pixel
 * jitter, varies the transparency a little, adds photon noise (Poisson below 30 e-,
 * Gaussian-like above), read noise, fixed hot pixels of the sensor and a few cosmic-ray
 * hits, and is read out as whole ADU clipped to [0, saturation]. Values are floats
 * holding integers. Deterministic in (width, height, seed, params, frame index). */

/* The scene and noise parameters; ghz_ds_frames_params_init fills the defaults. */
typedef struct {
    double sky;          /* mean sky level, e- per pixel (default 300) */
    double sky_gradient; /* sky change from one edge to the opposite one, as a fraction of
                            sky, along a seeded direction (default 0.3) */
    double read_noise;   /* read noise, e- rms (default 5) */
    double gain;         /* e- per ADU, > 0 (default 1) */
    double saturation;   /* full well in ADU: pixels clip there; 0 = no clipping
                            (default 65535) */
    double fwhm;         /* PSF full width at half maximum, pixels, > 0 (default 3) */
    double jitter;       /* each frame's shift is uniform in [-jitter, jitter] pixels on
                            each axis (default 0.5) */
    double transparency; /* each frame's throughput is 1 + uniform(-t, t) (default 0.02) */
    long stars;          /* number of stars; < 0: one per 1500 pixels (default -1) */
    long hot_pixels;     /* fixed hot pixels; < 0: one per 40000 pixels, at least 3 */
    long cosmic_rays;    /* hits per frame; < 0: one per 100000 pixels, at least 1 */
    long galaxies;       /* small faint background galaxies; < 0: one per 20000 pixels
                            plus 2 (default -1) */
    int spiral;          /* nonzero: a large spiral galaxy near the centre (default 1) */
} ghz_ds_frames_params_t;

void ghz_ds_frames_params_init(ghz_ds_frames_params_t* p);

/* The noise-free scene in ADU (sky plus sources shifted by (dx, dy) pixels, no
 * transparency change, hot pixels, noise, rounding or clipping): what the frames
 * scatter around. params may be NULL (defaults). Returns 0, GHZ_DS_ERR_ARG (out NULL,
 * a bad parameter), GHZ_DS_ERR_DIMS or GHZ_DS_ERR_NOMEM. */
int ghz_ds_frames_scene(size_t width, size_t height, uint64_t seed,
                        const ghz_ds_frames_params_t* params, double dx, double dy,
                        float* out);

/* Frame number `index` of the stack (any index; frames are independent, so ranks can
 * generate their own). Returns as ghz_ds_frames_scene. */
int ghz_ds_frame(size_t width, size_t height, uint64_t seed,
                 const ghz_ds_frames_params_t* params, uint64_t index, float* out);

/* The same noise, jitter and sensor applied to a given scene (a real image, in e-
 * per pixel, width x height, x fastest), shifted by bilinear interpolation; the scene
 * parameters (sky, stars, galaxy, fwhm) are not used. out must not overlap scene. */
int ghz_ds_frame_from_scene(const float* scene, size_t width, size_t height,
                            uint64_t seed, const ghz_ds_frames_params_t* params,
                            uint64_t index, float* out);

/* The shift of frame `index`, in pixels (the scene point at (x, y) lands at
 * (x + dx, y + dy)). Returns 0 or GHZ_DS_ERR_ARG. */
int ghz_ds_frame_jitter(uint64_t seed, const ghz_ds_frames_params_t* params, uint64_t index,
                        double* dx, double* dy);

#ifdef __cplusplus
}
#endif
#endif
