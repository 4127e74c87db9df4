/* OpenCV's core library needs LAPACK, LAPACK needs libgfortran, and libgfortran needs
 * libquadmath, whose constructor registers printf handlers with glibc (a `Q` modifier and its
 * own f, e, g and a conversions). Once any handler is registered, glibc formats every printf
 * in the process on its slow, positional path. libvips writes out each orc program it compiles
 * with sprintf, a few for every resize: about 0.16 ms of each thumbnail of a small image went
 * there.
 *
 * Nothing in thumbd prints a __float128. These three stand in front of glibc's (the executable
 * is searched first, and Package.swift exports them to the dynamic symbol table) and refuse
 * every registration, as glibc does when its tables are full; libquadmath then leaves printf
 * alone (its own quadmath_snprintf needs no hook). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <printf.h>
#include <stdatomic.h>
#include "processguards.h"

static atomic_int refused;

int register_printf_specifier(int spec, printf_function *render, printf_arginfo_size_function *arginfo) {
    (void)spec, (void)render, (void)arginfo;
    atomic_fetch_add(&refused, 1);
    return -1;
}

int register_printf_modifier(const wchar_t *modifier) {
    (void)modifier;
    atomic_fetch_add(&refused, 1);
    return -1;
}

int register_printf_type(printf_va_arg_function *fetch) {
    (void)fetch;
    atomic_fetch_add(&refused, 1);
    return -1;
}

int pg_printf_hooks_refused(void) { return atomic_load(&refused); }

int pg_printf_hooks_refusing(void) {
    /* What libquadmath's calls resolve to: ours only if the executable exports all three. */
    return dlsym(RTLD_DEFAULT, "register_printf_specifier") == (void *)register_printf_specifier
        && dlsym(RTLD_DEFAULT, "register_printf_modifier") == (void *)register_printf_modifier
        && dlsym(RTLD_DEFAULT, "register_printf_type") == (void *)register_printf_type;
}
