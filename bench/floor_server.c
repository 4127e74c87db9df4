/* The do-nothing floor for cache hits: two epoll threads, each with its own SO_REUSEPORT
   listener, answering every GET with the same 12,000-byte keep-alive response, written with
   one send. No parsing beyond finding the end of each request head. What a thumbd memory hit
   costs above this is the price of its Swift work and of any extra system calls.
   Usage: floor_server PORT */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BODY 12000
static char response[BODY + 256];
static size_t response_length;
static int port;

struct conn { int fd; size_t have; char buf[8192]; };

static int listener(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 1024)) { perror("listen"); exit(1); }
    return fd;
}

static void *loop(void *unused) {
    (void)unused;
    int lfd = listener(), ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[256];
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    for (;;) {
        int n = epoll_wait(ep, evs, 256, -1);
        for (int i = 0; i < n; i++) {
            struct conn *c = evs[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct conn *nc = calloc(1, sizeof *nc);
                    nc->fd = fd;
                    struct epoll_event cev = { .events = EPOLLIN, .data.ptr = nc };
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                }
                continue;
            }
            ssize_t r = recv(c->fd, c->buf + c->have, sizeof c->buf - c->have, 0);
            if (r <= 0) {
                if (r < 0 && errno == EAGAIN) continue;
                close(c->fd);
                free(c);
                continue;
            }
            c->have += (size_t)r;
            char *end;
            /* One response per complete head; keep what follows the last one. */
            while ((end = memmem(c->buf, c->have, "\r\n\r\n", 4))) {
                size_t used = (size_t)(end - c->buf) + 4;
                send(c->fd, response, response_length, MSG_NOSIGNAL);
                memmove(c->buf, c->buf + used, c->have - used);
                c->have -= used;
            }
            if (c->have == sizeof c->buf) { close(c->fd); free(c); }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: floor_server PORT\n"); return 2; }
    port = atoi(argv[1]);
    response_length = (size_t)snprintf(response, sizeof response,
        "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", BODY);
    memset(response + response_length, 'x', BODY);
    response_length += BODY;
    pthread_t t;
    pthread_create(&t, NULL, loop, NULL);
    loop(NULL);
    return 0;
}
