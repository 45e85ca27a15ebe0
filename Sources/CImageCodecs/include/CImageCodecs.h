#ifndef MDOC_CIMAGECODECS_H
#define MDOC_CIMAGECODECS_H
/* libjpeg and libpng behind a small C shim (libjpeg's default error handler calls exit(),
   and Swift cannot setjmp, so decoding and encoding run here). Imported only by MdocImaging.

   Every function returns an mdoc_codec_code and fills an mdoc_codec_status with the code and
   the library's own message. No function exits, aborts, or leaks on an error path: libjpeg
   errors longjmp back to the function that called into libjpeg, which destroys its objects;
   libpng's simplified API does the same internally and we always call png_image_free.

   The shim trusts nothing in the input bytes. It does trust its caller for buffer sizes:
   every output buffer is passed with its capacity and checked against the decoded size. */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/** Outcome of a shim call. Stable numbers: MdocImaging maps them to ImageError codes. */
typedef enum {
    MDOC_CODEC_OK = 0,
    /** The data violates the format (bad marker, bad Huffman code, bad chunk CRC, ...). */
    MDOC_CODEC_CORRUPT = 1,
    /** The data ends early (libjpeg "Premature end of JPEG file", libpng "read beyond end of data"). */
    MDOC_CODEC_TRUNCATED = 2,
    /** Well-formed but not supported by this build (12-bit or lossless JPEG, ...). */
    MDOC_CODEC_UNSUPPORTED = 3,
    /** Dimensions the library refuses (over JPEG_MAX_DIMENSION) or memory it could not get. */
    MDOC_CODEC_TOO_LARGE = 4,
    /** The caller passed a buffer too small or an out-of-range parameter. */
    MDOC_CODEC_BAD_ARGUMENT = 5,
    /** The encoder failed. */
    MDOC_CODEC_ENCODE_FAILED = 6,
} mdoc_codec_code;

/** The code and the library's message (NUL-terminated, possibly empty). */
typedef struct {
    int32_t code;
    char message[200];
} mdoc_codec_status;

/** Colour spaces as stored in the file. */
typedef enum {
    MDOC_CS_UNKNOWN = 0,
    MDOC_CS_GRAY = 1,
    MDOC_CS_RGB = 2,
    MDOC_CS_YCBCR = 3,
    MDOC_CS_CMYK = 4,
    MDOC_CS_YCCK = 5,
} mdoc_color_space;

/** What a JPEG header declares (SOF and the markers before the first SOS). */
typedef struct {
    uint32_t width;
    uint32_t height;
    /** Output size for the scale 1/scale_denom asked of mdoc_jpeg_probe (0 when not computed). */
    uint32_t scaled_width;
    uint32_t scaled_height;
    int32_t components;
    int32_t color_space;   /* mdoc_color_space */
    int32_t precision;
    int32_t progressive;
    int32_t arithmetic;
    int32_t adobe_marker;  /* an Adobe APP14 marker was seen: CMYK samples are stored inverted */
    /* The libjpeg quality (1...100) whose scaled ITU-T T.81 Annex K table K.1 best matches the
       first quantisation table, or 0 when there is none. An estimate: encoders with their own
       tables get the nearest libjpeg-equivalent quality. */
    int32_t estimated_quality;
} mdoc_jpeg_info;

/** Reads the JPEG header (no pixel decoding) and the output size at 1/scale_denom
    (scale_denom 1, 2, 4 or 8). On MDOC_CODEC_UNSUPPORTED for precision, width, height and
    precision are still filled in. */
int32_t mdoc_jpeg_probe(const uint8_t *data, size_t length, int32_t scale_denom,
                        mdoc_jpeg_info *info, mdoc_codec_status *status);

