#ifndef THUMBD_CSYSTEM_H
#define THUMBD_CSYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC (a GNU extension Glibc's overlay hides);
/// writes the client's address as text into `peer` (empty when not IPv4 or IPv6).
int csys_accept_nonblocking(int listen_fd, char *peer, size_t peer_len);

/// Opens `path` relative to `dir_fd` read-only, refusing any resolution that leaves `dir_fd`
/// (absolute paths, `..` above it, symlinks pointing outside it) via openat2(RESOLVE_BENEATH).
/// Returns the fd, or -1 with errno set (EXDEV for an escape attempt, ENOSYS on old kernels).
int csys_open_beneath(int dir_fd, const char *path);

/// Caps glibc's malloc arenas: with many threads freeing libvips buffers, per-thread arenas
/// fragment and RSS grows (a known libvips-server problem). Same as MALLOC_ARENA_MAX.
void csys_limit_malloc_arenas(int arenas);
/// Allocations of `bytes` and more are mapped; up to twice that stays free atop an arena.
void csys_set_mmap_threshold(int bytes);
/// Returns freed heap memory to the system (malloc_trim).
void csys_release_free_memory(void);

/// The values Swift cannot see because they are macros or packed unions.
uint32_t csys_epollin(void);
uint32_t csys_epollout(void);
uint32_t csys_epollrdhup(void);
uint32_t csys_epollhup(void);
uint32_t csys_epollerr(void);

/// epoll_event is packed; these keep Swift away from its layout.
int csys_epoll_add(int epfd, int fd, uint32_t events, uint64_t token);
int csys_epoll_mod(int epfd, int fd, uint32_t events, uint64_t token);
int csys_epoll_del(int epfd, int fd);
/// Waits for events; fills parallel arrays of tokens and event masks. Returns the count or -1.
int csys_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);

/* Child processes (process.c): the renderers SVG and PDF pages are drawn in. */

/// A pipe whose ends close on exec (pipe2 with O_CLOEXEC). 0, or -1 with errno.
int csys_pipe(int fds[2]);
/// Starts `path` with `argv` and `envp` (NULL-terminated), its stdin and stdout the given
/// descriptors, stderr shared, every other descriptor closed and no signal blocked or ignored
/// in the child. 0 and the pid, or an errno.
int csys_spawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd, pid_t *pid);
/// Waits for `pid` to end (blocking when `block`). Returns 1 when it ended (`signal` the
/// signal that ended it, or 0 with `status` its exit status), 0 when it runs, -1 on error.
int csys_reap(pid_t pid, int block, int *status, int *signal);
/// Waits up to `timeout_ms` for `fd` to be readable (or closed): 1, 0 on timeout, -1 on error.
int csys_wait_readable(int fd, int timeout_ms);
/// Waits up to `timeout_ms` for `fd` to take bytes (or its reader to be gone).
int csys_wait_writable(int fd, int timeout_ms);
int csys_set_nonblocking(int fd);
/// SIGPIPE ignored process-wide: a write to a renderer that died fails with EPIPE instead.
void csys_ignore_sigpipe(void);
/// The server: no process of the same user (a renderer) may read its memory, environment or
/// files under /proc, nor trace it (PR_SET_DUMPABLE 0; no core dump either).
void csys_set_undumpable(void);
/// The server, before each request to a renderer: the CPU it may use from now (RLIMIT_CPU's
/// soft limit: SIGXCPU ends it) and the address space it may grow by from now (RLIMIT_AS's
/// soft limit: allocations past it fail), each within the hard limit the renderer set at
/// start. 0, or -1 with errno.
int csys_limit_child(pid_t pid, double cpu_seconds, uint64_t growth);

/// In a renderer, before it reads anything: its standard error to /dev/null (what libraries
/// print about a document is not the server's log), no core files, SIGXFSZ ignored, first
/// in line for the kernel's OOM killer, one malloc arena.
void csys_child_prepare(void);
/// In a renderer, once its libraries are loaded: no capability (a server run as root hands
/// them down), no file grows past 0 bytes (a pipe is not a file), and hard limits on its
/// address space (`max_growth` from now) and CPU time (`max_cpu_seconds` from now) that
/// nothing can raise. 0, or -1 with errno.
int csys_child_lock(uint64_t max_growth, double max_cpu_seconds);
/// In a renderer, last: a seccomp filter that refuses sockets, running programs, processes
/// other than threads, signals to other processes, setting limits, opening files for
/// writing and changing the file system (x32 and io_uring included). 0, or -1 with errno
/// (seccomp unavailable: the rlimits still hold).
int csys_sandbox(void);
/// In a renderer: tries what the sandbox must refuse (a socket, creating a file, opening one
/// for writing, signalling the server, raising a limit, setting the server's, reading the
/// server's environment, running a program, starting a process) and writes "name:refused"
/// or "name:ALLOWED" for each into `out`.
void csys_sandbox_report(char *out, size_t size);

#endif
