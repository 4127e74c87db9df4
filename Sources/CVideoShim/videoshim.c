#include "videoshim.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Where an AVIOContext reads: the caller's reader and a position in it. */
typedef struct {
    const vd_reader *reader;
    int64_t position;
    int failed;
    /* Past it (monotonic seconds), reads and seeks fail: FFmpeg never asks the interrupt
     * callback of a custom AVIOContext, and a container's parse or seek may read for long. */
    double deadline;
} reader_source;

static double monotonic_seconds(void);

static int read_source(void *opaque, uint8_t *buffer, int size) {
    reader_source *r = opaque;
    if (r->deadline > 0 && monotonic_seconds() > r->deadline) return AVERROR_EXIT;
    if (r->position >= r->reader->length) return AVERROR_EOF;
    int64_t left = r->reader->length - r->position;
    if (left < size) size = (int)left;
    int n = r->reader->read_at(r->reader->opaque, r->position, buffer, size);
    if (n < 0) {
        r->failed = 1;
        return AVERROR(EIO);
    }
    if (n == 0) return AVERROR_EOF;
    r->position += n;
    return n;
}

static int64_t seek_source(void *opaque, int64_t offset, int whence) {
    reader_source *r = opaque;
    if (whence & AVSEEK_SIZE) return r->reader->length;
    if (r->deadline > 0 && monotonic_seconds() > r->deadline) return AVERROR_EXIT;
    int64_t base = 0;
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = r->position; break;
    case SEEK_END: base = r->reader->length; break;
    default: return -1;
    }
    int64_t target = base + offset;
    if (target < 0 || target > r->reader->length) return -1;
    r->position = target;
    return target;
}

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* An open input: the container, its video stream and a decoder for it. */
typedef struct {
    reader_source source;
    /* Past it (monotonic seconds), FFmpeg's blocking calls are interrupted; 0: never. */
    double deadline;
    /* Decoders (the stream-info probe's too) refuse frames of more pixels; 0: any. */
    long long max_pixels;
    AVIOContext *io;
    AVFormatContext *format;
    AVCodecContext *decoder;
    int stream;
} video_input;

static void say(char *message, size_t size, const char *what, int error) {
    if (!message || !size) return;
    if (error) {
        char text[AV_ERROR_MAX_STRING_SIZE] = { 0 };
        av_strerror(error, text, sizeof text);
        snprintf(message, size, "%s: %s", what, text);
    } else {
        snprintf(message, size, "%s", what);
    }
}

static void close_input(video_input *in) {
    if (in->decoder) avcodec_free_context(&in->decoder);
    if (in->format) avformat_close_input(&in->format);
    if (in->io) {
        av_freep(&in->io->buffer);
        avio_context_free(&in->io);
    }
}

static int past_deadline(void *opaque) {
    const video_input *in = opaque;
    return in->deadline > 0 && monotonic_seconds() > in->deadline;
}

/* Why opening or reading failed, once the reader and the clock have had their say. */
static vd_status failure(const video_input *in, vd_status otherwise, char *message, size_t message_size) {
    if (in->source.failed) {
        say(message, message_size, "the video's bytes could not be read", 0);
        return VD_READ_FAILED;
    }
    if (past_deadline((void *)in)) {
        say(message, message_size, "the video took longer than its time limit to decode", 0);
        return VD_TIMED_OUT;
    }
    return otherwise;
}

static void quiet_log(void) { av_log_set_level(AV_LOG_QUIET); }

/* Opens the container and finds its video stream; with `decode`, opens a decoder for it.
 * `limits` (NULL: none) bound its time and the frames any decoder may make. */
