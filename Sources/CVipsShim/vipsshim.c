#include "vipsshim.h"
#include "processguards.h"

#include <string.h>
#include <vips/vips.h>
#include <vips/vector.h>

static int fail(char **err) {
    if (err) *err = vips_error_buffer_copy();
    else vips_error_clear();
    return -1;
}

static VipsImage *fail_null(char **err) {
    fail(err);
    return NULL;
}

/* Set in a renderer process only (tv_allow_vectors): the one place SVG and PDF are read. */
static int vectors_allowed = 0;

/* Loaders the server's own process never lets read: librsvg's and poppler's. A document can
   make them run away (a 255-byte PDF grows poppler's header parse by 300 MB a second without
   end; a 257-byte SVG's blur draws for seconds in one call no stop check reaches), so they
   run in renderer processes with limits of their own. The check only looks at the bytes'
   signature; the document is never parsed here. */
static int is_vector_loader(const char *loader) {
    return loader && (strstr(loader, "Pdf") != NULL || strstr(loader, "Svg") != NULL);
}

static int refused_loader(const char *loader) {
    return !vectors_allowed && is_vector_loader(loader);
}

/* Why a refused loader's document is not read, in libvips' error buffer. */
static void say_refused(void) {
    vips_error("thumbd", "%s", "SVG and PDF documents are drawn by a renderer process, not here");
}

static int refused(const void *buf, size_t len) {
    if (refused_loader(vips_foreign_find_load_buffer(buf, len))) {
        say_refused();
        return 1;
    }
    return 0;
}

void tv_allow_vectors(void) {
    vectors_allowed = 1;
    vips_operation_block_set("VipsForeignLoadSvg", FALSE);
    vips_operation_block_set("VipsForeignLoadPdf", FALSE);
}

static void quiet(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

int tv_init(const char *argv0) {
    if (VIPS_INIT(argv0)) return -1;
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    /* Orc's code memory is safe to share between threads only through orcguard.c's lock. */
    if (!pg_orc_guarded()) vips_vector_set_enabled(FALSE);
    vips_block_untrusted_set(TRUE);
    /* SVG (librsvg) and PDF (poppler) stay blocked here and are refused before libvips sees
       them (`refused`); a renderer process unblocks them (tv_allow_vectors). ImageMagick's
       stays blocked, so BMP and ICO are not read. */
    /* The JPEG XL saver is marked untrusted with its loader; it only encodes our own pixels. */
    vips_operation_block_set("VipsForeignSaveJxl", FALSE);
    /* Corrupt uploads would fill the log with decoder warnings; errors still come back
     * through return codes. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, quiet, NULL);
    return 0;
}

const char *tv_version(void) { return vips_version_string(); }

/* The header fields of a lazily opened image; releases `im`. */
static int fill_header(VipsImage *im, const char *loader, tv_header *out) {
    out->width = vips_image_get_width(im);
    out->height = vips_image_get_page_height(im);
    out->bands = vips_image_get_bands(im);
    out->orientation = vips_image_get_orientation(im);
    out->pages = vips_image_get_n_pages(im);
    out->has_alpha = vips_image_hasalpha(im);
    out->bits = (int)vips_format_sizeof(vips_image_get_format(im)) * 8;
    /* "VipsForeignLoadJpegBuffer" is the class name; the nickname is friendlier. */
    VipsObjectClass *klass = VIPS_OBJECT_CLASS(g_type_class_ref(g_type_from_name(loader)));
    g_strlcpy(out->loader, klass && klass->nickname ? klass->nickname : loader, sizeof out->loader);
    if (klass) g_type_class_unref(klass);
    g_object_unref(im);
    return 0;
}

int tv_read_header(const void *buf, size_t len, tv_header *out, char **err) {
    return tv_read_header_page(buf, len, 0, out, err);
}

int tv_read_header_page(const void *buf, size_t len, int page, tv_header *out, char **err) {
    memset(out, 0, sizeof *out);
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (!loader || refused_loader(loader)) {
        if (loader) say_refused();
        fail(err);
        return -2;
    }
    char options[32] = "";
    if (page > 0) g_snprintf(options, sizeof options, "page=%d", page);
    VipsImage *im = vips_image_new_from_buffer(buf, len, options, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!im) return fail(err);
    return fill_header(im, loader, out);
}

int tv_read_header_file(const char *path, tv_header *out, char **err) {
    memset(out, 0, sizeof *out);
    const char *loader = vips_foreign_find_load(path);
    if (!loader || refused_loader(loader)) {
        if (loader) say_refused();
        fail(err);
        return -2;
    }
    VipsImage *im = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!im) return fail(err);
    return fill_header(im, loader, out);
}

int tv_read_credits(const void *buf, size_t len, char **artist, char **xmp, char **err) {
    *artist = NULL;
    *xmp = NULL;
    if (refused(buf, len)) return fail(err);
    VipsImage *im = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!im) return fail(err);
    const char *text = NULL;
    if (vips_image_get_typeof(im, "exif-ifd0-Artist") && !vips_image_get_string(im, "exif-ifd0-Artist", &text) && text)
        *artist = g_strdup(text);
    const void *data = NULL;
    size_t length = 0;
    if (vips_image_get_typeof(im, VIPS_META_XMP_NAME) && !vips_image_get_blob(im, VIPS_META_XMP_NAME, &data, &length) && data) {
        /* A JPEG segment's namespace header may still be on it. */
        static const char ns[] = "http://ns.adobe.com/xap/1.0/";
        if (length >= sizeof ns && !memcmp(data, ns, sizeof ns)) {
            data = (const char *)data + sizeof ns;
            length -= sizeof ns;
        }
        *xmp = g_malloc(length + 1);
        memcpy(*xmp, data, length);
        (*xmp)[length] = 0;
    }
    g_object_unref(im);
    vips_error_clear();
    return 0;
}

