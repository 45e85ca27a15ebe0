/* libjpeg-turbo and libpng16 behind a setjmp-safe shim. See include/CImageCodecs.h. */
#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

/* MARK: status helpers */

static void set_status(mdoc_codec_status *status, int32_t code, const char *message) {
    if (status == NULL) return;
    status->code = code;
    if (message == NULL) message = "";
    size_t n = strlen(message);
    if (n >= sizeof status->message) n = sizeof status->message - 1;
    memcpy(status->message, message, n);
    status->message[n] = '\0';
}

/* a * b * c into *result, 0 on overflow. */
static int checked_size(size_t a, size_t b, size_t c, size_t *result) {
    if (a != 0 && b > SIZE_MAX / a) return 0;
    size_t ab = a * b;
    if (ab != 0 && c > SIZE_MAX / ab) return 0;
    *result = ab * c;
    return 1;
}

/* MARK: libjpeg error manager */

/* error_exit and damaging warnings longjmp back to the shim function that called libjpeg. */
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int32_t code;                     /* mdoc_codec_code to report after the longjmp */
    char message[JMSG_LENGTH_MAX];
} mdoc_jpeg_error;

static int32_t classify_jpeg_error(int msg_code) {
    switch (msg_code) {
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL:
    case JERR_ARITH_NOTIMPL:
    case JERR_CCIR601_NOTIMPL:
    case JERR_COMPONENT_COUNT:
        return MDOC_CODEC_UNSUPPORTED;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
    case JERR_OUT_OF_MEMORY:
    case JERR_NO_BACKING_STORE:
    case JERR_TOO_LITTLE_DATA:
        return MDOC_CODEC_TOO_LARGE;
    default:
        return MDOC_CODEC_CORRUPT;
    }
}

static void jpeg_error_exit_longjmp(j_common_ptr cinfo) {
    mdoc_jpeg_error *err = (mdoc_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    err->code = classify_jpeg_error(err->pub.msg_code);
    longjmp(err->jump, 1);
}

/* Warnings (msg_level -1) that mean the data is damaged stop the decode; libjpeg would
   otherwise fill the rest of the image with grey and report success. */
static void jpeg_emit_message_strict(j_common_ptr cinfo, int msg_level) {
    mdoc_jpeg_error *err = (mdoc_jpeg_error *)cinfo->err;
    if (msg_level >= 0) return; /* trace messages */
    err->pub.num_warnings++;
    int damaging = 0;
    int32_t code = MDOC_CODEC_CORRUPT;
    switch (err->pub.msg_code) {
    case JWRN_JPEG_EOF:
        damaging = 1;
        code = MDOC_CODEC_TRUNCATED;
        break;
    case JWRN_ARITH_BAD_CODE:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_TOO_MUCH_DATA:
        damaging = 1;
        break;
    default:
        /* JFIF revision, thumbnail size, unknown Adobe transform, bad ICC marker: the pixels
           are unaffected. */
        break;
    }
    if (damaging) {
        (*cinfo->err->format_message)(cinfo, err->message);
        err->code = code;
        longjmp(err->jump, 1);
    }
}

static void jpeg_output_message_silent(j_common_ptr cinfo) { (void)cinfo; }

static void init_jpeg_error(mdoc_jpeg_error *err) {
    memset(err, 0, sizeof *err);
    jpeg_std_error(&err->pub);
    err->pub.error_exit = jpeg_error_exit_longjmp;
    err->pub.emit_message = jpeg_emit_message_strict;
    err->pub.output_message = jpeg_output_message_silent;
    err->code = MDOC_CODEC_OK;
}

static int32_t map_color_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return MDOC_CS_GRAY;
    case JCS_RGB: return MDOC_CS_RGB;
    case JCS_YCbCr: return MDOC_CS_YCBCR;
    case JCS_CMYK: return MDOC_CS_CMYK;
    case JCS_YCCK: return MDOC_CS_YCCK;
    default: return MDOC_CS_UNKNOWN;
    }
}

