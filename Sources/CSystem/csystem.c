#define _GNU_SOURCE
#include "csystem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int csys_accept_nonblocking(int listen_fd, char *peer, size_t peer_len) {
    struct sockaddr_storage addr;
    socklen_t len = sizeof addr;
    int fd = accept4(listen_fd, (struct sockaddr *)&addr, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0 && peer != NULL && peer_len > 0) {
        peer[0] = 0;
        if (addr.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&addr)->sin_addr, peer, (socklen_t)peer_len);
        } else if (addr.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&addr)->sin6_addr, peer, (socklen_t)peer_len);
        }
    }
    return fd;
}

int csys_open_beneath(int dir_fd, const char *path) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    long fd;
    do {
        fd = syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
    } while (fd < 0 && (errno == EAGAIN || errno == EINTR));
    return (int)fd;
}

#include <malloc.h>

void csys_limit_malloc_arenas(int arenas) { mallopt(M_ARENA_MAX, arenas); }
/* A fixed threshold turns off glibc's sliding one, which after the first large free keeps
   image buffers of up to 32 MiB in the arenas instead of returning them. */
void csys_set_mmap_threshold(int bytes) {
    mallopt(M_MMAP_THRESHOLD, bytes);
    /* Fixing the threshold also fixes the trim threshold at 128 KiB, so every buffer of a few
       hundred KiB freed at the top of an arena (a relayed chunk, a region) was given back with
       madvise and faulted in again; glibc's sliding rule keeps twice the mmap threshold. */
    mallopt(M_TRIM_THRESHOLD, 2 * bytes);
}
void csys_release_free_memory(void) { malloc_trim(0); }

uint32_t csys_epollin(void) { return EPOLLIN; }
uint32_t csys_epollout(void) { return EPOLLOUT; }
uint32_t csys_epollrdhup(void) { return EPOLLRDHUP; }
uint32_t csys_epollhup(void) { return EPOLLHUP; }
uint32_t csys_epollerr(void) { return EPOLLERR; }

static int ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &ev);
}

int csys_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) { return ctl(epfd, EPOLL_CTL_ADD, fd, events, token); }
int csys_epoll_mod(int epfd, int fd, uint32_t events, uint64_t token) { return ctl(epfd, EPOLL_CTL_MOD, fd, events, token); }
int csys_epoll_del(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int csys_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        tokens[i] = evs[i].data.u64;
        events[i] = evs[i].events;
    }
    return n;
}
