#define _GNU_SOURCE
#include "csystem.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int csys_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int csys_spawn(const char *path, char *const argv[], int stdin_fd, int stdout_fd, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    /* Nothing else of the server's (sockets, files, other renderers' pipes) reaches it. */
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    /* No signal blocked or ignored in it: the spawning thread may block some (a mask survives
       exec), and SIGXCPU, which ends a renderer past its CPU time, must arrive. */
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(pid, path, &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

int csys_reap(pid_t pid, int block, int *status, int *signal) {
    int how = 0;
    pid_t done;
    do {
        done = waitpid(pid, &how, block ? 0 : WNOHANG);
    } while (done < 0 && errno == EINTR);
    if (done < 0) return -1;
    if (done == 0) return 0;
    *status = WIFEXITED(how) ? WEXITSTATUS(how) : 0;
    *signal = WIFSIGNALED(how) ? WTERMSIG(how) : 0;
    return 1;
}

int csys_wait_readable(int fd, int timeout_ms) {
    struct pollfd p = { fd, POLLIN, 0 };
    int n = poll(&p, 1, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -1;
    return n > 0 ? 1 : 0;
}

void csys_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

void csys_child_defaults(void) {
    /* What the libraries print about a document (poppler's syntax errors, librsvg's warnings)
       is no line of the server's log: a hostile document could fill it. */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 2);
        close(null);
    }
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    setrlimit(RLIMIT_FSIZE, &none);
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)!write(fd, "1000", 4);
        close(fd);
    }
    mallopt(M_ARENA_MAX, 1);
}

#if defined(__x86_64__)
#define CSYS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CSYS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* A small BPF program builder: jumps to the three verdicts are patched once they are placed. */
typedef struct {
    struct sock_filter code[128];
    int count;
    int to_deny[64], denies;
    int to_allow[64], allows;
} program;

static void emit(program *p, struct sock_filter f) { p->code[p->count++] = f; }

/* If the accumulator equals nr, refuse. */
static void deny_if(program *p, long nr) {
    p->to_deny[p->denies++] = p->count;
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 0));
}

static void load_nr(program *p) {
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

/* If the syscall is nr and its argument `arg` has any of `bits` set (or, with `allow_if_set`,
   none of them), refuse; the number is loaded again after. */
static void deny_flags(program *p, long nr, int arg, unsigned bits, int allow_if_set) {
    /* nr? no: skip the 3 instructions of the check. */
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 3));
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[arg])));
    if (allow_if_set) {
        p->to_allow[p->allows++] = p->count;
        emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 0));
        p->to_deny[p->denies++] = p->count;
        emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
    } else {
        p->to_deny[p->denies++] = p->count;
        emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 0));
        p->to_allow[p->allows++] = p->count;
        emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
    }
}

/* Points every jump recorded in `at` to `target`: the taken branch of a JEQ/JSET, a JA's k. */
static void patch(program *p, const int *at, int count, int target) {
    for (int i = 0; i < count; i++) {
        struct sock_filter *f = &p->code[at[i]];
        int offset = target - at[i] - 1;
        if (BPF_OP(f->code) == BPF_JA) f->k = (unsigned)offset;
        else f->jt = (unsigned char)offset;
    }
}

int csys_sandbox(void) {
#ifndef CSYS_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    static program p;
    memset(&p, 0, sizeof p);
    emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CSYS_AUDIT_ARCH, 1, 0));
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    load_nr(&p);
    const unsigned writes = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    /* Threads only: a clone without CLONE_THREAD would be a new process. clone3 hides its
       flags in memory; glibc falls back to clone when it is refused with ENOSYS. */
    deny_flags(&p, __NR_clone, 0, CLONE_THREAD, 1);
    load_nr(&p);
    deny_flags(&p, __NR_openat, 2, writes, 0);
    load_nr(&p);
#ifdef __NR_open
    deny_flags(&p, __NR_open, 1, writes, 0);
    load_nr(&p);
#endif
    static const long refused[] = {
        __NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen, __NR_accept, __NR_accept4,
        __NR_execve, __NR_execveat, __NR_ptrace, __NR_process_vm_writev, __NR_openat2,
        __NR_unlinkat, __NR_renameat, __NR_renameat2, __NR_mkdirat, __NR_linkat, __NR_symlinkat,
        __NR_fchmodat, __NR_fchownat, __NR_truncate, __NR_mknodat,
#ifdef __NR_fork
        __NR_fork, __NR_vfork, __NR_creat, __NR_unlink, __NR_rename, __NR_mkdir, __NR_rmdir, __NR_link, __NR_symlink,
        __NR_chmod, __NR_chown, __NR_mknod,
#endif
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) deny_if(&p, refused[i]);
    /* clone3: ENOSYS, so glibc uses clone, whose flags the filter can see. */
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1));
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
    int allow = p.count;
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    int deny = p.count;
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES));
    patch(&p, p.to_allow, p.allows, allow);
    patch(&p, p.to_deny, p.denies, deny);
    struct sock_fprog fprog = { (unsigned short)p.count, p.code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
#endif
}

/* The process's address space now, from /proc/self/statm (pages). */
static uint64_t address_space(void) {
    FILE *f = fopen("/proc/self/statm", "re");
    if (!f) return 0;
    unsigned long long pages = 0;
    if (fscanf(f, "%llu", &pages) != 1) pages = 0;
    fclose(f);
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

int csys_limit_next(double cpu_seconds, uint64_t address_space_bytes) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
    double used = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    struct rlimit cpu;
    if (getrlimit(RLIMIT_CPU, &cpu) != 0) return -1;
    rlim_t soft = (rlim_t)(used + cpu_seconds + 0.999);
    cpu.rlim_cur = cpu.rlim_max == RLIM_INFINITY || soft < cpu.rlim_max ? soft : cpu.rlim_max;
    if (setrlimit(RLIMIT_CPU, &cpu) != 0) return -1;
    uint64_t now = address_space();
    if (now == 0) return 0;
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) != 0) return -1;
    rlim_t want = (rlim_t)(now + address_space_bytes);
    as.rlim_cur = as.rlim_max == RLIM_INFINITY || want < as.rlim_max ? want : as.rlim_max;
    return setrlimit(RLIMIT_AS, &as);
}
