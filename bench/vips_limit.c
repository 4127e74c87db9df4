/* The compute limit for thumbnails on this machine: libvips called directly, in-process,
 * on T threads (libvips concurrency 1 each, as in thumbd), over the same files and sizes.
 * usage: vips_limit THREADS PASSES FILE... ; prints "thumbnails seconds cpu-seconds" (the CPU of
 * the work alone, files already read). */
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vips/vips.h>

static const int sizes[][2] = { {150, 150}, {300, 300}, {300, 200}, {640, 480} };
typedef struct { void *buf; size_t len; } source_t;
static source_t *sources;
static int nsources, passes, nthreads;
static int failures;

static void *work(void *arg) {
    long id = (long)arg;
    int total = nsources * 4 * passes;
    for (int job = (int)id; job < total; job += nthreads) {
        int pass = job / (nsources * 4), rest = job % (nsources * 4);
        source_t *s = &sources[rest / 4];
        const int *size = sizes[rest % 4];
        VipsImage *t = NULL;
        void *out = NULL;
        size_t len = 0;
        if (vips_thumbnail_buffer(s->buf, s->len, &t, size[0] + pass, "height", size[1] + pass,
                                  "crop", VIPS_INTERESTING_CENTRE, NULL) ||
            vips_jpegsave_buffer(t, &out, &len, "Q", 80, "optimize_coding", TRUE, "strip", TRUE, NULL))
            __sync_fetch_and_add(&failures, 1);
        if (t) g_object_unref(t);
        g_free(out);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4 || VIPS_INIT(argv[0])) return 2;
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    nthreads = atoi(argv[1]);
    passes = atoi(argv[2]);
    nsources = argc - 3;
    sources = calloc(nsources, sizeof *sources);
    for (int i = 0; i < nsources; i++)
        if (!g_file_get_contents(argv[i + 3], (gchar **)&sources[i].buf, &sources[i].len, NULL)) return 2;
    struct timespec a, b;
    struct rusage ra, rb;
    getrusage(RUSAGE_SELF, &ra);
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_t threads[64];
    for (long t = 0; t < nthreads; t++) pthread_create(&threads[t], NULL, work, (void *)t);
    for (int t = 0; t < nthreads; t++) pthread_join(threads[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    getrusage(RUSAGE_SELF, &rb);
    double cpu = (rb.ru_utime.tv_sec - ra.ru_utime.tv_sec) + (rb.ru_utime.tv_usec - ra.ru_utime.tv_usec) / 1e6
               + (rb.ru_stime.tv_sec - ra.ru_stime.tv_sec) + (rb.ru_stime.tv_usec - ra.ru_stime.tv_usec) / 1e6;
    printf("%d %.3f %.3f\n", nsources * 4 * passes - failures, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, cpu);
    return failures ? 1 : 0;
}
