/* ghz/codec/codec.h: the host C API of the error-bounded codec.
 *
 * The stream format is specified in ghz/codec/FORMAT.md. Contracts common to every
 * function here:
 *  - Every function returns a ghz_status_t; on failure ghz_last_error_detail() says
 *    more, and outputs are unspecified unless stated.
 *  - Pointers are host pointers (the CUDA API is ghz/codec/codec_cuda.h).
 *  - No function keeps a pointer it was given after it returns; ghz never frees user
 *    memory. All functions are thread-safe: they share no mutable state.
 *  - Readers validate every byte they rely on before using it: a truncated, corrupted
 *    or foreign buffer yields an error, never an out-of-bounds access.
 */
#ifndef GHZ_CODEC_CODEC_H
#define GHZ_CODEC_CODEC_H

#include "ghz/types.h"
#include "ghz/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed sizes of the format (FORMAT.md). */
#define GHZ_HEADER_SIZE 64u
/* Values per block (FORMAT.md). Names in this API: a "size" or "_bytes" is bytes, an
 * "n", "count" or "_ELEMS" is values (ghz_block_size of block.h returns bytes). */
#define GHZ_BLOCK_ELEMS 32u
/* Bytes of the optional frame checksum (a CRC-32C after the payload; FORMAT.md). A
 * frame written with ghz_params_t.checksum is this much longer than without. */
#define GHZ_CHECKSUM_SIZE 4u

/* Exact worst-case compressed size of n elements of dtype (GHZ_F32 or GHZ_F64) in one
 * frame: the header, the padded code bytes and every block stored raw. Takes the same
 * arguments as ghz_compress_bound(), and is a constant expression when they are; unlike
 * the function it neither validates dtype (any other value counts as 8 bytes) nor
 * checks for overflow. A frame with a checksum needs GHZ_CHECKSUM_SIZE more bytes. */
#define GHZ_COMPRESS_BOUND(n, dtype)                                                 \
    ((size_t)GHZ_HEADER_SIZE + ((((size_t)(n) + 31u) / 32u + 15u) & ~(size_t)15u) + \
     (size_t)(n) * ((dtype) == GHZ_F32 ? (size_t)4u : (size_t)8u))

/* A value range [min, max] of the finite values that are not the fill value. An empty
 * range is {+Inf, -Inf} on the GPU (ghz_cuda_value_range), so that ranges merge by a
 * plain MIN of min and MAX of max (MPI_MIN/MPI_MAX, ncclMin/ncclMax) with no count;
 * ghz_value_range on the CPU reports an empty range as NaN. Both give the lossless
 * bound 0 under REL. */
typedef struct {
    double min;
    double max;
} ghz_range_t;

/* Compression parameters. Initialise with GHZ_PARAMS_INIT or ghz_params_init(), then
 * set fields: new fields are only ever appended, and struct_size tells the library
 * which ones the caller knows (NCCL's config idiom), so old binaries keep working. */
