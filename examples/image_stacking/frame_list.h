/* examples/image_stacking/frame_list.h: the frames named on the command line (files of
 * one or more frames, or generated ones), spread over the ranks, and the local sum of
 * a rank's share. */
#ifndef GHZ_EXAMPLES_FRAME_LIST_H
#define GHZ_EXAMPLES_FRAME_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "image_io.h"

typedef struct {
    int nfiles;
    char** paths;       /* the FRAME arguments (not owned) */
    img_file_t* files;  /* what each holds */
    size_t width, height;
    size_t total;       /* frames in all files, or the generated count */
    int generate;       /* nonzero: frames come from datasets/frames.c, not files */
    uint64_t seed;      /* for generated frames */
} frame_list_t;

/* Probes every file (every rank does: it only reads headers and sizes) and checks the
 * frames agree in size. width/height are the raw frames' size (0 when not given). */
int frames_open(frame_list_t* fl, int nfiles, char** paths, size_t width, size_t height,
                char err[IMG_ERR_LEN]);

/* Generated frames instead of files. */
void frames_generated(frame_list_t* fl, size_t count, size_t width, size_t height,
                      uint64_t seed);

void frames_close(frame_list_t* fl);

/* The block of frames rank `rank` of `size` stacks: [*first, *first + *count). */
void frames_share(const frame_list_t* fl, int rank, int size, size_t* first, size_t* count);

/* sum[i] = the sum over frames [first, first + count) of pixel i (accumulated in double
 * and rounded once); also the min and max pixel value seen. sum has width * height
 * elements; scratch is one frame of floats. */
int frames_sum(const frame_list_t* fl, size_t first, size_t count, float* sum, float* scratch,
               double* vmin, double* vmax, char err[IMG_ERR_LEN]);

#endif
