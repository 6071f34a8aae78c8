/* examples/image_stacking/frame_list.c: which frames exist, which rank stacks which,
 * and a rank's local sum (frame_list.h). */
#include "frame_list.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"

int frames_open(frame_list_t* fl, int nfiles, char** paths, size_t width, size_t height,
                char err[IMG_ERR_LEN])
{
    memset(fl, 0, sizeof *fl);
    fl->nfiles = nfiles;
    fl->paths = paths;
    fl->files = calloc((size_t)nfiles + 1, sizeof *fl->files);
    if (!fl->files) {
        snprintf(err, IMG_ERR_LEN, "out of memory");
        return -1;
    }
    for (int f = 0; f < nfiles; f++) {
        if (img_probe(paths[f], width, height, &fl->files[f], err) != 0)
            return -1;
        if (f == 0) {
            fl->width = fl->files[f].width;
            fl->height = fl->files[f].height;
        } else if (fl->files[f].width != fl->width || fl->files[f].height != fl->height) {
            snprintf(err, IMG_ERR_LEN, "%s is %zu x %zu, %s is %zu x %zu", paths[f],
                     fl->files[f].width, fl->files[f].height, paths[0], fl->width,
                     fl->height);
            return -1;
        }
        fl->total += fl->files[f].frames;
    }
    return 0;
}

void frames_generated(frame_list_t* fl, size_t count, size_t width, size_t height,
                      uint64_t seed)
{
    memset(fl, 0, sizeof *fl);
    fl->generate = 1;
    fl->total = count;
    fl->width = width;
    fl->height = height;
    fl->seed = seed;
}

void frames_close(frame_list_t* fl)
{
    free(fl->files);
    memset(fl, 0, sizeof *fl);
}

void frames_share(const frame_list_t* fl, int rank, int size, size_t* first, size_t* count)
{
    /* contiguous blocks whose sizes differ by at most one */
    size_t r = (size_t)rank, p = (size_t)size;
    size_t lo = fl->total * r / p, hi = fl->total * (r + 1) / p;
    *first = lo;
    *count = hi - lo;
}

/* Frame k of the list: the file that holds it and its index there. */
static int locate(const frame_list_t* fl, size_t k, int* file, size_t* index)
{
    for (int f = 0; f < fl->nfiles; f++) {
        if (k < fl->files[f].frames) {
            *file = f;
            *index = k;
            return 0;
        }
        k -= fl->files[f].frames;
    }
    return -1;
}

int frames_sum(const frame_list_t* fl, size_t first, size_t count, float* sum, float* scratch,
               double* vmin, double* vmax, char err[IMG_ERR_LEN])
{
    const size_t n = fl->width * fl->height;
    double* acc = calloc(n ? n : 1, sizeof *acc);
    if (!acc) {
        snprintf(err, IMG_ERR_LEN, "out of memory (%zu pixels)", n);
        return -1;
    }
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    int rc = 0;
    for (size_t k = first; k < first + count && rc == 0; k++) {
        if (fl->generate) {
            int g = ghz_ds_frame(fl->width, fl->height, fl->seed, NULL, (uint64_t)k, scratch);
            if (g != 0) {
                snprintf(err, IMG_ERR_LEN, "generating frame %zu: %s", k, ghz_ds_strerror(g));
                rc = -1;
            }
        } else {
            int f;
            size_t index;
            if (locate(fl, k, &f, &index) != 0) {
                snprintf(err, IMG_ERR_LEN, "no frame %zu", k);
                rc = -1;
            } else {
                rc = img_read_frame(fl->paths[f], &fl->files[f], index, scratch, err);
            }
        }
        for (size_t i = 0; rc == 0 && i < n; i++) {
            double v = scratch[i];
            if (!isfinite(v)) {
                snprintf(err, IMG_ERR_LEN, "frame %zu: pixel %zu is not finite", k, i);
                rc = -1;
                break;
            }
            acc[i] += v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    for (size_t i = 0; i < n; i++)
        sum[i] = (float)acc[i];
    free(acc);
    *vmin = lo;
    *vmax = hi;
    return rc;
}