typedef struct {
    size_t struct_size;    /* sizeof(ghz_params_t) as the caller compiled it */
    ghz_dtype_t dtype;     /* GHZ_F32 or GHZ_F64 */
    ghz_eb_mode_t eb_mode; /* GHZ_EB_ABS or GHZ_EB_REL */
    double eb;             /* the bound: absolute, or the REL factor; finite, > 0 */
    int has_fill;          /* nonzero: values bit-identical to `fill` stay exact and
                              are left out of the REL range (netCDF _FillValue).
                              0: a block frame (SPEED) declares the dtype's canonical
                              quiet NaN (f32 0x7FC00000, f64 0x7FF8000000000000,
                              numpy's NaN) as its fill (FORMAT.md, NaN as the fill
                              value), so NaN-masked data needs no declaring */
    double fill;           /* the fill value, converted to dtype (bit-exact match) */
    int nthreads;          /* CPU threads (OpenMP builds): 0 = all, 1 = serial.
                              The output is the same for every value. Threads are
                              used for at least 64 Ki values each, and by
                              ghz_compress only when dst_capacity >=
                              ghz_compress_bound (each thread writes at its chunk's
                              worst-case offset, then the chunks are moved down). */
    ghz_exec_t exec;       /* the backend these parameters are for. The CPU calls
                              (ghz_compress, ghz_compress_buf) take GHZ_EXEC_CPU and
                              refuse GHZ_EXEC_CUDA with GHZ_ERR_UNSUPPORTED: they have
                              no stream and no workspace, so running them on a GPU
                              would need a hidden allocation and synchronisation. The
                              ghz_cuda_* calls (codec_cuda.h) run on the GPU for either
                              value. Choosing a backend at run time is the job of an
                              object that owns one: ghz_comm_config_t.backend, ghz-cli
                              -x. */
    int has_range;         /* REL only: nonzero = use [range_min, range_max] as the
                              value range instead of scanning the input (chunked
                              compression of one array under one bound) */
    double range_min, range_max;
    int checksum;          /* nonzero: end the frame with a CRC-32C of its bytes, which
                              every reader verifies before decoding (FORMAT.md,
                              Checksum); the frame is GHZ_CHECKSUM_SIZE bytes longer.
                              The CUDA compressor returns GHZ_ERR_UNSUPPORTED for it:
                              seal its frames with ghz_frame_add_checksum. */
    /* Appended in 0.2 (GPU calls only; the CPU calls refuse non-NULL values with
     * GHZ_ERR_UNSUPPORTED): a range or a bound that lives in device memory, read by the
     * kernels when they run, so that a range agreed across ranks on the GPU costs no
     * host round trip. */
    const ghz_range_t* d_range; /* REL: the range (device memory), instead of has_range
                                   or a scan of each chunk */
    const double* d_eb_abs;     /* ABS: the absolute bound (device memory), instead of
                                   eb (which must still be valid); a bound that is not
                                   finite and >= 0 fails on the GPU with
                                   GHZ_ERR_BAD_BOUND */
    /* Appended in 0.3: the coding (RATIO.md). */
    ghz_prefer_t prefer; /* GHZ_PREFER_SPEED (the block frames of FORMAT.md) or
                            GHZ_PREFER_RATIO (RATIO.md: predicted along dims, entropy
                            coded; the CPU call allocates scratch of 2 bytes per value
                            plus one value's size, and about 350 KB per thread,
                            and decompression 1/8 byte per value). A RATIO frame that would not be smaller than the
                            worst case, or of no value, is written as a SPEED frame. */
    size_t dims[3];      /* RATIO: the array's extents, fastest first (C order: the
                            last numpy axis first); dims[0] == 0 means one dimension
                            of n values; otherwise unused trailing extents are 0 or 1
                            and the product must equal n. Fold more dimensions into
                            dims[2]. SPEED ignores it. */
} ghz_params_t;

#define GHZ_PARAMS_INIT                                                                       \
    { sizeof(ghz_params_t), GHZ_F32, GHZ_EB_REL, 1e-4, 0, 0.0, 1, GHZ_EXEC_CPU, 0, 0.0, 0.0, 0, \
      NULL, NULL, GHZ_PREFER_SPEED, { 0, 0, 0 } }

/* Fills *p with the defaults of GHZ_PARAMS_INIT. */
GHZ_API void ghz_params_init(ghz_params_t* p);

/* What a frame header says, after validation. */
typedef struct {
    unsigned format_version;
    ghz_dtype_t dtype;
    ghz_eb_mode_t eb_mode;
    ghz_prefer_t prefer;   /* which coding wrote the frame (in 0.1's padding) */
    double eb_user;        /* the bound as the user gave it */
    double eb_abs;         /* the absolute bound every element satisfies */
    int has_fill;          /* a fill value is defined: the declared one, or the
                              canonical quiet NaN of a block frame written without one
                              (from 0.3 on; frames of 0.2 written without one have 0) */
    int has_checksum;      /* the frame ends with a CRC-32C (FORMAT.md, Checksum) */
    uint64_t fill_bits;    /* bit pattern of the fill value in dtype */
    uint64_t n;            /* elements in this frame */
    uint64_t n_blocks;
    uint64_t payload_size;
    uint64_t frame_size;   /* bytes of the whole frame: header, codes, payload and
                              checksum */
} ghz_frame_info_t;

