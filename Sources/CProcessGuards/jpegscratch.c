/* libjpeg takes its large buffers through jpeg_get_large and jpeg_free_large (jmemnobs.c:
 * malloc and free), called through its PLT, so the executable's definitions below come first
 * (Package.swift exports them). A progressive JPEG's decoder holds every coefficient of the
 * image at once: 2 bytes per sample, 54 MB for a 5640 x 3172 photo at 4:2:0, zeroed before
 * the first scan. thumbd's fixed malloc mmap threshold (1 MiB, for a flat RSS) gave each such
 * buffer fresh pages, so every decode paid a page fault per 4 KiB and an munmap after: about
 * 5% of a wallpaper miss's CPU (bench/miss_cpu.sh).
 *
 * Buffers of 1 MiB or more are mapped here instead and, when freed, kept for the next decode
 * up to a capacity (`pg_scratch_set_capacity`, from the memory plan's headroom; the oldest
 * are unmapped to make room). A kept buffer serves a request of at least half its size. The
 * app unmaps them all when the transforms go idle (`pg_scratch_release`), so memory at rest
 * stays what it was. Smaller buffers go to malloc as before; libjpeg frees with the size it
 * asked for, so both calls choose alike. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "processguards.h"

/* Room before the pointer handed out: the mapping's length, and libjpeg's alignment kept. */
#define HEADER 64

struct pg_scratch_pool {
    pthread_mutex_t lock;
    size_t capacity;
    size_t kept_bytes;
    void *kept[PG_SCRATCH_SLOTS];
    atomic_long maps, reuses;
};

static pg_scratch_pool shared_pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

pg_scratch_pool *pg_scratch_shared(void) { return &shared_pool; }

pg_scratch_pool *pg_scratch_new(size_t capacity) {
    pg_scratch_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pthread_mutex_init(&pool->lock, NULL);
    pool->capacity = capacity;
    return pool;
}

void pg_scratch_free(pg_scratch_pool *pool) {
    pg_scratch_release(pool);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

static size_t mapping_length(const void *block) { return *(const size_t *)block; }

void *pg_scratch_take(pg_scratch_pool *pool, size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - HEADER - page) return NULL;
    size_t length = (size + HEADER + page - 1) / page * page;
    void *block = NULL;
    pthread_mutex_lock(&pool->lock);
    int best = -1;
    for (int i = 0; i < PG_SCRATCH_SLOTS; i++) {
        if (!pool->kept[i]) continue;
        size_t have = mapping_length(pool->kept[i]);
        /* At most twice what is asked: a buffer held for a small request is room the
           estimates did not count. */
        if (have >= length && have / 2 <= length && (best < 0 || have < mapping_length(pool->kept[best]))) best = i;
    }
    if (best >= 0) {
        block = pool->kept[best];
        memmove(pool->kept + best, pool->kept + best + 1, (PG_SCRATCH_SLOTS - 1 - best) * sizeof *pool->kept);
        pool->kept[PG_SCRATCH_SLOTS - 1] = NULL;
        pool->kept_bytes -= mapping_length(block);
    }
    pthread_mutex_unlock(&pool->lock);
    if (block) {
        atomic_fetch_add(&pool->reuses, 1);
    } else {
        block = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) return NULL;
        *(size_t *)block = length;
        atomic_fetch_add(&pool->maps, 1);
    }
    return (char *)block + HEADER;
}

void pg_scratch_give(pg_scratch_pool *pool, void *object) {
    if (!object) return;
    void *block = (char *)object - HEADER;
    size_t length = mapping_length(block);
    void *evicted[PG_SCRATCH_SLOTS];
    int count = 0;
    pthread_mutex_lock(&pool->lock);
    if (length <= pool->capacity) {
        /* The buffer just freed is the likeliest to be asked for again (the next size of the
           same photo): the oldest kept make room for it. */
        while (pool->kept_bytes + length > pool->capacity || pool->kept[PG_SCRATCH_SLOTS - 1]) {
            void *oldest = pool->kept[0];
            memmove(pool->kept, pool->kept + 1, (PG_SCRATCH_SLOTS - 1) * sizeof *pool->kept);
            pool->kept[PG_SCRATCH_SLOTS - 1] = NULL;
            pool->kept_bytes -= mapping_length(oldest);
            evicted[count++] = oldest;
        }
        for (int i = 0; i < PG_SCRATCH_SLOTS; i++) {
            if (pool->kept[i]) continue;
            pool->kept[i] = block;
            pool->kept_bytes += length;
            block = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < count; i++) munmap(evicted[i], mapping_length(evicted[i]));
    if (block) munmap(block, length);
}

void pg_scratch_release(pg_scratch_pool *pool) {
    void *blocks[PG_SCRATCH_SLOTS];
    int count = 0;
    pthread_mutex_lock(&pool->lock);
    for (int i = 0; i < PG_SCRATCH_SLOTS; i++) {
        if (pool->kept[i]) blocks[count++] = pool->kept[i];
        pool->kept[i] = NULL;
    }
    pool->kept_bytes = 0;
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < count; i++) munmap(blocks[i], mapping_length(blocks[i]));
}

void pg_scratch_set_capacity(pg_scratch_pool *pool, size_t capacity) {
    pthread_mutex_lock(&pool->lock);
    pool->capacity = capacity;
    int over = pool->kept_bytes > capacity;
    pthread_mutex_unlock(&pool->lock);
    if (over) pg_scratch_release(pool);
}

pg_scratch_stats pg_scratch_read_stats(pg_scratch_pool *pool) {
    pg_scratch_stats stats;
    pthread_mutex_lock(&pool->lock);
    stats.capacity = pool->capacity;
    stats.kept_bytes = pool->kept_bytes;
    pthread_mutex_unlock(&pool->lock);
    stats.maps = atomic_load(&pool->maps);
    stats.reuses = atomic_load(&pool->reuses);
    return stats;
}

void *jpeg_get_large(void *cinfo, size_t size) {
    (void)cinfo;
    return size < PG_SCRATCH_MIN_BYTES ? malloc(size) : pg_scratch_take(&shared_pool, size);
}

void jpeg_free_large(void *cinfo, void *object, size_t size) {
    (void)cinfo;
    if (size < PG_SCRATCH_MIN_BYTES) free(object);
    else pg_scratch_give(&shared_pool, object);
}

int pg_scratch_serves_libjpeg(void) {
    /* What libjpeg's calls resolve to: ours only if the executable exports them. */
    return dlsym(RTLD_DEFAULT, "jpeg_get_large") == (void *)jpeg_get_large
        && dlsym(RTLD_DEFAULT, "jpeg_free_large") == (void *)jpeg_free_large;
}