/* The loader options of every decode: fail on truncated data, and the page asked for (a
 * PDF's, a multi-page TIFF's or HEIF's; 0 is the first) where there is one. */
static void load_options(char *out, size_t size, int page) {
    if (page > 0) g_snprintf(out, size, "fail_on=truncated,page=%d", page);
    else g_snprintf(out, size, "fail_on=truncated");
}

VipsImage *tv_thumbnail(const void *buf, size_t len, int width, int height, tv_size size, tv_crop crop, char **err) {
    return tv_thumbnail_page(buf, len, width, height, size, crop, 0, err);
}

VipsImage *tv_thumbnail_page(const void *buf, size_t len, int width, int height, tv_size size, tv_crop crop, int page,
                             char **err) {
    static const VipsSize sizes[] = { VIPS_SIZE_BOTH, VIPS_SIZE_UP, VIPS_SIZE_DOWN, VIPS_SIZE_FORCE };
    static const VipsInteresting crops[] = { VIPS_INTERESTING_NONE, VIPS_INTERESTING_CENTRE,
                                             VIPS_INTERESTING_ENTROPY, VIPS_INTERESTING_ATTENTION };
    VipsImage *out = NULL;
    /* fail_on set as a property is ignored by thumbnail in 8.14; the option string reaches the loader. */
    char options[64];
    load_options(options, sizeof options, page);
    if (refused(buf, len)) return fail_null(err);
    if (vips_thumbnail_buffer((void *)buf, len, &out, width, "height", height, "size", sizes[size],
                              "crop", crops[crop], "option_string", options, NULL))
        return fail_null(err);
    return out;
}

VipsImage *tv_thumbnail_image(VipsImage *in, int width, int height, tv_size size, tv_crop crop, char **err) {
    static const VipsSize sizes[] = { VIPS_SIZE_BOTH, VIPS_SIZE_UP, VIPS_SIZE_DOWN, VIPS_SIZE_FORCE };
    static const VipsInteresting crops[] = { VIPS_INTERESTING_NONE, VIPS_INTERESTING_CENTRE,
                                             VIPS_INTERESTING_ENTROPY, VIPS_INTERESTING_ATTENTION };
    VipsImage *out = NULL;
    if (vips_thumbnail_image(in, &out, width, "height", height, "size", sizes[size], "crop", crops[crop], NULL))
        return fail_null(err);
    return out;
}