/* Descriptor of a compressed buffer, shared by the codec, ghz/homo and ghz/coll, on
 * the CPU and the GPU. `data` holds the valid bytes of one or more frames within
 * `capacity`; `where` and `device` say whose memory it is. How many bytes are valid:
 *  - d_size == NULL: `size`, known to the host;
 *  - d_size != NULL (where == GHZ_MEM_DEVICE only): *d_size, a uint64_t in device
 *    memory, for a frame whose size only the GPU knows. A GPU call that writes the
 *    buffer stores the size there (in stream order) and leaves `size` alone; a GPU call
 *    that reads it takes min(*d_size, capacity) when its kernels run.
 * Initialise with GHZ_BUF_INIT; fields are only appended (struct_size as in
 * ghz_params_t). ghz never frees `data` or `d_size`. */
typedef struct {
    size_t struct_size;
    void* data;
    size_t size;
    size_t capacity;
    ghz_mem_t where;
    int device;            /* CUDA device ordinal when where == GHZ_MEM_DEVICE */
    uint64_t* d_size;      /* appended in 0.2: where the size lives, see above */
} ghz_buf_t;

#define GHZ_BUF_INIT { sizeof(ghz_buf_t), NULL, 0, 0, GHZ_MEM_HOST, 0, NULL }
/* Bytes of the fields of version 1 of ghz_buf_t: the least struct_size accepted. */
#define GHZ_BUF_V1_SIZE (offsetof(ghz_buf_t, device) + sizeof(int))
/* ... and of version 2 (d_size): a smaller struct_size means d_size == NULL. */
#define GHZ_BUF_V2_SIZE (offsetof(ghz_buf_t, d_size) + sizeof(uint64_t*))

/* The reader limit (zstd's window limit, for ghz): the largest frame, in decoded
 * bytes (n times the element size), that a reader accepts unless told otherwise.
 * Readers that size their memory from frame headers (ghz_frame_header,
 * ghz_decompress_ex, ghz-cli) check it before they allocate or buffer anything, so
 * a header announcing 2^34 values, or a small valid frame of constant blocks that
 * decodes to gigabytes, is refused with GHZ_ERR_LIMIT instead of exhausting memory.
 * 1 GiB: twice the largest frame ghz-cli writes by default (2^26 f64 values). */
#define GHZ_FRAME_LIMIT_DEFAULT ((uint64_t)1 << 30)

/* Decompression options. Initialise with GHZ_DPARAMS_INIT or ghz_dparams_init();
 * fields are only appended (struct_size as in ghz_params_t). */
typedef struct {
    size_t struct_size;       /* sizeof(ghz_dparams_t) as the caller compiled it */
    int nthreads;             /* CPU threads (OpenMP builds): 0 = all, 1 = serial */
    uint64_t max_frame_bytes; /* largest frame accepted, in decoded bytes (n times
                                 the element size); 0 = no limit. Default
                                 GHZ_FRAME_LIMIT_DEFAULT */
} ghz_dparams_t;

#define GHZ_DPARAMS_INIT { sizeof(ghz_dparams_t), 1, GHZ_FRAME_LIMIT_DEFAULT }

/* Fills *d with the defaults of GHZ_DPARAMS_INIT. */
GHZ_API void ghz_dparams_init(ghz_dparams_t* d);

/* Runtime versions: GHZ_VERSION_NUMBER and GHZ_FORMAT_VERSION of the library linked. */
GHZ_API unsigned ghz_version_number(void);
GHZ_API unsigned ghz_format_version(void);

/* Exact worst-case size of one frame of n elements of dtype; 0 for a bad dtype or
 * when the size does not fit in size_t. */
GHZ_API size_t ghz_compress_bound(size_t n, ghz_dtype_t dtype);

/* Compresses n elements at src (any alignment) into one frame at dst.
 * @param p         parameters; p->exec must be GHZ_EXEC_CPU here
 * @param src       n values of p->dtype (host)
 * @param dst       output; dst_capacity >= ghz_compress_bound() always suffices
 * @param dst_size  receives the frame's size
 * @return GHZ_ERR_BAD_BOUND for eb <= 0 / NaN / Inf, GHZ_ERR_DST_TOO_SMALL when the
 *         frame does not fit (dst is then clobbered), GHZ_ERR_INVALID_ARG otherwise.
 * n = 0 gives a valid empty frame. NaN, Inf and unquantizable values survive exactly.
 * Cost: one pass over src, plus one for the value range under REL unless p->has_range
 * gives it; p->nthreads threads (OpenMP builds); no allocation. With p->prefer ==
 * GHZ_PREFER_RATIO: a few passes per level of the array, each on p->nthreads threads
 * (the same bytes on any number), and scratch (ghz_params_t.prefer). */