static int valid_scale(int32_t scale_denom) {
    return scale_denom == 1 || scale_denom == 2 || scale_denom == 4 || scale_denom == 8;
}

/* Upper bound for libjpeg's own allocations (progressive coefficient buffers, row buffers).
   With no backing store, a request beyond it fails with JERR_NO_BACKING_STORE instead of
   exhausting the machine. */
#define MDOC_JPEG_MAX_MEMORY (1536L * 1024L * 1024L)

/* MARK: JPEG probe */

/* ITU-T T.81 Annex K, Table K.1 (luminance quantisation), natural (row-major) order: the base
   table libjpeg scales by quality. */
static const unsigned int annex_k_luminance[DCTSIZE2] = {
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99,
};

/* The libjpeg quality whose scaled table K.1 is closest (sum of absolute differences) to the
   stream's first table. libjpeg: scale = q < 50 ? 5000 / q : 200 - 2q; entry = (base * scale + 50)
   / 100 clamped to 1...255 (baseline). Quant tables are stored in natural order. */
static int32_t estimate_quality(const JQUANT_TBL *table) {
    if (table == NULL) return 0;
    int32_t best_quality = 0;
    unsigned long best_distance = (unsigned long)-1;
    for (int quality = 1; quality <= 100; quality++) {
        long scale = quality < 50 ? 5000L / quality : 200L - 2L * quality;
        unsigned long distance = 0;
        for (int i = 0; i < DCTSIZE2; i++) {
            long entry = ((long)annex_k_luminance[i] * scale + 50L) / 100L;
            if (entry < 1) entry = 1;
            if (entry > 255) entry = 255;
            long difference = (long)table->quantval[i] - entry;
            distance += (unsigned long)(difference < 0 ? -difference : difference);
        }
        if (distance < best_distance) {
            best_distance = distance;
            best_quality = quality;
        }
    }
    return best_quality;
}