static vd_status open_input(video_input *in, const vd_reader *reader, const vd_limits *limits, int decode,
                                  char *message, size_t message_size) {
    /* FFmpeg's own log goes to stderr: the server's log is ours, and problems carry the detail. */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, quiet_log);
    memset(in, 0, sizeof *in);
    double max_seconds = limits ? limits->max_seconds : 0;
    in->deadline = max_seconds > 0 ? monotonic_seconds() + max_seconds : 0;
    in->max_pixels = limits ? limits->max_pixels : 0;
    in->source = (reader_source){ reader, 0, 0, in->deadline };
    in->stream = -1;
    const int buffer_size = 64 * 1024;
    unsigned char *buffer = av_malloc(buffer_size);
    if (!buffer) return VD_NO_MEMORY;
    in->io = avio_alloc_context(buffer, buffer_size, 0, &in->source, read_source, NULL, seek_source);
    if (!in->io) {
        av_free(buffer);
        return VD_NO_MEMORY;
    }
    in->format = avformat_alloc_context();
    if (!in->format) return VD_NO_MEMORY;
    in->format->pb = in->io;
    in->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    in->format->interrupt_callback = (AVIOInterruptCB){ past_deadline, in };
    /* Only what the bytes are: no protocol may be opened from inside a file (HLS, concat). */
    in->format->protocol_whitelist = av_strdup("");
    int rc = avformat_open_input(&in->format, NULL, NULL, NULL);
    if (rc < 0) {
        in->format = NULL;  /* freed by avformat_open_input on failure */
        say(message, message_size, "not a video container FFmpeg reads", rc);
        return failure(in, VD_NOT_VIDEO, message, message_size);
    }
    in->format->probesize = 5 * 1024 * 1024;
    in->format->max_analyze_duration = 5 * AV_TIME_BASE;
    /* The probe decodes a few frames of each stream: one thread, within the pixel limit. */
    unsigned streams = in->format->nb_streams;
    AVDictionary **options = streams ? av_calloc(streams, sizeof *options) : NULL;
    if (streams && !options) return VD_NO_MEMORY;
    for (unsigned i = 0; i < streams; i++) {
        av_dict_set(&options[i], "threads", "1", 0);
        if (in->max_pixels > 0) av_dict_set_int(&options[i], "max_pixels", in->max_pixels, 0);
    }
    rc = avformat_find_stream_info(in->format, options);
    for (unsigned i = 0; i < streams; i++) av_dict_free(&options[i]);
    av_free(options);
    if (rc < 0) {
        say(message, message_size, "the container's streams cannot be read", rc);
        return failure(in, VD_BROKEN, message, message_size);
    }
    const AVCodec *codec = NULL;
    in->stream = av_find_best_stream(in->format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (in->stream == AVERROR_DECODER_NOT_FOUND) {
        say(message, message_size, "no decoder for the video's codec", 0);
        return VD_UNSUPPORTED;
    }
    if (in->stream < 0) {
        say(message, message_size, "no video stream", 0);
        return VD_NOT_VIDEO;
    }
    const AVCodecParameters *coded = in->format->streams[in->stream]->codecpar;
    /* Bounded calls (every frame, the service's probe) need a size to reserve memory by. */
    if (limits && (coded->width <= 0 || coded->height <= 0)) {
        say(message, message_size, "the video's stream has no frame size", 0);
        return VD_BROKEN;
    }
    if (in->max_pixels > 0 && (long long)coded->width * coded->height > in->max_pixels) {
        say(message, message_size, "the video's frames are over the pixel limit", 0);
        return VD_TOO_LARGE;
    }
    if (!decode) return VD_OK;
    in->decoder = avcodec_alloc_context3(codec);
    if (!in->decoder) return VD_NO_MEMORY;
    rc = avcodec_parameters_to_context(in->decoder, in->format->streams[in->stream]->codecpar);
    if (rc < 0) {
        say(message, message_size, "the video's codec parameters cannot be used", rc);
        return VD_BROKEN;
    }
    in->decoder->thread_count = 1;
    if (in->max_pixels > 0) in->decoder->max_pixels = in->max_pixels;
    rc = avcodec_open2(in->decoder, codec, NULL);
    if (rc < 0) {
        /* A decoder exists (else no stream was found for it): what it was given is corrupt. */
        say(message, message_size, "the video's decoder cannot start", rc);
        return VD_BROKEN;
    }
    return VD_OK;
}

static int rotation_of(const AVStream *stream) {
    const uint8_t *matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!matrix) return 0;
    /* av_display_rotation_get: counter-clockwise degrees; upright needs the opposite turn. */
    double angle = -av_display_rotation_get((const int32_t *)matrix);
    if (isnan(angle)) return 0;
    int degrees = (int)lround(angle / 90.0) * 90 % 360;
    return degrees < 0 ? degrees + 360 : degrees;
}

static void describe(const video_input *in, vd_info *info) {
    if (in->stream >= 0) {
        const AVStream *stream = in->format->streams[in->stream];
        info->width = stream->codecpar->width;
        info->height = stream->codecpar->height;
        info->rotation = rotation_of(stream);
        AVRational rate = stream->avg_frame_rate.num ? stream->avg_frame_rate : stream->r_frame_rate;
        info->frame_rate = rate.num && rate.den ? av_q2d(rate) : 0;
        snprintf(info->codec, sizeof info->codec, "%s", avcodec_get_name(stream->codecpar->codec_id));
    }
    if (in->format) {
        info->duration = in->format->duration != AV_NOPTS_VALUE ? in->format->duration / (double)AV_TIME_BASE : -1;
        snprintf(info->container, sizeof info->container, "%s", in->format->iformat->name);
    }
}

vd_status vd_probe(const vd_reader *reader, const vd_limits *limits, vd_info *info,
                               char *message, size_t message_size) {
    memset(info, 0, sizeof *info);
    video_input in;
    vd_status status = open_input(&in, reader, limits, 0, message, message_size);
    if (status == VD_OK || status == VD_UNSUPPORTED) describe(&in, info);
    close_input(&in);
    return status;
}

