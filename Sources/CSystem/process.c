#define _GNU_SOURCE
#include "csystem.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
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

int csys_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int csys_spawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd, pid_t *pid) {
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
    int rc = posix_spawn(pid, path, &actions, &attributes, argv, envp);
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

/* Waits up to timeout_ms for `events` on fd: 1, 0 on timeout (or a signal), -1 on error. */
static int wait_for(int fd, short events, int timeout_ms) {
    struct pollfd p = { fd, events, 0 };
    int n = poll(&p, 1, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : -1;
    return n > 0 ? 1 : 0;
}

int csys_wait_readable(int fd, int timeout_ms) { return wait_for(fd, POLLIN, timeout_ms); }

int csys_wait_writable(int fd, int timeout_ms) { return wait_for(fd, POLLOUT, timeout_ms); }

void csys_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

void csys_set_undumpable(void) { prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int csys_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

void csys_child_prepare(void) {
    /* What the libraries print about a document (poppler's syntax errors, librsvg's warnings)
       is no line of the server's log: a hostile document could fill it. */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 2);
        close(null);
    }
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    /* A write past RLIMIT_FSIZE fails (EFBIG) rather than ending the process. */
    signal(SIGXFSZ, SIG_IGN);
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)!write(fd, "1000", 4);
        close(fd);
    }
    csys_limit_malloc_arenas(1);
}

/* The process's address space now, from /proc/PID/statm (pages); 0 when it cannot be read. */
static uint64_t address_space(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return 0;
    unsigned long long pages = 0;
    if (fscanf(f, "%llu", &pages) != 1) pages = 0;
    fclose(f);
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The CPU seconds PID has used (utime + stime, /proc/PID/stat); -1 when it cannot be read. */
static double cpu_used(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *after = strrchr(text, ')');
    unsigned long long user = 0, system = 0;
    /* After the name: state, ppid, pgrp, session, tty, tpgid, flags, 4 fault counts, utime, stime. */
    if (!after || sscanf(after + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &user, &system) != 2) return -1;
    return (double)(user + system) / (double)sysconf(_SC_CLK_TCK);
}

int csys_child_lock(uint64_t max_growth, double max_cpu_seconds) {
    /* No capability either (a server run as root hands them down): none to read another
       process's memory or environment, to pass file permissions, or to raise a hard limit. */
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct none_caps[2];
    memset(none_caps, 0, sizeof none_caps);
    if (syscall(SYS_capset, &header, none_caps) != 0) return -1;
    struct rlimit none = { 0, 0 };
    if (setrlimit(RLIMIT_FSIZE, &none) != 0) return -1;
    uint64_t now = address_space(getpid());
    double used = cpu_used(getpid());
    if (now == 0 || used < 0) return -1;
    struct rlimit as = { (rlim_t)(now + max_growth), (rlim_t)(now + max_growth) };
    struct rlimit cpu = { (rlim_t)(used + max_cpu_seconds + 1), (rlim_t)(used + max_cpu_seconds + 1) };
    if (setrlimit(RLIMIT_AS, &as) != 0) return -1;
    return setrlimit(RLIMIT_CPU, &cpu);
}

int csys_limit_child(pid_t pid, double cpu_seconds, uint64_t growth) {
    struct rlimit cpu, as;
    if (prlimit(pid, RLIMIT_CPU, NULL, &cpu) != 0 || prlimit(pid, RLIMIT_AS, NULL, &as) != 0) return -1;
    uint64_t now = address_space(pid);
    double used = cpu_used(pid);
    if (now == 0 || used < 0) return -1;
    rlim_t soft_cpu = (rlim_t)(used + cpu_seconds + 0.999), soft_as = (rlim_t)(now + growth);
    cpu.rlim_cur = cpu.rlim_max != RLIM_INFINITY && soft_cpu > cpu.rlim_max ? cpu.rlim_max : soft_cpu;
    as.rlim_cur = as.rlim_max != RLIM_INFINITY && soft_as > as.rlim_max ? as.rlim_max : soft_as;
    if (prlimit(pid, RLIMIT_CPU, &cpu, NULL) != 0) return -1;
    return prlimit(pid, RLIMIT_AS, &as, NULL);
}

#if defined(__x86_64__)
#define CSYS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CSYS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* A small BPF program builder. Jumps to the verdicts (allow, refuse with EACCES, ENOSYS) are
   recorded where they are emitted and pointed at the verdicts once those are placed. */
enum verdict { ALLOW, DENY, NOSYS };
enum branch { TAKEN, NOT_TAKEN, ALWAYS };
typedef struct {
    struct sock_filter code[256];
    int count;
    struct { int at; enum branch branch; enum verdict verdict; } jumps[192];
    int jump_count;
} program;

static void emit(program *p, struct sock_filter f) { p->code[p->count++] = f; }

static void jump_to(program *p, enum branch branch, enum verdict verdict) {
    p->jumps[p->jump_count].at = p->count - 1;
    p->jumps[p->jump_count].branch = branch;
    p->jumps[p->jump_count].verdict = verdict;
    p->jump_count++;
}

static void load_nr(program *p) {
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

static void load_arg(program *p, int arg, int high) {
    emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                        offsetof(struct seccomp_data, args[arg]) + (high ? 4 : 0)));
}