int32_t mdoc_jpeg_probe(const uint8_t *data, size_t length, int32_t scale_denom,
                        mdoc_jpeg_info *info, mdoc_codec_status *status) {
    if (data == NULL || info == NULL || length == 0 || !valid_scale(scale_denom)) {
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "bad argument");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    memset(info, 0, sizeof *info);
    struct jpeg_decompress_struct cinfo;
    mdoc_jpeg_error err;
    init_jpeg_error(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        /* get_sof fills these before the precision check refuses a 12-bit image. */
        info->width = cinfo.image_width;
        info->height = cinfo.image_height;
        info->precision = cinfo.data_precision;
        info->components = cinfo.num_components;
        jpeg_destroy_decompress(&cinfo);
        set_status(status, err.code, err.message);
        return err.code;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = MDOC_JPEG_MAX_MEMORY;
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    (void)jpeg_read_header(&cinfo, TRUE); /* TRUE: a tables-only stream is an error */
    info->width = cinfo.image_width;
    info->height = cinfo.image_height;
    info->components = cinfo.num_components;
    info->color_space = map_color_space(cinfo.jpeg_color_space);
    info->precision = cinfo.data_precision;
    info->progressive = cinfo.progressive_mode ? 1 : 0;
    info->arithmetic = cinfo.arith_code ? 1 : 0;
    info->adobe_marker = cinfo.saw_Adobe_marker ? 1 : 0;
    info->estimated_quality = estimate_quality(cinfo.quant_tbl_ptrs[0]);
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    jpeg_calc_output_dimensions(&cinfo);
    info->scaled_width = cinfo.output_width;
    info->scaled_height = cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    set_status(status, MDOC_CODEC_OK, "");
    return MDOC_CODEC_OK;
}

/* MARK: JPEG decode */

/* CMYK (as stored) to RGB. Adobe applications store CMYK inverted (0 = full ink); without
   an Adobe marker the samples are taken as plain ink amounts. */
static void cmyk_row_to_output(const JSAMPLE *cmyk, uint8_t *out, JDIMENSION width,
                               int inverted, int32_t out_components) {
    for (JDIMENSION x = 0; x < width; x++) {
        unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        /* Now c, m, y, k are "paper" amounts: 255 = no ink. */
        unsigned r = (c * k + 127) / 255, g = (m * k + 127) / 255, b = (y * k + 127) / 255;
        if (out_components == 3) {
            out[3 * x] = (uint8_t)r;
            out[3 * x + 1] = (uint8_t)g;
            out[3 * x + 2] = (uint8_t)b;
        } else {
            out[x] = (uint8_t)((77 * r + 150 * g + 29 * b + 128) >> 8);
        }
    }
}

int32_t mdoc_jpeg_decode(const uint8_t *data, size_t length, int32_t scale_denom,
                         int32_t out_components, uint8_t *out, size_t out_capacity,
                         uint32_t *out_width, uint32_t *out_height, mdoc_codec_status *status) {
    if (data == NULL || out == NULL || out_width == NULL || out_height == NULL || length == 0 ||
        !valid_scale(scale_denom) || (out_components != 1 && out_components != 3)) {
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "bad argument");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    *out_width = 0;
    *out_height = 0;
    struct jpeg_decompress_struct cinfo;
    mdoc_jpeg_error err;
    init_jpeg_error(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo); /* frees every pool, including the CMYK row */
        set_status(status, err.code, err.message);
        return err.code;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = MDOC_JPEG_MAX_MEMORY;
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    (void)jpeg_read_header(&cinfo, TRUE);

    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    int inverted = cinfo.saw_Adobe_marker ? 1 : 0;
    if (cmyk) {
        cinfo.out_color_space = JCS_CMYK; /* libjpeg turns YCCK into CMYK */
    } else {
        cinfo.out_color_space = out_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    }
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    cinfo.dct_method = JDCT_ISLOW;
    (void)jpeg_start_decompress(&cinfo);

    size_t needed = 0;
    if (!checked_size(cinfo.output_width, cinfo.output_height, (size_t)out_components, &needed) ||
        needed > out_capacity) {
        jpeg_destroy_decompress(&cinfo);
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "output buffer too small for the decoded image");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    if ((!cmyk && cinfo.output_components != out_components) || (cmyk && cinfo.output_components != 4)) {
        jpeg_destroy_decompress(&cinfo);
        set_status(status, MDOC_CODEC_UNSUPPORTED, "unexpected output component count");
        return MDOC_CODEC_UNSUPPORTED;
    }
    size_t stride = (size_t)cinfo.output_width * (size_t)out_components;
    JSAMPARRAY cmyk_row = NULL;
    if (cmyk) {
        cmyk_row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                              cinfo.output_width * 4, 1);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *row_out = out + (size_t)cinfo.output_scanline * stride;
        if (cmyk) {
            JDIMENSION got = jpeg_read_scanlines(&cinfo, cmyk_row, 1);
            if (got != 1) break;
            cmyk_row_to_output(cmyk_row[0], row_out, cinfo.output_width, inverted, out_components);
        } else {
            JSAMPROW rows[1] = { (JSAMPROW)row_out };
            JDIMENSION got = jpeg_read_scanlines(&cinfo, rows, 1);
            if (got != 1) break;
        }
    }
    if (cinfo.output_scanline < cinfo.output_height) {
        jpeg_destroy_decompress(&cinfo);
        set_status(status, MDOC_CODEC_CORRUPT, "decoder stopped before the last scanline");
        return MDOC_CODEC_CORRUPT;
    }
    *out_width = cinfo.output_width;
    *out_height = cinfo.output_height;
    (void)jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    set_status(status, MDOC_CODEC_OK, "");
    return MDOC_CODEC_OK;
}

/* MARK: JPEG encode */

