/* liborc 0.4.33 (Debian 12, under libvips 8.14) keeps its executable code in chunks of a
 * shared list and hands them out and merges them back without a lock: it takes its global
 * mutex only to find a free chunk, then splits and marks it after unlocking, and frees with
 * no lock at all. libvips compiles an orc program when it builds a resample or convolution
 * and frees it when the operation goes, on whichever thread does so, so two transforms at
 * once can get the same chunk (one runs the other's code: a wrong image) or corrupt the list
 * (a crash; a bare C loop over libvips on 4 threads dies within seconds on tiny images).
 *
 * These two definitions stand in front of liborc's (the executable is searched first, and
 * Package.swift exports them to the dynamic symbol table) and run each compile and free under
 * one lock; every other orc call only reads a compiled program or its own memory. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include "processguards.h"

/* Recursive: liborc may compile or free again from inside either call. */
static pthread_mutex_t orc_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static atomic_long guarded_calls;

/* liborc's definitions behind ours, found once; NULL when liborc is not loaded (never called
 * then). */
static int (*next_compile)(void *program);
static void (*next_free)(void *program);
static pthread_once_t next_found = PTHREAD_ONCE_INIT;

static void find_next(void) {
    next_compile = (int (*)(void *))dlsym(RTLD_NEXT, "orc_program_compile");
    next_free = (void (*)(void *))dlsym(RTLD_NEXT, "orc_program_free");
}

int orc_program_compile(void *program) {
    pthread_once(&next_found, find_next);
    pthread_mutex_lock(&orc_lock);
    int result = next_compile(program);
    pthread_mutex_unlock(&orc_lock);
    atomic_fetch_add(&guarded_calls, 1);
    return result;
}

void orc_program_free(void *program) {
    pthread_once(&next_found, find_next);
    pthread_mutex_lock(&orc_lock);
    next_free(program);
    pthread_mutex_unlock(&orc_lock);
    atomic_fetch_add(&guarded_calls, 1);
}

int pg_orc_guarded(void) {
    /* What libvips' calls resolve to: ours only if the executable exports them. */
    return dlsym(RTLD_DEFAULT, "orc_program_compile") == (void *)orc_program_compile
        && dlsym(RTLD_DEFAULT, "orc_program_free") == (void *)orc_program_free;
}

long pg_orc_guarded_calls(void) { return atomic_load(&guarded_calls); }