GHZ_API ghz_status_t ghz_compress(const ghz_params_t* p, const void* src, size_t n,
                                  void* dst, size_t dst_capacity, size_t* dst_size);

/* Parses and validates the header of the frame at the start of src (header fields
 * and frame size against src_size; not the code bytes, payload or checksum). */
GHZ_API ghz_status_t ghz_frame_info(const void* src, size_t src_size,
                                    ghz_frame_info_t* info);

/* Parses and validates the 64 header bytes at src, for readers that see a frame's
 * header before the rest of it (streams, files): src_size >= GHZ_HEADER_SIZE is
 * enough, and the frame may go on past src_size. info->frame_size says how many bytes
 * the whole frame takes, info->n how many values it decodes to. A frame of more than
 * d->max_frame_bytes decoded bytes is refused with GHZ_ERR_LIMIT (d NULL: the
 * defaults of GHZ_DPARAMS_INIT), so a reader can check the announced size before it
 * allocates or reads the rest. The code bytes, payload and checksum are checked by
 * the decoder, not here. */
GHZ_API ghz_status_t ghz_frame_header(const ghz_dparams_t* d, const void* src, size_t src_size,
                                      ghz_frame_info_t* info);

/* The array shape a frame was written with, fastest first: a ratio frame's extents
 * (RATIO.md; unused ones are 1), or {n, 1, 1} for a block frame. Validates the header
 * and, for a ratio frame, its section. */
GHZ_API ghz_status_t ghz_frame_shape(const void* src, size_t src_size, uint64_t dims[3]);

/* One frame of a stream, as ghz_stream_index lists it. */
typedef struct {
    uint64_t offset; /* byte offset of the frame in the stream */
    uint64_t first;  /* index, in the stream's values, of the frame's first value */
    uint64_t n;      /* values in the frame */
    uint64_t size;   /* bytes of the frame */
} ghz_frame_entry_t;

/* An index of the frames of a stream, for reading ranges of values from a stream
 * written chunk by chunk (frames concatenate: compress each chunk as one frame, under
 * REL with has_range and one range for all chunks, and append). Reads the headers
 * only; validates them as ghz_stream_info does. *n_frames receives the number of
 * frames; entries (may be NULL) receives the first `capacity` of them. */
GHZ_API ghz_status_t ghz_stream_index(const void* src, size_t src_size, ghz_frame_entry_t* entries,
                                      size_t capacity, size_t* n_frames);

/* Decompresses values [first, first + count) of the stream src into dst (room for
 * dst_capacity bytes), decoding only the frames that hold them, each validated as by
 * ghz_decompress_ex (d NULL: the defaults, so the reader limit applies per frame).
 * Frames whose values lie wholly in the range decode straight into dst; the one or
 * two frames cut by the range decode into a scratch allocation of one frame.
 * GHZ_ERR_INVALID_ARG when the range passes the end of the stream. */
GHZ_API ghz_status_t ghz_decompress_range(const ghz_dparams_t* d, const void* src, size_t src_size,
                                          uint64_t first, uint64_t count, void* dst,
                                          size_t dst_capacity);

/* Walks all frames of a stream, validating headers and sizes (reads the headers only:
 * cost proportional to the frame count): total element count,
 * frame count and the common dtype. Fails with GHZ_ERR_CORRUPT when frames mix
 * dtypes or trailing bytes do not form a frame. */
GHZ_API ghz_status_t ghz_stream_info(const void* src, size_t src_size, uint64_t* n_total,
                                     uint64_t* n_frames, ghz_dtype_t* dtype);