/* A growable memory destination we own (jpeg_mem_dest keeps its current buffer in a private
   struct, so after an error longjmp the caller could not free it). The buffer pointer lives in
   this struct, which libjpeg reaches through cinfo.dest, so the error path sees its current
   value and frees it. */
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
    size_t length;
} mdoc_memory_destination;

static void memory_init_destination(j_compress_ptr cinfo) {
    mdoc_memory_destination *dest = (mdoc_memory_destination *)cinfo->dest;
    if (dest->buffer == NULL) {
        dest->buffer = malloc(dest->capacity);
        if (dest->buffer == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    }
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean memory_empty_output_buffer(j_compress_ptr cinfo) {
    mdoc_memory_destination *dest = (mdoc_memory_destination *)cinfo->dest;
    /* libjpeg calls this only when the whole buffer is full. */
    if (dest->capacity > SIZE_MAX / 2) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    size_t grown = dest->capacity * 2;
    uint8_t *bigger = realloc(dest->buffer, grown);
    if (bigger == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10); /* old buffer still ours */
    dest->buffer = bigger;
    dest->pub.next_output_byte = bigger + dest->capacity;
    dest->pub.free_in_buffer = grown - dest->capacity;
    dest->capacity = grown;
    return TRUE;
}

static void memory_term_destination(j_compress_ptr cinfo) {
    mdoc_memory_destination *dest = (mdoc_memory_destination *)cinfo->dest;
    dest->length = dest->capacity - dest->pub.free_in_buffer;
}

static int32_t jpeg_encode_impl(const uint8_t *pixels, uint32_t width, uint32_t height,
                                int32_t components, int32_t quality, int progressive,
                                uint8_t **out, size_t *out_length, mdoc_codec_status *status) {
    if (pixels == NULL || out == NULL || out_length == NULL || width == 0 || height == 0 ||
        width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION ||
        (components != 1 && components != 3) || quality < 1 || quality > 100) {
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "bad argument");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    *out = NULL;
    *out_length = 0;
    struct jpeg_compress_struct cinfo;
    mdoc_jpeg_error err;
    mdoc_memory_destination dest;
    memset(&dest, 0, sizeof dest);
    /* A first guess of 1/8 of the raw size, within [64 KiB, 16 MiB]; it doubles as needed. */
    size_t raw = (size_t)width * (size_t)height * (size_t)components;
    dest.capacity = raw / 8;
    if (dest.capacity < 65536) dest.capacity = 65536;
    if (dest.capacity > 16777216) dest.capacity = 16777216;
    dest.pub.init_destination = memory_init_destination;
    dest.pub.empty_output_buffer = memory_empty_output_buffer;
    dest.pub.term_destination = memory_term_destination;
    init_jpeg_error(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(dest.buffer);
        set_status(status, MDOC_CODEC_ENCODE_FAILED, err.message);
        return MDOC_CODEC_ENCODE_FAILED;
    }
    jpeg_create_compress(&cinfo);
    cinfo.dest = &dest.pub;
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.dct_method = JDCT_ISLOW;
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[1] = { (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride) };
        (void)jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = dest.buffer;
    *out_length = dest.length;
    set_status(status, MDOC_CODEC_OK, "");
    return MDOC_CODEC_OK;
}

int32_t mdoc_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                         int32_t components, int32_t quality, uint8_t **out, size_t *out_length,
                         mdoc_codec_status *status) {
    return jpeg_encode_impl(pixels, width, height, components, quality, 0, out, out_length, status);
}

int32_t mdoc_jpeg_encode_progressive(const uint8_t *pixels, uint32_t width, uint32_t height,
                                     int32_t components, int32_t quality, uint8_t **out,
                                     size_t *out_length, mdoc_codec_status *status) {
    return jpeg_encode_impl(pixels, width, height, components, quality, 1, out, out_length, status);
}

/* MARK: PNG */

/* libpng's memory reader reports running out of bytes with this message (pngread.c). */
static int32_t classify_png_message(const char *message) {
    if (strstr(message, "read beyond end of data") != NULL) return MDOC_CODEC_TRUNCATED;
    if (strstr(message, "Not enough image data") != NULL) return MDOC_CODEC_TRUNCATED;
    if (strstr(message, "out of memory") != NULL || strstr(message, "too large") != NULL ||
        strstr(message, "user limit") != NULL)
        return MDOC_CODEC_TOO_LARGE;
    return MDOC_CODEC_CORRUPT;
}

int32_t mdoc_png_probe(const uint8_t *data, size_t length, mdoc_png_info *info,
                       mdoc_codec_status *status) {
    if (data == NULL || info == NULL || length == 0) {
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "bad argument");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    memset(info, 0, sizeof *info);
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        int32_t code = classify_png_message(image.message);
        set_status(status, code, image.message);
        png_image_free(&image);
        return code;
    }
    info->width = image.width;
    info->height = image.height;
    info->format = image.format;
    info->colormap_entries = image.colormap_entries;
    info->has_alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) ? 1 : 0;
    info->has_color = (image.format & PNG_FORMAT_FLAG_COLOR) ? 1 : 0;
    info->linear = (image.format & PNG_FORMAT_FLAG_LINEAR) ? 1 : 0;
    info->colormapped = (image.format & PNG_FORMAT_FLAG_COLORMAP) ? 1 : 0;
    png_image_free(&image);
    set_status(status, MDOC_CODEC_OK, "");
    return MDOC_CODEC_OK;
}

