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
#include "vipsshim.h"

/* Recursive: liborc may compile or free again from inside either call. */
static pthread_mutex_t orc_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static atomic_long guarded_calls;

typedef int (*orc_compile_fn)(void *program);
typedef void (*orc_free_fn)(void *program);

/* The liborc definition behind ours; NULL when liborc is not loaded (never called then). */
static void *next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }

int orc_program_compile(void *program) {
    static _Atomic(orc_compile_fn) real;
    orc_compile_fn call = atomic_load(&real);
    if (!call) {
        call = (orc_compile_fn)next_symbol("orc_program_compile");
        atomic_store(&real, call);
    }
    pthread_mutex_lock(&orc_lock);
    int result = call(program);
    pthread_mutex_unlock(&orc_lock);
    atomic_fetch_add(&guarded_calls, 1);
    return result;
}

void orc_program_free(void *program) {
    static _Atomic(orc_free_fn) real;
    orc_free_fn call = atomic_load(&real);
    if (!call) {
        call = (orc_free_fn)next_symbol("orc_program_free");
        atomic_store(&real, call);
    }
    pthread_mutex_lock(&orc_lock);
    call(program);
    pthread_mutex_unlock(&orc_lock);
    atomic_fetch_add(&guarded_calls, 1);
}

int tv_orc_guarded(void) {
    /* What libvips' calls resolve to: ours only if the executable exports them. */
    return dlsym(RTLD_DEFAULT, "orc_program_compile") == (void *)orc_program_compile
        && dlsym(RTLD_DEFAULT, "orc_program_free") == (void *)orc_program_free;
}

long tv_orc_guarded_calls(void) { return atomic_load(&guarded_calls); }
