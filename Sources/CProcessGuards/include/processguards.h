#ifndef THUMBD_PROCESSGUARDS_H
#define THUMBD_PROCESSGUARDS_H

/* Stand-ins for functions the libraries under thumbd look up process-wide: defined here, in
 * the executable (Package.swift exports them to its dynamic symbol table, one linker block),
 * they come before the libraries' own. Each file says why it stands in front of what. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* orcguard.c: whether liborc's program compile and free go through the guard's lock: 1 when
 * the executable exports its stand-ins. */
int pg_orc_guarded(void);
/* Compiles and frees of orc programs made through that lock so far. */
long pg_orc_guarded_calls(void);

/* jpegscratch.c: libjpeg's large buffers, mapped apart from malloc and kept between decodes
 * up to a capacity. A pool of its own for tests; libjpeg uses the shared one. */
#define PG_SCRATCH_MIN_BYTES ((size_t)1 << 20)
#define PG_SCRATCH_SLOTS 16
typedef struct pg_scratch_pool pg_scratch_pool;
typedef struct { size_t capacity, kept_bytes; long maps, reuses; } pg_scratch_stats;
pg_scratch_pool *pg_scratch_shared(void);
pg_scratch_pool *pg_scratch_new(size_t capacity);
void pg_scratch_free(pg_scratch_pool *pool);
void *pg_scratch_take(pg_scratch_pool *pool, size_t size);
void pg_scratch_give(pg_scratch_pool *pool, void *object);
/* Unmaps every kept buffer. */
void pg_scratch_release(pg_scratch_pool *pool);
void pg_scratch_set_capacity(pg_scratch_pool *pool, size_t capacity);
pg_scratch_stats pg_scratch_read_stats(pg_scratch_pool *pool);
/* 1 when libjpeg's jpeg_get_large and jpeg_free_large resolve to the stand-ins. */
int pg_scratch_serves_libjpeg(void);

/* printfhooks.c: how many printf handler registrations the process refused (libquadmath,
 * loaded under OpenCV, tries a few at start). */
int pg_printf_hooks_refused(void);
/* Whether the process resolves the three registration functions to those stand-ins. */
int pg_printf_hooks_refusing(void);

#ifdef __cplusplus
}
#endif

#endif