int32_t mdoc_png_decode(const uint8_t *data, size_t length, int32_t out_components, uint8_t *out,
                        size_t out_capacity, mdoc_codec_status *status) {
    if (data == NULL || out == NULL || length == 0 || (out_components != 1 && out_components != 3)) {
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "bad argument");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        int32_t code = classify_png_message(image.message);
        set_status(status, code, image.message);
        png_image_free(&image);
        return code;
    }
    image.format = out_components == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
    /* A 16-bit file without gAMA/sRGB/iCCP is sRGB-encoded like every 8-bit one (what scanners
       and editors write, and how viewers show it); the simplified API would otherwise take it
       as linear light and brighten it on the way to 8 bits. */
    image.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    size_t needed = 0;
    size_t stride = 0;
    if (!checked_size(image.width, (size_t)out_components, 1, &stride) || stride > 0x7fffffff ||
        !checked_size(stride, image.height, 1, &needed) || needed > out_capacity) {
        png_image_free(&image);
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "output buffer too small for the decoded image");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    /* For grey output libpng takes the background from the green channel. */
    png_color white = { 255, 255, 255 };
    if (!png_image_finish_read(&image, &white, out, (png_int_32)stride, NULL)) {
        int32_t code = classify_png_message(image.message);
        set_status(status, code, image.message);
        png_image_free(&image);
        return code;
    }
    png_image_free(&image);
    set_status(status, MDOC_CODEC_OK, "");
    return MDOC_CODEC_OK;
}

int32_t mdoc_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                        int32_t components, uint8_t **out, size_t *out_length,
                        mdoc_codec_status *status) {
    if (pixels == NULL || out == NULL || out_length == NULL || width == 0 || height == 0 ||
        (components != 1 && components != 3) || (size_t)width * (size_t)components > 0x7fffffff) {
        set_status(status, MDOC_CODEC_BAD_ARGUMENT, "bad argument");
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    *out = NULL;
    *out_length = 0;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = components == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
    png_int_32 stride = (png_int_32)((size_t)width * (size_t)components);
    png_alloc_size_t size = 0;
    /* First call with no buffer: libpng reports the size it needs. */
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, stride, NULL) || size == 0) {
        set_status(status, MDOC_CODEC_ENCODE_FAILED, image.message);
        png_image_free(&image);
        return MDOC_CODEC_ENCODE_FAILED;
    }
    uint8_t *buffer = malloc(size);
    if (buffer == NULL) {
        png_image_free(&image);
        set_status(status, MDOC_CODEC_TOO_LARGE, "out of memory");
        return MDOC_CODEC_TOO_LARGE;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, stride, NULL)) {
        set_status(status, MDOC_CODEC_ENCODE_FAILED, image.message);
        png_image_free(&image);
        free(buffer);
        return MDOC_CODEC_ENCODE_FAILED;
    }
    png_image_free(&image);
    *out = buffer;
    *out_length = (size_t)size;
    set_status(status, MDOC_CODEC_OK, "");
    return MDOC_CODEC_OK;
}