/* Decompresses every frame of the stream src[0..src_size) into dst, one after the
 * other, after validating each frame completely (header, checksum when the frame has
 * one, codes, sizes). A checksum that does not match gives GHZ_ERR_CORRUPT with the
 * detail "checksum mismatch ...", before any value is decoded. Cost: per frame, one
 * pass over its code bytes to validate them, one over the checksummed bytes when it
 * has a checksum, then the decode: one read of the frame and one write of the values;
 * no allocation on one thread (threads allocate one offset per chunk of blocks); a
 * ratio frame (RATIO.md) is decoded with n/8 bytes and one chunk's worth of scratch
 * (threads of ghz_decompress_mt and ghz_decompress_ex: the chunks of each pass shared
 * out, and room for the places of their outliers).
 * @param dst_capacity  bytes available at dst
 * @param n_out         receives the number of elements written (may be NULL)
 * The element type is the stream's (ghz_stream_info tells it beforehand). */
GHZ_API ghz_status_t ghz_decompress(const void* src, size_t src_size, void* dst,
                                    size_t dst_capacity, size_t* n_out);

/* ghz_decompress on nthreads CPU threads (OpenMP builds; 0 = all): same output. */
GHZ_API ghz_status_t ghz_decompress_mt(const void* src, size_t src_size, void* dst,
                                       size_t dst_capacity, size_t* n_out, int nthreads);

/* ghz_decompress with options (d NULL: GHZ_DPARAMS_INIT): d->nthreads threads, and
 * every frame's header checked against d->max_frame_bytes before the frame is
 * decoded (GHZ_ERR_LIMIT; the frames before it are decoded). ghz_decompress and
 * ghz_decompress_mt set no limit: they write only into memory the caller sized. */
GHZ_API ghz_status_t ghz_decompress_ex(const ghz_dparams_t* d, const void* src, size_t src_size,
                                       void* dst, size_t dst_capacity, size_t* n_out);

/* Adds a checksum to the single frame frame[0..frame_size) that has none (e.g. one
 * the CUDA compressor wrote): validates its header, sets the checksum flag and writes
 * the CRC-32C after the payload. capacity >= frame_size + GHZ_CHECKSUM_SIZE;
 * *new_size receives the frame's new size. GHZ_ERR_INVALID_ARG when the frame already
 * has a checksum or frame_size is not exactly one frame. Cost: one pass over the frame. */
GHZ_API ghz_status_t ghz_frame_add_checksum(void* frame, size_t frame_size, size_t capacity,
                                            size_t* new_size);

/* ghz_buf_t forms of the two calls above (host buffers only in this build):
 * compress sets out->size, decompress reads in->data[0..in->size). */
GHZ_API ghz_status_t ghz_compress_buf(const ghz_params_t* p, const void* src, size_t n,
                                      ghz_buf_t* out);
GHZ_API ghz_status_t ghz_decompress_buf(const ghz_buf_t* in, void* dst,
                                        size_t dst_capacity, size_t* n_out);

/* Minimum and maximum over the finite values of src that are not the fill value
 * (p->dtype, p->has_fill and p->fill are used). *count receives how many values
 * took part (may be NULL); when it is 0, *vmin and *vmax are NaN. With these a caller
 * compresses one array as many frames under one REL bound: merge the ranges of all
 * chunks, then compress each chunk with has_range = 1 and the merged range. Cost: one
 * pass over src (p->nthreads threads); no allocation. */
GHZ_API ghz_status_t ghz_value_range(const ghz_params_t* p, const void* src, size_t n,
                                     double* vmin, double* vmax, uint64_t* count);

/* The absolute bound E that every element will satisfy under p for data whose
 * finite non-fill range is [vmin, vmax] (FORMAT.md, Quantization): p->eb for ABS;
 * for REL, rel * (vmax - vmin) rounded down, and 0 (lossless) for an empty or
 * zero range. */
GHZ_API ghz_status_t ghz_abs_bound(const ghz_params_t* p, double vmin, double vmax,
                                   double* eb_abs);

/* Asks the system to back the whole 2 MiB pages within [p, p + bytes) with huge pages
 * (Linux's transparent huge pages where they are left to madvise, as Debian leaves
 * them; nothing elsewhere). The first touch of that memory then costs a page fault per
 * 2 MiB instead of one per 4 KiB: a short run that writes a large buffer once (a
 * decompressed array, the file it compresses) spends about as long in those faults as
 * in the coding. Memory from aligned_alloc(2 MiB, a multiple of 2 MiB) is covered
 * whole. A hint: nothing fails or changes without it. */
GHZ_API void ghz_huge_pages(void* p, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
