/* The sources of bench/working_memory.sh, written from one photograph with libvips: the
 * photo resized to exactly WIDTH x HEIGHT in every input format thumbd reads, and two
 * animations of FRAMES frames (GIF and WebP) made of shifted crops of it.
 *   working_memory_sources PHOTO OUTDIR WIDTH HEIGHT FRAMES */
#include <stdio.h>
#include <stdlib.h>
#include <vips/vips.h>

static void die(const char *what) {
    fprintf(stderr, "%s: %s\n", what, vips_error_buffer());
    exit(1);
}

static void save(VipsImage *image, const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (vips_image_write_to_file(image, path, NULL)) die(path);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s PHOTO OUTDIR WIDTH HEIGHT FRAMES\n", argv[0]);
        return 2;
    }
    if (VIPS_INIT(argv[0])) die("vips_init");
    const char *dir = argv[2];
    int width = atoi(argv[3]), height = atoi(argv[4]), frames = atoi(argv[5]);
    VipsImage *photo, *srgb, *rgb;
    if (vips_thumbnail(argv[1], &photo, width, "height", height, "size", VIPS_SIZE_FORCE, NULL)) die("thumbnail");
    if (vips_colourspace(photo, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) die("srgb");
    /* In memory: every format below reads it again. */
    if (!(rgb = vips_image_copy_memory(srgb))) die("copy_memory");
    save(rgb, dir, "photo.jpg[Q=90]");
    save(rgb, dir, "progressive.jpg[Q=90,interlace]");
    save(rgb, dir, "photo.png");
    save(rgb, dir, "interlaced.png[interlace]");
    save(rgb, dir, "photo.webp[Q=90]");
    save(rgb, dir, "photo.avif[Q=70,compression=av1,effort=0]");
    save(rgb, dir, "photo.heic[Q=70,compression=hevc]");
    save(rgb, dir, "photo.jxl[Q=90,effort=3]");
    save(rgb, dir, "photo.tif[compression=jpeg]");
    save(rgb, dir, "photo.gif");

    /* Frames of a quarter of the photo each, shifted along the diagonal. */
    int fw = width / 4, fh = height / 4;
    VipsImage **parts = g_new0(VipsImage *, frames);
    for (int i = 0; i < frames; i++) {
        int left = (width - fw) * i / (frames > 1 ? frames - 1 : 1), top = (height - fh) * i / (frames > 1 ? frames - 1 : 1);
        if (vips_extract_area(rgb, &parts[i], left, top, fw, fh, NULL)) die("extract");
    }
    VipsImage *strip, *animation;
    if (vips_arrayjoin(parts, &strip, frames, "across", 1, NULL)) die("arrayjoin");
    if (vips_copy(strip, &animation, NULL)) die("copy");
    vips_image_set_int(animation, "page-height", fh);
    int *delays = g_new(int, frames);
    for (int i = 0; i < frames; i++) delays[i] = 80;
    vips_image_set_array_int(animation, "delay", delays, frames);
    save(animation, dir, "animation.gif");
    save(animation, dir, "animation.webp[Q=80]");
    printf("%d x %d photo in 10 formats, %d frames of %d x %d\n", width, height, frames, fw, fh);
    return 0;
}