/* With the number loaded: the syscall `nr` gets `verdict`. */
static void on_nr(program *p, long nr, enum verdict verdict) {
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 0));
    jump_to(p, TAKEN, verdict);
}

/* With the number loaded: for syscall `nr`, skip the next `length` instructions unless it is nr. */
static void if_nr(program *p, long nr, int length) {
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, (unsigned char)length));
}

/* For syscall nr: allowed when its argument's bits (low word) `bits` are set (`when_set`) or
   clear, refused otherwise; the number is loaded again after. 4 instructions after if_nr. */
static void flags_rule(program *p, long nr, int arg, unsigned bits, int allow_when_set) {
    if_nr(p, nr, 3);
    load_arg(p, arg, 0);
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 0));
    jump_to(p, TAKEN, allow_when_set ? ALLOW : DENY);
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
    jump_to(p, ALWAYS, allow_when_set ? DENY : ALLOW);
    load_nr(p);
}

/* For syscall nr: allowed only when its argument (low word) is `value`. */
static void equals_rule(program *p, long nr, int arg, unsigned value) {
    if_nr(p, nr, 2);
    load_arg(p, arg, 0);
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 0));
    jump_to(p, TAKEN, ALLOW);
    /* Not taken: refused (a second jump of the same instruction). */
    jump_to(p, NOT_TAKEN, DENY);
    load_nr(p);
}

/* For syscall nr: allowed only when its argument is 0 (a pointer left NULL). */
static void null_rule(program *p, long nr, int arg) {
    if_nr(p, nr, 4);
    load_arg(p, arg, 0);
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
    jump_to(p, NOT_TAKEN, DENY);
    load_arg(p, arg, 1);
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
    jump_to(p, TAKEN, ALLOW);
    jump_to(p, NOT_TAKEN, DENY);
}

int csys_sandbox(void) {
#ifndef CSYS_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    static program p;
    memset(&p, 0, sizeof p);
    unsigned self = (unsigned)getpid();
    emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CSYS_AUDIT_ARCH, 1, 0));
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    load_nr(&p);
#if defined(__x86_64__)
    /* x32's numbers would reach the same calls under other numbers. */
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 0));
    jump_to(&p, TAKEN, DENY);
#endif
    const unsigned writes = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    /* Threads only: a clone without CLONE_THREAD would be a new process. */
    flags_rule(&p, __NR_clone, 0, CLONE_THREAD, 1);
    flags_rule(&p, __NR_openat, 2, writes, 0);
#ifdef __NR_open
    flags_rule(&p, __NR_open, 1, writes, 0);