/* Decodes the next frame of the stream into `frame`: 0, AVERROR_EOF at the end, another error. */
static int next_frame(video_input *in, AVPacket *packet, AVFrame *frame, long long *packets, long long max_packets,
                      int *draining) {
    if (past_deadline(in)) return AVERROR_EXIT;
    for (;;) {
        int rc = avcodec_receive_frame(in->decoder, frame);
        if (rc != AVERROR(EAGAIN)) return rc;
        if (*draining) return AVERROR_EOF;
        for (;;) {
            if (++*packets > max_packets) return AVERROR(E2BIG);
            if (past_deadline(in)) return AVERROR_EXIT;
            rc = av_read_frame(in->format, packet);
            if (rc < 0) {
                *draining = 1;
                avcodec_send_packet(in->decoder, NULL);
                break;
            }
            if (packet->stream_index != in->stream) {
                av_packet_unref(packet);
                continue;
            }
            rc = avcodec_send_packet(in->decoder, packet);
            av_packet_unref(packet);
            if (rc < 0 && rc != AVERROR(EAGAIN) && rc != AVERROR_INVALIDDATA) return rc;
            break;
        }
    }
}

static double seconds_of(const AVFrame *frame, const AVStream *stream) {
    int64_t pts = frame->best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE) return -1;
    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    return (pts - start) * av_q2d(stream->time_base);
}

vd_status vd_frame(const vd_reader *reader, double seconds, double fraction,
                               const vd_limits *limits, vd_info *info, unsigned char **rgb,
                               int *width, int *height, double *shown_at, char *message, size_t message_size) {
    *rgb = NULL;
    *width = *height = 0;
    *shown_at = -1;
    memset(info, 0, sizeof *info);
    video_input in;
    vd_status status = open_input(&in, reader, limits, 1, message, message_size);
    if (status != VD_OK) {
        close_input(&in);
        return status;
    }
    describe(&in, info);
    if (limits->max_duration > 0 && info->duration > limits->max_duration) {
        if (message && message_size)
            snprintf(message, message_size, "the video lasts %.1f s, over the limit of %.0f s", info->duration, limits->max_duration);
        close_input(&in);
        return VD_TOO_LONG;
    }
    AVStream *stream = in.format->streams[in.stream];
    if (fraction >= 0) seconds = info->duration > 0 ? fraction * info->duration : 0;
    if (seconds < 0) seconds = 0;
    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    int64_t target = start + (int64_t)llround(seconds / av_q2d(stream->time_base));
    if (seconds > 0) {
        /* The keyframe at or before the time; a container without an index reads from the start. */
        if (av_seek_frame(in.format, in.stream, target, AVSEEK_FLAG_BACKWARD) >= 0) avcodec_flush_buffers(in.decoder);
    }
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc(), *kept = av_frame_alloc();
    if (!packet || !frame || !kept) {
        status = VD_NO_MEMORY;
        goto done;
    }
    long long packets = 0;
    int draining = 0, decoded = 0, have = 0;
    for (;;) {
        int rc = next_frame(&in, packet, frame, &packets, limits->max_packets, &draining);
        if (rc < 0) break;
        decoded++;
        double at = seconds_of(frame, stream);
        if (have && at >= 0 && at > seconds + 1e-6) {
            av_frame_unref(frame);
            break;  /* the frame kept is the one shown at `seconds` */
        }
        av_frame_unref(kept);
        av_frame_move_ref(kept, frame);
        have = 1;
        *shown_at = at;
        if (at >= 0 && fabs(at - seconds) < 1e-6) break;
        if (decoded >= limits->max_decoded_frames || past_deadline(&in)) break;
    }
    if (in.source.failed || past_deadline(&in)) {
        status = failure(&in, VD_BROKEN, message, message_size);
        goto done;
    }
    if (!have) {
        say(message, message_size, "no frame of the video could be decoded", 0);
        status = VD_BROKEN;
        goto done;
    }
    if ((long long)kept->width * kept->height > limits->max_pixels || kept->width <= 0 || kept->height <= 0) {
        say(message, message_size, "the decoded frame is over the pixel limit", 0);
        status = VD_TOO_LARGE;
        goto done;
    }
    struct SwsContext *scale = sws_getContext(kept->width, kept->height, kept->format, kept->width, kept->height,
                                              AV_PIX_FMT_RGB24, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
    if (!scale) {
        say(message, message_size, "the frame's pixel format cannot be converted", 0);
        status = VD_UNSUPPORTED;
        goto done;
    }
    size_t stride = (size_t)kept->width * 3;
    unsigned char *out = malloc(stride * (size_t)kept->height);
    if (!out) {
        sws_freeContext(scale);
        status = VD_NO_MEMORY;
        goto done;
    }
    uint8_t *planes[4] = { out, NULL, NULL, NULL };
    int strides[4] = { (int)stride, 0, 0, 0 };
    sws_scale(scale, (const uint8_t *const *)kept->data, kept->linesize, 0, kept->height, planes, strides);
    sws_freeContext(scale);
    *rgb = out;
    *width = kept->width;
    *height = kept->height;
    status = VD_OK;
done:
    av_packet_free(&packet);
    av_frame_free(&frame);
    av_frame_free(&kept);
    close_input(&in);
    return status;
}

void vd_free(unsigned char *rgb) { free(rgb); }