/** Decodes a JPEG at 1/scale_denom into `out` (out_components 1 = 8-bit grey, 3 = RGB,
    rows packed, no padding). CMYK and YCCK are converted to RGB (Adobe-inverted samples when
    an Adobe marker is present). Any warning that signals damaged data stops the decode:
    "Premature end of JPEG file" gives MDOC_CODEC_TRUNCATED, the "Corrupt JPEG data" family
    MDOC_CODEC_CORRUPT. `out_capacity` must hold scaled_width * scaled_height * out_components. */
int32_t mdoc_jpeg_decode(const uint8_t *data, size_t length, int32_t scale_denom,
                         int32_t out_components, uint8_t *out, size_t out_capacity,
                         uint32_t *out_width, uint32_t *out_height, mdoc_codec_status *status);

/** Encodes packed grey (components 1) or RGB (components 3) pixels as a baseline JPEG at
    `quality` (1...100) with libjpeg's default tables and 4:2:0 chroma subsampling. Only a JFIF
    APP0 marker is written: no EXIF, no GPS, no ICC. On success *out is a malloc'd buffer the
    caller releases with mdoc_codec_free. */
int32_t mdoc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                         int32_t components, int32_t quality, uint8_t **out, size_t *out_length,
                         mdoc_codec_status *status);

/** Like mdoc_jpeg_encode but progressive (jpeg_simple_progression); used to make test inputs. */
int32_t mdoc_jpeg_encode_progressive(const uint8_t *pixels, uint32_t width, uint32_t height,
                                     int32_t components, int32_t quality, uint8_t **out,
                                     size_t *out_length, mdoc_codec_status *status);

/** What a PNG header declares, as libpng's simplified API reports it. */
typedef struct {
    uint32_t width;
    uint32_t height;
    uint32_t format;            /* PNG_FORMAT_* flags */
    uint32_t colormap_entries;
    int32_t has_alpha;
    int32_t has_color;
    int32_t linear;             /* 16-bit samples */
    int32_t colormapped;
} mdoc_png_info;

/** Reads the PNG signature and IHDR (png_image_begin_read_from_memory); no pixel decoding. */
int32_t mdoc_png_probe(const uint8_t *data, size_t length, mdoc_png_info *info,
                       mdoc_codec_status *status);

/** Decodes a PNG to 8-bit grey (out_components 1) or RGB (3), compositing any alpha over
    white; 16-bit, palette, tRNS and gamma are handled by libpng's simplified API (a 16-bit
    file without colour-space chunks is taken as sRGB-encoded, PNG_IMAGE_FLAG_16BIT_sRGB).
    `out_capacity` must hold width * height * out_components. */
int32_t mdoc_png_decode(const uint8_t *data, size_t length, int32_t out_components, uint8_t *out,
                        size_t out_capacity, mdoc_codec_status *status);

/** Encodes packed grey or RGB pixels as an 8-bit PNG (png_image_write_to_memory).
    On success *out is a malloc'd buffer the caller releases with mdoc_codec_free. */
int32_t mdoc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                        int32_t components, uint8_t **out, size_t *out_length,
                        mdoc_codec_status *status);

/** Releases a buffer returned by an encoder. */
void mdoc_codec_free(void *pointer);

/** Applies an EXIF orientation (1...8, TIFF tag 0x0112) to packed pixels. `dst` must hold
    width * height * components bytes; for orientations 5...8 the result is height x width.
    Returns MDOC_CODEC_BAD_ARGUMENT for an orientation outside 1...8. */
int32_t mdoc_apply_orientation(const uint8_t *src, uint32_t width, uint32_t height,
                               int32_t components, int32_t orientation, uint8_t *dst,
                               size_t dst_capacity);

/** Box-downscales packed pixels by an integer factor (2, 4, 8): each output sample is the
    rounded mean of the factor x factor block (partial blocks at the right and bottom edges are
    averaged over the samples present). Output size is ceil(width / factor) x ceil(height / factor). */
int32_t mdoc_box_downscale(const uint8_t *src, uint32_t width, uint32_t height,
                           int32_t components, int32_t factor, uint8_t *dst, size_t dst_capacity);

#endif