#endif
    /* Signals to itself only (abort, raise); none to the server or anyone else. */
    equals_rule(&p, __NR_kill, 0, self);
    equals_rule(&p, __NR_tgkill, 0, self);
    /* Limits may be read, never set: the server sets them (csys_limit_child). */
    null_rule(&p, __NR_prlimit64, 2);
    static const long refused[] = {
        __NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen, __NR_accept, __NR_accept4,
        __NR_execve, __NR_execveat, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
        __NR_tkill, __NR_setrlimit, __NR_unshare, __NR_setns, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot,
        __NR_bpf, __NR_perf_event_open, __NR_userfaultfd, __NR_keyctl, __NR_add_key, __NR_request_key,
        __NR_unlinkat, __NR_renameat, __NR_renameat2, __NR_mkdirat, __NR_linkat, __NR_symlinkat, __NR_mknodat,
        __NR_fchmod, __NR_fchmodat, __NR_fchown, __NR_fchownat, __NR_truncate, __NR_ftruncate, __NR_utimensat,
        __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr, __NR_removexattr, __NR_lremovexattr, __NR_fremovexattr,
#ifdef __NR_fork
        __NR_fork, __NR_vfork, __NR_creat, __NR_unlink, __NR_rename, __NR_mkdir, __NR_rmdir, __NR_link, __NR_symlink,
        __NR_chmod, __NR_chown, __NR_lchown, __NR_mknod, __NR_utime, __NR_utimes, __NR_futimesat,
#endif
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) on_nr(&p, refused[i], DENY);
    /* Their arguments are in memory the filter cannot see: ENOSYS, and glibc falls back to the
       calls above (clone3 to clone), or the libraries do without (io_uring, openat2). */
    static const long unknown[] = { 435 /* clone3 */, 437 /* openat2 */, 425, 426, 427 /* io_uring */,
                                     434, 438, 424 /* pidfd_open, pidfd_getfd, pidfd_send_signal */, 452 /* fchmodat2 */ };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) on_nr(&p, unknown[i], NOSYS);
    emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
    jump_to(&p, ALWAYS, ALLOW);
    int verdicts[3];
    verdicts[ALLOW] = p.count;
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    verdicts[DENY] = p.count;
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES));
    verdicts[NOSYS] = p.count;
    emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
    for (int i = 0; i < p.jump_count; i++) {
        struct sock_filter *f = &p.code[p.jumps[i].at];
        unsigned offset = (unsigned)(verdicts[p.jumps[i].verdict] - p.jumps[i].at - 1);
        if (offset > 255 && p.jumps[i].branch != ALWAYS) return errno = E2BIG, -1;
        switch (p.jumps[i].branch) {
        case TAKEN: f->jt = (unsigned char)offset; break;
        case NOT_TAKEN: f->jf = (unsigned char)offset; break;
        case ALWAYS: f->k = offset; break;
        }
    }
    struct sock_fprog fprog = { (unsigned short)p.count, p.code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
#endif
}

/* Tries what the sandbox must refuse and writes one word per attempt: "socket:refused ...".
   A renderer answers it to the tests' `checkSandbox` request. */
void csys_sandbox_report(char *out, size_t size) {
    size_t used = 0;
    out[0] = 0;
#define REPORT(name, ok) used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s:%s ", name, (ok) ? "refused" : "ALLOWED")
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    REPORT("socket", fd < 0);
    if (fd >= 0) close(fd);
    char path[64];
    snprintf(path, sizeof path, "/tmp/thumbd-sandbox-%d", (int)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REPORT("create-file", fd < 0);
    if (fd >= 0) { close(fd); unlink(path); }
    fd = open("/etc/hostname", O_RDWR);
    REPORT("open-for-writing", fd < 0);
    if (fd >= 0) close(fd);
    REPORT("signal-parent", kill(getppid(), 0) != 0);
    struct rlimit as;
    getrlimit(RLIMIT_AS, &as);
    struct rlimit raised = { as.rlim_max, as.rlim_max };
    REPORT("raise-limit", setrlimit(RLIMIT_AS, &raised) != 0 || as.rlim_cur == as.rlim_max);
    struct rlimit parent;
    REPORT("limit-parent", prlimit(getppid(), RLIMIT_AS, &as, &parent) != 0);
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    fd = open(path, O_RDONLY);
    REPORT("read-parent-environment", fd < 0);
    if (fd >= 0) close(fd);
    char *const argv[] = { "/bin/true", NULL };
    REPORT("run-program", execve("/bin/true", argv, NULL) != 0);
    pid_t child = fork();
    if (child == 0) _exit(0);
    REPORT("start-process", child < 0);
    if (child > 0) waitpid(child, NULL, 0);
#undef REPORT
}