int tv_find_trim(VipsImage *in, double threshold, int *left, int *top, int *width, int *height, char **err) {
    /* The background is the top-left pixel's colour (after flattening any alpha on white),
       as sharp and imgproxy take it: a border of any colour is found. A large image is
       searched at about 1024 px (find_trim's median filter over every pixel is what costs),
       and the box scaled back, widened by a pixel each side so no content is cut. */
    const int searched = 1024;
    int full_width = vips_image_get_width(in), full_height = vips_image_get_height(in);
    int longest = full_width > full_height ? full_width : full_height;
    double scale = longest > searched ? (double)searched / longest : 1.0;
    VipsImage *small = NULL, *flat = NULL;
    if (scale < 1.0) {
        if (vips_resize(in, &small, scale, NULL)) return fail(err);
    } else {
        g_object_ref(in);
        small = in;
    }
    int rc0 = vips_image_hasalpha(small) ? vips_flatten(small, &flat, NULL) : (g_object_ref(small), flat = small, 0);
    g_object_unref(small);
    if (rc0) return fail(err);
    double *corner = NULL;
    int n = 0;
    int rc = vips_getpoint(flat, &corner, &n, 0, 0, NULL);
    if (!rc) {
        VipsArrayDouble *background = vips_array_double_new(corner, n);
        rc = vips_find_trim(flat, left, top, width, height, "threshold", threshold, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
    }
    g_free(corner);
    g_object_unref(flat);
    if (rc) return fail(err);
    if (scale < 1.0 && *width > 0 && *height > 0) {
        int x0 = (int)(*left / scale) - 1, y0 = (int)(*top / scale) - 1;
        int x1 = (int)((*left + *width) / scale + 0.999) + 1, y1 = (int)((*top + *height) / scale + 0.999) + 1;
        if (x0 < 0) x0 = 0;
        if (y0 < 0) y0 = 0;
        if (x1 > full_width) x1 = full_width;
        if (y1 > full_height) y1 = full_height;
        *left = x0;
        *top = y0;
        *width = x1 - x0;
        *height = y1 - y0;
    }
    return 0;
}

VipsImage *tv_rotate(VipsImage *in, int degrees, char **err) {
    static const VipsAngle angles[] = { VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270 };
    VipsImage *out = NULL;
    if (vips_rot(in, &out, angles[(degrees / 90) & 3], NULL)) return fail_null(err);
    return out;
}

VipsImage *tv_mirror(VipsImage *in, char **err) {
    VipsImage *out = NULL;
    if (vips_flip(in, &out, VIPS_DIRECTION_HORIZONTAL, NULL)) return fail_null(err);
    return out;
}

/* The colour as the image's bands take it: grey images get the colour's luminance, an alpha
   band its alpha. */
static VipsArrayDouble *colour_for(VipsImage *in, double r, double g, double b, double a) {
    int bands = vips_image_get_bands(in);
    int alpha = vips_image_hasalpha(in);
    int colour = bands - (alpha ? 1 : 0);
    double v[4];
    int n = 0;
    if (colour < 3) v[n++] = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    else { v[n++] = r; v[n++] = g; v[n++] = b; }
    if (alpha) v[n++] = a;
    return vips_array_double_new(v, n);
}

VipsImage *tv_embed(VipsImage *in, int left, int top, int width, int height, double r, double g, double b, double a,
                    char **err) {
    VipsImage *base = in, *with_alpha = NULL, *out = NULL;
    /* A see-through colour needs an alpha band to be seen through. */
    if (a < 255 && !vips_image_hasalpha(in)) {
        if (vips_bandjoin_const1(in, &with_alpha, 255, NULL)) return fail_null(err);
        base = with_alpha;
    }
    VipsArrayDouble *background = colour_for(base, r, g, b, a);
    int rc = vips_embed(base, &out, left, top, width, height, "extend", VIPS_EXTEND_BACKGROUND, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    if (with_alpha) g_object_unref(with_alpha);
    return rc ? fail_null(err) : out;
}

VipsImage *tv_blur(VipsImage *in, double sigma, char **err) {
    VipsImage *out = NULL;
    if (vips_gaussblur(in, &out, sigma, NULL)) return fail_null(err);
    return out;
}

VipsImage *tv_sharpen(VipsImage *in, double sigma, char **err) {
    VipsImage *out = NULL, *srgb = NULL;
    /* vips_sharpen works in LabS and hands back LabS: back to the image's own space. */
    VipsInterpretation was = vips_image_get_interpretation(in);
    if (vips_sharpen(in, &out, "sigma", sigma, NULL)) return fail_null(err);
    int rc = vips_colourspace(out, &srgb, was == VIPS_INTERPRETATION_B_W ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(out);
    if (rc) return fail_null(err);
    VipsImage *cast = NULL;
    rc = vips_cast(srgb, &cast, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(srgb);
    return rc ? fail_null(err) : cast;
}

VipsImage *tv_gray(VipsImage *in, char **err) {
    VipsImage *out = NULL;
    if (vips_colourspace(in, &out, VIPS_INTERPRETATION_B_W, NULL)) return fail_null(err);
    return out;
}

VipsImage *tv_watermark(VipsImage *in, const void *buf, size_t len, double scale, double opacity, int position, int padding,
                        char **err) {
    int width = vips_image_get_width(in), height = vips_image_get_height(in);
    int mark_width = (int)(width * scale + 0.5);
    if (mark_width < 1) mark_width = 1;
    VipsImage *mark = NULL, *srgb = NULL, *rgba = NULL, *faded = NULL, *base = NULL, *out = NULL;
    if (refused(buf, len)) return fail_null(err);
    int rc = vips_thumbnail_buffer((void *)buf, len, &mark, mark_width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_BOTH, NULL);
    if (!rc) rc = vips_colourspace(mark, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    if (!rc) {
        if (vips_image_hasalpha(srgb)) {
            g_object_ref(srgb);
            rgba = srgb;
        } else {
            rc = vips_bandjoin_const1(srgb, &rgba, 255, NULL);
        }
    }
    if (!rc) {
        /* Opacity scales the alpha band alone. */
        double factors[4] = { 1, 1, 1, opacity }, zeros[4] = { 0, 0, 0, 0 };
        rc = vips_linear(rgba, &faded, factors, zeros, 4, "uchar", TRUE, NULL);
    }
    if (!rc) {
        /* The base in sRGB with alpha, so the two blend in one space; alpha removed later if
           the output has none. */
        VipsImage *colour = NULL;
        if (vips_image_get_bands(in) < 3) rc = vips_colourspace(in, &colour, VIPS_INTERPRETATION_sRGB, NULL);
        else { g_object_ref(in); colour = in; }
        if (!rc) {
            if (vips_image_hasalpha(colour)) { g_object_ref(colour); base = colour; }
            else rc = vips_bandjoin_const1(colour, &base, 255, NULL);
        }
        if (colour) g_object_unref(colour);
    }
    if (!rc) {
        int mw = vips_image_get_width(faded), mh = vips_image_get_height(faded);
        int col = position % 3, row = position / 3;
        int x = col == 0 ? padding : col == 1 ? (width - mw) / 2 : width - mw - padding;
        int y = row == 0 ? padding : row == 1 ? (height - mh) / 2 : height - mh - padding;
        rc = vips_composite2(base, faded, &out, VIPS_BLEND_MODE_OVER, "x", x, "y", y, NULL);
        if (!rc) {
            VipsImage *cast = NULL;
            rc = vips_cast(out, &cast, VIPS_FORMAT_UCHAR, NULL);
            g_object_unref(out);
            out = rc ? NULL : cast;
        }
    }
    if (mark) g_object_unref(mark);
    if (srgb) g_object_unref(srgb);
    if (rgba) g_object_unref(rgba);
    if (faded) g_object_unref(faded);
    if (base) g_object_unref(base);
    return rc ? fail_null(err) : out;
}

VipsImage *tv_thumbnail_frames(const void *buf, size_t len, int width, int height, int left, int top, int crop_width,
                               int crop_height, char **err) {
    VipsImage *all = NULL;
    if (refused(buf, len)) return fail_null(err);
    /* Every page (n=-1), each frame resized to exactly width x height. */
    if (vips_thumbnail_buffer((void *)buf, len, &all, width, "height", height, "size", VIPS_SIZE_FORCE,
                              "option_string", "n=-1,fail_on=truncated", NULL))
        return fail_null(err);
    if (crop_width <= 0) return all;
    int page_height = vips_image_get_page_height(all);
    int pages = vips_image_get_height(all) / page_height;
    VipsImage **frames = g_new0(VipsImage *, pages);
    int rc = 0;
    for (int i = 0; i < pages && rc == 0; i++)
        rc = vips_extract_area(all, &frames[i], left, i * page_height + top, crop_width, crop_height, NULL);
    VipsImage *joined = NULL, *out = NULL;
    if (rc == 0) rc = vips_arrayjoin(frames, &joined, pages, "across", 1, NULL);
    for (int i = 0; i < pages; i++) if (frames[i]) g_object_unref(frames[i]);
    g_free(frames);
    g_object_unref(all);
    if (rc == 0) rc = vips_copy(joined, &out, NULL);
    if (joined) g_object_unref(joined);
    if (rc) return fail_null(err);
    /* The frames' delays and loop count come along; their height is the crop's now. */
    vips_image_set_int(out, VIPS_META_PAGE_HEIGHT, crop_height);
    return out;
}

int tv_page_height(VipsImage *in) { return vips_image_get_page_height(in); }

int tv_rgba_preview(const void *buf, size_t len, int max_side, int *width, int *height, void **pixels, size_t *pixels_len,
                    char **err) {
    VipsImage *t = NULL, *srgb = NULL, *rgba = NULL;
    if (refused(buf, len)) return fail(err);
    int rc = vips_thumbnail_buffer((void *)buf, len, &t, max_side, "height", max_side, "size", VIPS_SIZE_DOWN,
                                   "option_string", "fail_on=truncated", NULL);
    if (!rc) rc = vips_colourspace(t, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    if (!rc) {
        VipsImage *cast = NULL;
        rc = vips_cast(srgb, &cast, VIPS_FORMAT_UCHAR, NULL);
        if (!rc) {
            g_object_unref(srgb);
            srgb = cast;
        }
    }
    if (!rc) {
        if (vips_image_get_bands(srgb) == 3) {
            rc = vips_bandjoin_const1(srgb, &rgba, 255, NULL);
        } else if (vips_image_get_bands(srgb) == 4) {
            g_object_ref(srgb);
            rgba = srgb;
        } else {
            vips_error("tv_rgba_preview", "unexpected band count %d", vips_image_get_bands(srgb));
            rc = -1;
        }
    }
    if (!rc) {
        *pixels = vips_image_write_to_memory(rgba, pixels_len);
        if (!*pixels) rc = -1;
        *width = vips_image_get_width(rgba);
        *height = vips_image_get_height(rgba);
    }
    if (t) g_object_unref(t);
    if (srgb) g_object_unref(srgb);
    if (rgba) g_object_unref(rgba);
    return rc ? fail(err) : 0;
}

typedef struct {
    tv_stop_check check;
    void *context;
    gint64 next;
    int stopped;
} watch_t;

/* Runs on whichever thread computes the image, as tiles are done (about ten times a second
   for a large one): asks at most every 50 ms whether to stop, and kills the computation if so. */
static void watch_eval(VipsImage *image, VipsProgress *progress, void *data) {
    (void)progress;
    watch_t *watch = data;
    gint64 now = g_get_monotonic_time();
    if (watch->stopped || now < watch->next) return;
    watch->next = now + 50000;
    if (watch->check(watch->context)) {
        watch->stopped = 1;
        vips_image_set_kill(image, TRUE);
    }
}

VipsImage *tv_materialize(VipsImage *in, tv_stop_check check, void *context, int *stopped, char **err) {
    if (stopped) *stopped = 0;
    /* vips_image_copy_memory, with the new image watched: its progress is the pipeline's. */
    VipsImage *out = vips_image_new_memory();
    watch_t watch = { check, context, 0, 0 };
    gulong handler = 0;
    if (check) {
        vips_image_set_progress(out, TRUE);
        handler = g_signal_connect(out, "eval", G_CALLBACK(watch_eval), &watch);
    }
    int rc = vips_image_write(in, out);
    if (handler) g_signal_handler_disconnect(out, handler);
    if (stopped) *stopped = watch.stopped;
    if (rc) {
        g_object_unref(out);
        return fail_null(err);
    }
    return out;
}

VipsImage *tv_pixelate(VipsImage *in, int left, int top, int width, int height, int cells, char **err) {
    VipsImage *area = NULL, *padded = NULL, *small = NULL, *big = NULL, *cut = NULL, *out = NULL;
    int side = width > height ? width : height;
    int cell = (side + cells - 1) / cells;
    if (cell < 1) cell = 1;
    int across = (width + cell - 1) / cell, down = (height + cell - 1) / cell;
    /* Whole cells: the edge repeated to fill the last ones, each cell averaged (a box shrink),
       then drawn back as blocks and cut to the region. */
    int rc = vips_extract_area(in, &area, left, top, width, height, NULL);
    if (!rc) rc = vips_embed(area, &padded, 0, 0, across * cell, down * cell, "extend", VIPS_EXTEND_COPY, NULL);
    if (!rc) rc = vips_shrink(padded, &small, cell, cell, NULL);
    if (!rc) rc = vips_zoom(small, &big, cell, cell, NULL);
    if (!rc) rc = vips_extract_area(big, &cut, 0, 0, width, height, NULL);
    if (!rc) rc = vips_insert(in, cut, &out, left, top, NULL);
    if (area) g_object_unref(area);
    if (padded) g_object_unref(padded);
    if (small) g_object_unref(small);
    if (big) g_object_unref(big);
    if (cut) g_object_unref(cut);
    return rc ? fail_null(err) : out;
}

VipsImage *tv_extract(VipsImage *in, int left, int top, int width, int height, char **err) {
    VipsImage *out = NULL;
    if (vips_extract_area(in, &out, left, top, width, height, NULL)) return fail_null(err);
    return out;
}

VipsImage *tv_to_srgb(VipsImage *in, char **err) {
    VipsInterpretation now = vips_image_get_interpretation(in);
    VipsInterpretation want = (now == VIPS_INTERPRETATION_B_W || now == VIPS_INTERPRETATION_GREY16)
        ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    VipsImage *out = NULL;
    if (now == want && vips_image_get_format(in) == VIPS_FORMAT_UCHAR) {
        g_object_ref(in);
        return in;
    }
    if (vips_colourspace(in, &out, want, NULL)) return fail_null(err);
    if (vips_image_get_format(out) != VIPS_FORMAT_UCHAR) {
        VipsImage *cast = NULL;
        int r = vips_cast(out, &cast, VIPS_FORMAT_UCHAR, NULL);
        g_object_unref(out);
        if (r) return fail_null(err);
        out = cast;
    }
    return out;
}

VipsImage *tv_flatten(VipsImage *in, double r, double g, double b, char **err) {
    VipsImage *out = NULL;
    VipsArrayDouble *background = vips_image_get_bands(in) < 3 ? vips_array_double_newv(1, 0.2126 * r + 0.7152 * g + 0.0722 * b)
                                                               : vips_array_double_newv(3, r, g, b);
    int rc = vips_flatten(in, &out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    if (rc) return fail_null(err);
    return out;
}

static int is_metadata(const char *name) {
    static const char *prefixes[] = { "exif-", "xmp-", "iptc-", "icc-", "photoshop-", "png-comment-", "gif-comment",
                                      "heif-", "jpeg-thumbnail", "orientation" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (g_str_has_prefix(name, prefixes[i])) return 1;
    return 0;
}

static VipsImage *without_metadata(VipsImage *in) {
    VipsImage *copy = NULL;
    if (vips_copy(in, &copy, NULL)) return NULL;
    gchar **fields = vips_image_get_fields(copy);
    for (int i = 0; fields[i]; i++)
        if (is_metadata(fields[i])) vips_image_remove(copy, fields[i]);
    g_strfreev(fields);
    return copy;
}

int tv_save(VipsImage *in, tv_format format, int quality, int effort, int strip, int interlace, void **out, size_t *out_len,
            char **err) {
    int rc;
    VipsImage *bare = NULL;
    if (strip) {
        bare = without_metadata(in);
        if (!bare) return fail(err);
        in = bare;
    }
    switch (format) {
    case TV_JPEG:
        rc = vips_jpegsave_buffer(in, out, out_len, "Q", quality, "optimize_coding", TRUE, "strip", strip,
                                  "interlace", interlace ? TRUE : FALSE, NULL);
        break;
    case TV_PNG:
        rc = vips_pngsave_buffer(in, out, out_len, "compression", 6, "strip", strip, "interlace", interlace ? TRUE : FALSE, NULL);
        break;
    case TV_WEBP:
        rc = vips_webpsave_buffer(in, out, out_len, "Q", quality, "strip", strip, NULL);
        break;
    case TV_AVIF:
        /* effort (output.avif_effort, default 1: libaom's speed 8) trades CPU for bytes. */
        rc = vips_heifsave_buffer(in, out, out_len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                  "effort", effort, "strip", strip, NULL);
        break;
    case TV_JXL:
        /* effort 4 of 1-9: libjxl's default (7) takes several times as long for thumbnails. */
        rc = vips_jxlsave_buffer(in, out, out_len, "Q", quality, "effort", 4, "strip", strip, NULL);
        break;
    case TV_GIF:
        rc = vips_gifsave_buffer(in, out, out_len, "strip", strip, NULL);
        break;
    case TV_HEIC:
        rc = vips_heifsave_buffer(in, out, out_len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, "strip", strip, NULL);
        break;
    case TV_TIFF:
        /* An image with a page height becomes a multi-page TIFF. */
        rc = vips_tiffsave_buffer(in, out, out_len, "strip", strip, NULL);
        break;
    default:
        rc = -1;
    }
    if (bare) g_object_unref(bare);
    return rc ? fail(err) : 0;
}

int tv_width(VipsImage *in) { return vips_image_get_width(in); }
int tv_height(VipsImage *in) { return vips_image_get_height(in); }
int tv_bands(VipsImage *in) { return vips_image_get_bands(in); }
int tv_has_alpha(VipsImage *in) { return vips_image_hasalpha(in); }

int tv_getpoint(VipsImage *in, int x, int y, double *values, int max, char **err) {
    double *vector = NULL;
    int n = 0;
    if (vips_getpoint(in, &vector, &n, x, y, NULL)) return fail(err);
    int count = n < max ? n : max;
    for (int i = 0; i < count; i++) values[i] = vector[i];
    g_free(vector);
    return count;
}

VipsImage *tv_from_pixels(const uint8_t *pixels, int width, int height, int bands, char **err) {
    VipsImage *out = vips_image_new_from_memory_copy(pixels, (size_t)width * height * bands, width, height, bands,
                                                     VIPS_FORMAT_UCHAR);
    if (!out) return fail_null(err);
    out->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
    return out;
}

VipsImage *tv_as_cmyk(VipsImage *in, char **err) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, "interpretation", VIPS_INTERPRETATION_CMYK, NULL)) return fail_null(err);
    return out;
}

VipsImage *tv_as_16bit(VipsImage *in, char **err) {
    VipsImage *scaled = NULL, *out = NULL;
    if (vips_linear1(in, &scaled, 257.0, 0.0, NULL)) return fail_null(err);
    int rc = vips_cast(scaled, &out, VIPS_FORMAT_USHORT, NULL);
    g_object_unref(scaled);
    if (rc) return fail_null(err);
    out->Type = vips_image_get_bands(out) >= 3 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_GREY16;
    return out;
}

VipsImage *tv_with_orientation(VipsImage *in, int orientation, char **err) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL)) return fail_null(err);
    vips_image_set_int(out, VIPS_META_ORIENTATION, orientation);
    return out;
}

VipsImage *tv_join_pages(VipsImage **pages, int count, int delay_ms, char **err) {
    VipsImage *joined = NULL;
    if (vips_arrayjoin(pages, &joined, count, "across", 1, NULL)) return fail_null(err);
    VipsImage *out = NULL;
    int rc = vips_copy(joined, &out, NULL);
    g_object_unref(joined);
    if (rc) return fail_null(err);
    vips_image_set_int(out, VIPS_META_PAGE_HEIGHT, vips_image_get_height(pages[0]));
    vips_image_set_int(out, VIPS_META_N_PAGES, count);
    int *delays = g_new(int, count);
    for (int i = 0; i < count; i++) delays[i] = delay_ms;
    vips_image_set_array_int(out, "delay", delays, count);
    g_free(delays);
    return out;
}

VipsImage *tv_load(const void *buf, size_t len, char **err) {
    if (refused(buf, len)) return fail_null(err);
    VipsImage *im = vips_image_new_from_buffer(buf, len, "", NULL);
    if (!im) return fail_null(err);
    /* Decode now, while `buf` is certainly alive. */
    VipsImage *copy = vips_image_copy_memory(im);
    g_object_unref(im);
    if (!copy) return fail_null(err);
    return copy;
}

VipsImage *tv_with_profile_and_xmp(VipsImage *in, const char *xmp, char **err) {
    VipsImage *out = NULL;
    if (vips_icc_transform(in, &out, "srgb", "input_profile", "srgb", "embedded", FALSE, NULL)) return fail_null(err);
    if (xmp) {
        size_t len = strlen(xmp);
        void *copy = g_memdup2(xmp, len);
        vips_image_set_blob(out, VIPS_META_XMP_NAME, (VipsCallbackFn)g_free, copy, len);
    }
    return out;
}

void tv_unref(VipsImage *in) {
    if (in) g_object_unref(in);
}

void tv_free(void *p) { g_free(p); }

int tv_draw_vector(const void *buf, size_t len, int page, double scale, unsigned long long max_pixels, void **out,
                   size_t *out_len, int *width, int *height, char **err) {
    *out = NULL;
    *out_len = 0;
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (!is_vector_loader(loader)) {
        vips_error("thumbd", "%s", "not an SVG or PDF document");
        fail(err);
        return -2;
    }
    char options[96];
    if (strstr(loader, "Pdf")) g_snprintf(options, sizeof options, "page=%d,scale=%.9g", page, scale);
    else g_snprintf(options, sizeof options, "scale=%.9g", scale);
    VipsImage *im = vips_image_new_from_buffer(buf, len, options, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!im) return fail(err);
    *width = vips_image_get_width(im);
    *height = vips_image_get_height(im);
    if (max_pixels && (unsigned long long)*width * (unsigned long long)*height > max_pixels) {
        g_object_unref(im);
        return -3;
    }
    VipsImage *srgb = NULL, *pixels = NULL;
    int rc = vips_colourspace(im, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    if (!rc) rc = vips_cast_uchar(srgb, &pixels, NULL);
    if (!rc) rc = vips_tiffsave_buffer(pixels, out, out_len, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_NONE, "strip", TRUE, NULL);
    g_object_unref(im);
    if (srgb) g_object_unref(srgb);
    if (pixels) g_object_unref(pixels);
    return rc ? fail(err) : 0;
}

int tv_luma(VipsImage *in, uint8_t **luma, int *width, int *height, char **err) {
    size_t size = 0;
    VipsImage *srgb = tv_to_srgb(in, err);
    if (!srgb) return -1;
    uint8_t *pixels = vips_image_write_to_memory(srgb, &size);
    int w = vips_image_get_width(srgb), h = vips_image_get_height(srgb), bands = vips_image_get_bands(srgb);
    g_object_unref(srgb);
    if (!pixels) return fail(err);
    uint8_t *out = g_malloc((size_t)w * h);
    size_t n = (size_t)w * h;
    if (bands >= 3) {
        /* Rec. 601 weights in fixed point, rounded: what JPEG's own Y is. */
        for (size_t i = 0; i < n; i++) {
            const uint8_t *p = pixels + i * bands;
            out[i] = (uint8_t)((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 32768u) >> 16);
        }
    } else {
        for (size_t i = 0; i < n; i++) out[i] = pixels[i * bands];
    }
    g_free(pixels);
    *luma = out;
    *width = w;
    *height = h;
    return 0;
}
