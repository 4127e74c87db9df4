#ifndef THUMBD_VIDEOSHIM_H
#define THUMBD_VIDEOSHIM_H

#include <stddef.h>
#include <stdint.h>

/* FFmpeg's libraries behind a C interface of our own: what a video is (probe) and one frame of
 * it as RGB (frame), read through a custom AVIOContext from a reader the caller gives (bytes in
 * memory, a file, ranged GETs), so nothing but those bytes is ever opened, and only the parts
 * FFmpeg asks for are read. Single-threaded decoding; every call bounded by the limits. */

typedef struct {
    void *opaque;
    /* Copies up to `size` bytes from `offset` into `buffer`: how many (0 only at the end), or -1
     * when they cannot be read. */
    int (*read_at)(void *opaque, int64_t offset, unsigned char *buffer, int size);
    int64_t length;
} vd_reader;

typedef struct {
    double duration;        /* seconds; -1 when the container does not say */
    int width, height;      /* as coded, before rotation */
    int rotation;           /* clockwise degrees to display it upright: 0, 90, 180 or 270 */
    double frame_rate;      /* average frames a second; 0 when unknown */
    char codec[32];         /* FFmpeg's short name: h264, hevc, vp9, av1, ... */
    char container[64];     /* FFmpeg's demuxer name: "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm" */
} vd_info;

typedef struct {
    long long max_pixels;       /* width x height of the coded frame */
    int max_decoded_frames;     /* frames decoded from the keyframe on before giving up */
    long long max_packets;      /* packets read in all (an endless stream stops here) */
    double max_duration;        /* seconds the container may say it lasts; 0: any */
    double max_seconds;         /* wall-clock seconds for the whole call; 0: no bound */
} vd_limits;

typedef enum {
    VD_OK = 0,
    VD_NOT_VIDEO = 1,     /* no container FFmpeg reads, or no video stream */
    VD_UNSUPPORTED = 2,   /* a codec without a decoder here */
    VD_TOO_LARGE = 3,     /* over max_pixels */
    VD_BROKEN = 4,        /* no frame could be decoded within the limits */
    VD_NO_MEMORY = 5,
    VD_TOO_LONG = 6,      /* over max_duration */
    VD_TIMED_OUT = 7,     /* over max_seconds */
    VD_READ_FAILED = 8    /* the reader failed (a store down, a file gone) */
} vd_status;

/* What a video is. `limits` (NULL: none): max_pixels for the frames the stream probe decodes
 * (and a stream over it, or without a frame size, is refused), max_seconds for the whole call. */
vd_status vd_probe(const vd_reader *reader, const vd_limits *limits, vd_info *info,
                               char *message, size_t message_size);

/* The frame shown at `seconds` (the one at or before it, decoded forward from the keyframe at
 * or before it; the last one when `seconds` is past the end), as packed RGB (3 bytes a pixel,
 * width x 3 a row), malloc'd into *rgb (vd_free), as coded (rotation is the caller's).
 * With `fraction` >= 0, the time is that fraction of the duration instead. *shown_at is its
 * time in seconds; *info what the video is (as vd_probe gives it). */
vd_status vd_frame(const vd_reader *reader, double seconds, double fraction,
                               const vd_limits *limits, vd_info *info, unsigned char **rgb,
                               int *width, int *height, double *shown_at, char *message, size_t message_size);

void vd_free(unsigned char *rgb);

#endif
