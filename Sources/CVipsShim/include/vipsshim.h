#ifndef THUMBD_VIPSSHIM_H
#define THUMBD_VIPSSHIM_H

#include <stddef.h>
#include <stdint.h>

/* Non-variadic wrappers around the libvips calls thumbd uses (Swift cannot call C
 * variadic functions). Images are opaque `VipsImage *` handles; every function that
 * returns one returns a new reference the caller must release with tv_unref. On failure
 * they return NULL (or -1) and, when `err` is given, a g_malloc'd message to tv_free. */

typedef struct _VipsImage VipsImage;

/* HEIC and TIFF are written only to make test and demo sources. */
typedef enum { TV_JPEG = 0, TV_PNG = 1, TV_WEBP = 2, TV_AVIF = 3, TV_GIF = 4, TV_JXL = 5, TV_HEIC = 6, TV_TIFF = 7 } tv_format;
typedef enum { TV_SIZE_BOTH = 0, TV_SIZE_UP = 1, TV_SIZE_DOWN = 2, TV_SIZE_FORCE = 3 } tv_size;
typedef enum { TV_CROP_NONE = 0, TV_CROP_CENTRE = 1, TV_CROP_ENTROPY = 2, TV_CROP_ATTENTION = 3 } tv_crop;

typedef struct {
    int width;
    int height;       /* one page (frame) */
    int bands;
    int orientation;  /* EXIF 1..8, 1 when absent */
    int pages;
    int has_alpha;
    int bits;         /* bits per sample: 8, 16, 32 ... */
    char loader[64];  /* libvips loader nickname, e.g. "jpegload_buffer" */
} tv_header;

/* Once per process: libvips with its operation cache off, one thread per operation,
 * untrusted loaders (magick, pdf, svg, ...) blocked and its warnings silenced. */
int tv_init(const char *argv0);
const char *tv_version(void);
/* Reads the header only; no pixel is decoded. -2: no loader knows the bytes; -1: a loader
 * claimed them but the header is broken. (The libvips error buffer is process-wide, so
 * callers decide from return codes, never from message text.) */
int tv_read_header(const void *buf, size_t len, tv_header *out, char **err);

/* The header of one page (0 the first) of a multi-page source (PDF, TIFF, HEIF, GIF): pages
 * may differ in size. */
int tv_read_header_page(const void *buf, size_t len, int page, tv_header *out, char **err);

/* The same, from a file: only the header is read. */
int tv_read_header_file(const char *path, tv_header *out, char **err);

/* The header's credit fields, read without decoding pixels: libvips' text of EXIF Artist
 * (`exif-ifd0-Artist`) and the XMP packet (`xmp-data`, NUL-terminated), each g_malloc'd or
 * NULL when absent (free with tv_free). */
int tv_read_credits(const void *buf, size_t len, char **artist, char **xmp, char **err);

/* Shrink-on-load thumbnail of an encoded image, auto-rotated, first page only; fails on
 * truncated input. */
VipsImage *tv_thumbnail(const void *buf, size_t len, int width, int height, tv_size size, tv_crop crop, char **err);
/* The same of one page (0 the first) of a multi-page source (PDF, TIFF, HEIF). */
VipsImage *tv_thumbnail_page(const void *buf, size_t len, int width, int height, tv_size size, tv_crop crop, int page,
                             char **err);
/* Resize (and crop) of an image already decoded, as tv_thumbnail does from bytes. */
VipsImage *tv_thumbnail_image(VipsImage *in, int width, int height, tv_size size, tv_crop crop, char **err);
VipsImage *tv_extract(VipsImage *in, int left, int top, int width, int height, char **err);
/* The region pixelated: cut into cells of at most cells x cells across its longer side, each
   the average of its pixels, the rest of the image as it was. */
VipsImage *tv_pixelate(VipsImage *in, int left, int top, int width, int height, int cells, char **err);
/* The box inside a uniform border (the top-left pixel's colour, within threshold 1-100);
 * width and height 0 when the whole image is border. */
int tv_find_trim(VipsImage *in, double threshold, int *left, int *top, int *width, int *height, char **err);
/* Clockwise by 0, 90, 180 or 270 degrees; left-right mirror. A turn reads its input out of
 * order: give it an image in memory (tv_materialize), not a sequential decode. */
VipsImage *tv_rotate(VipsImage *in, int degrees, char **err);
VipsImage *tv_mirror(VipsImage *in, char **err);
/* `in` placed at (left, top) in a width x height canvas of colour (r, g, b, a); an alpha
 * band is added when the colour is not opaque. */
VipsImage *tv_embed(VipsImage *in, int left, int top, int width, int height, double r, double g, double b, double a,
                    char **err);