void mdoc_codec_free(void *pointer) { free(pointer); }

/* MARK: pixel operations */

int32_t mdoc_apply_orientation(const uint8_t *src, uint32_t width, uint32_t height,
                               int32_t components, int32_t orientation, uint8_t *dst,
                               size_t dst_capacity) {
    size_t needed = 0;
    if (src == NULL || dst == NULL || components < 1 || components > 4 || orientation < 1 ||
        orientation > 8 || !checked_size(width, height, (size_t)components, &needed) ||
        needed > dst_capacity) {
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    size_t w = width, h = height, c = (size_t)components;
    int swap = orientation >= 5;
    size_t out_w = swap ? h : w;
    for (size_t y = 0; y < h; y++) {
        const uint8_t *row = src + y * w * c;
        for (size_t x = 0; x < w; x++) {
            size_t ox, oy;
            switch (orientation) {
            case 2: ox = w - 1 - x; oy = y; break;             /* mirror horizontally */
            case 3: ox = w - 1 - x; oy = h - 1 - y; break;     /* rotate 180 */
            case 4: ox = x; oy = h - 1 - y; break;             /* mirror vertically */
            case 5: ox = y; oy = x; break;                     /* transpose */
            case 6: ox = h - 1 - y; oy = x; break;             /* rotate 90 clockwise */
            case 7: ox = h - 1 - y; oy = w - 1 - x; break;     /* transverse */
            case 8: ox = y; oy = w - 1 - x; break;             /* rotate 90 counter-clockwise */
            default: ox = x; oy = y; break;
            }
            uint8_t *d = dst + (oy * out_w + ox) * c;
            const uint8_t *s = row + x * c;
            for (size_t k = 0; k < c; k++) d[k] = s[k];
        }
    }
    return MDOC_CODEC_OK;
}

int32_t mdoc_box_downscale(const uint8_t *src, uint32_t width, uint32_t height,
                           int32_t components, int32_t factor, uint8_t *dst, size_t dst_capacity) {
    if (src == NULL || dst == NULL || width == 0 || height == 0 || components < 1 ||
        components > 4 || (factor != 2 && factor != 4 && factor != 8)) {
        return MDOC_CODEC_BAD_ARGUMENT;
    }
    size_t f = (size_t)factor, c = (size_t)components;
    size_t out_w = ((size_t)width + f - 1) / f, out_h = ((size_t)height + f - 1) / f;
    size_t needed = 0;
    if (!checked_size(out_w, out_h, c, &needed) || needed > dst_capacity) return MDOC_CODEC_BAD_ARGUMENT;
    size_t w = width, h = height;
    for (size_t oy = 0; oy < out_h; oy++) {
        size_t y0 = oy * f, y1 = y0 + f < h ? y0 + f : h;
        for (size_t ox = 0; ox < out_w; ox++) {
            size_t x0 = ox * f, x1 = x0 + f < w ? x0 + f : w;
            size_t count = (y1 - y0) * (x1 - x0);
            for (size_t k = 0; k < c; k++) {
                size_t sum = 0;
                for (size_t y = y0; y < y1; y++) {
                    const uint8_t *s = src + (y * w + x0) * c + k;
                    for (size_t x = x0; x < x1; x++, s += c) sum += *s;
                }
                dst[(oy * out_w + ox) * c + k] = (uint8_t)((sum + count / 2) / count);
            }
        }
    }
    return MDOC_CODEC_OK;
}