VipsImage *tv_blur(VipsImage *in, double sigma, char **err);
VipsImage *tv_sharpen(VipsImage *in, double sigma, char **err);
VipsImage *tv_gray(VipsImage *in, char **err);
/* An encoded image (PNG with alpha) drawn over `in`: `scale` of its width, alpha times
 * `opacity`, at `position` (0-8: rows top, middle, bottom of columns left, centre, right),
 * `padding` pixels from the edges it sits against. The result is sRGB with alpha. */
VipsImage *tv_watermark(VipsImage *in, const void *buf, size_t len, double scale, double opacity, int position, int padding,
                        char **err);
/* Every frame of an animated image, each resized to exactly width x height, then, when
 * crop_width > 0, the region (left, top, crop_width, crop_height) of each; delays kept. */
VipsImage *tv_thumbnail_frames(const void *buf, size_t len, int width, int height, int left, int top, int crop_width,
                               int crop_height, char **err);
/* An RGBA8 preview of an encoded image, auto-rotated, first frame, fitting max_side x
 * max_side (never enlarged); the pixels are g_malloc'd (free with tv_free). */
int tv_rgba_preview(const void *buf, size_t len, int max_side, int *width, int *height, void **pixels, size_t *pixels_len,
                    char **err);
/* The image's luma as 8 bits per pixel, row-major (Rec. 601 weights from 8-bit sRGB; the
 * first band of a grey image; alpha ignored), g_malloc'd (free with tv_free). */
int tv_luma(VipsImage *in, uint8_t **luma, int *width, int *height, char **err);
/* The height of one frame (the whole height for a single-frame image). */
int tv_page_height(VipsImage *in);
/* To 8-bit sRGB (or 8-bit grey for grey images) unless already there. */
VipsImage *tv_to_srgb(VipsImage *in, char **err);
/* Alpha removed by compositing on an RGB background. */
VipsImage *tv_flatten(VipsImage *in, double r, double g, double b, char **err);
/* Asked while a pipeline is computed: non-zero stops it. */
typedef int (*tv_stop_check)(void *context);

/* Runs the pipeline into memory: decoding errors surface here, so that a failure while
 * saving afterwards is the encoder's own. With `check`, it is asked every 50 ms or so while
 * tiles are computed; when it says stop, the computation is killed, NULL is returned and
 * `*stopped` set (a vector render or a filter cut off between tiles). */
VipsImage *tv_materialize(VipsImage *in, tv_stop_check check, void *context, int *stopped, char **err);
/* With strip set, metadata fields (EXIF, XMP, IPTC, ICC, ...) are removed from a copy of
 * the image before saving: the savers' own "strip" flag is not enough (webpsave in 8.14
 * writes EXIF, XMP and ICC chunks regardless). */
int tv_save(VipsImage *in, tv_format format, int quality, int effort, int strip, int interlace, void **out, size_t *out_len,
            char **err);

int tv_width(VipsImage *in);
int tv_height(VipsImage *in);
int tv_bands(VipsImage *in);
int tv_has_alpha(VipsImage *in);
/* Pixel values at (x, y); returns the number of bands written to `values` (at most `max`). */
int tv_getpoint(VipsImage *in, int x, int y, double *values, int max, char **err);

/* Synthesis, for the demo library and tests. */
VipsImage *tv_from_pixels(const uint8_t *pixels, int width, int height, int bands, char **err);
VipsImage *tv_as_cmyk(VipsImage *in, char **err);          /* reinterpret 4 bands as CMYK */
VipsImage *tv_as_16bit(VipsImage *in, char **err);         /* widen to 16 bits per sample */
VipsImage *tv_with_orientation(VipsImage *in, int orientation, char **err);
VipsImage *tv_join_pages(VipsImage **pages, int count, int delay_ms, char **err);
VipsImage *tv_load(const void *buf, size_t len, char **err);  /* decodes everything */
/* Attaches libvips' built-in sRGB ICC profile, and an XMP packet when `xmp` is not NULL. */
VipsImage *tv_with_profile_and_xmp(VipsImage *in, const char *xmp, char **err);

void tv_unref(VipsImage *in);
void tv_free(void *p);

/* In a renderer process only: SVG (librsvg) and PDF (poppler) may be read. Everywhere else
 * they are refused before libvips parses a byte of them. */
void tv_allow_vectors(void);
/* Draws page `page` (from 0; a PDF's) of an SVG or PDF at `scale` into an uncompressed sRGB
 * TIFF (8 bits, alpha kept) in *out (free with tv_free), with its size. -2: not a vector
 * document; -3: the drawing would pass max_pixels (nothing drawn); -1: it failed (*err). */
int tv_draw_vector(const void *buf, size_t len, int page, double scale, unsigned long long max_pixels, void **out,
                   size_t *out_len, int *width, int *height, char **err);

#endif
