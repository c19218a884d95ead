/* rr: the echo server (the child), the timed round trips (the parent), and cacheline, the
 * floor of shared memory with busy waiting. */
#include "floor.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child: echo until end of stream (or, for udp, until it is terminated). */
void run_server(const struct options *o, struct channel *c) {
    g_is_child = 1;
    pin(o->server_cpu, "server");
    int rd = -1, wr = -1;
    open_side(o, c, SERVER, &rd, &wr);
    unsigned char *buf = malloc(o->size);
    if (buf == NULL) fail(1, "out of memory");
    if (o->mech == MECH_UDP) {
        for (;;) {
            struct sockaddr_storage from;
            socklen_t from_len = sizeof from;
            ssize_t r = recvfrom(rd, buf, o->size, 0, (struct sockaddr *)&from, &from_len);
            if (r < 0) {
                if (errno == EINTR) continue;
                fail(1, "recvfrom: %s", strerror(errno));
            }
            if (sendto(wr, buf, (size_t)r, 0, (struct sockaddr *)&from, from_len) < 0)
                fail(1, "sendto: %s", strerror(errno));
        }
    }
    while (read_all(rd, buf, o->size) == 0) write_all(wr, buf, o->size);
    _exit(0);
}

/* The parent: warmup + iterations round trips of --size bytes, the measured ones timed. */
void run_pingpong(const struct options *o, int rd, int wr, const unsigned char *out,
                  unsigned char *in, int64_t *samples) {
    const uint64_t total = o->warmup + o->iterations;
    if (o->mech == MECH_UDP) {
        for (uint64_t i = 0; i < total; i++) {
            int64_t t0 = now_ns();
            if (send(wr, out, o->size, 0) < 0) fail(1, "send: %s", strerror(errno));
            ssize_t r;
            while ((r = recv(rd, in, o->size, 0)) < 0 && errno == EINTR) {
            }
            int64_t t1 = now_ns();
            if (r < 0)
                fail(1, "recv: %s", errno == EAGAIN ? "no echo within 10 s" : strerror(errno));
            if ((size_t)r != o->size) fail(1, "echo of %zd bytes, expected %zu", r, o->size);
            if (i >= o->warmup) samples[i - o->warmup] = t1 - t0;
        }
    } else {
        for (uint64_t i = 0; i < total; i++) {
            int64_t t0 = now_ns();
            write_all(wr, out, o->size);
            if (read_all(rd, in, o->size) != 0) fail(1, "the echo server closed the channel");
            int64_t t1 = now_ns();
            if (i >= o->warmup) samples[i - o->warmup] = t1 - t0;
        }
    }
}

#define CACHELINE_STOP UINT64_MAX

/* cacheline's child: answers each odd value with the next even one until CACHELINE_STOP. */
__attribute__((noreturn)) static void cacheline_server(const struct options *o,
                                                       _Atomic uint64_t *line, pid_t parent) {
    g_is_child = 1;
    /* A spinning child must not outlive a parent that died without stopping it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    pin(o->server_cpu, "server");
    uint64_t seen = 0;
    for (;;) {
        uint64_t v;
        while ((v = atomic_load_explicit(line, memory_order_acquire)) == seen) cpu_pause();
        if (v == CACHELINE_STOP) _exit(0);
        seen = v + 1;
        atomic_store_explicit(line, seen, memory_order_release);
    }
}

/* cacheline: the counter at the start of a shared page (so alone on its 64-byte line). Odd
 * values are pings (client), even values pongs (server); CACHELINE_STOP ends the server. */
void run_cacheline(const struct options *o, int64_t *samples) {
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) fail(1, "mmap: %s", strerror(errno));
    _Atomic uint64_t *line = (_Atomic uint64_t *)page;
    atomic_init(line, 0);

    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) fail(1, "fork: %s", strerror(errno));
    if (pid == 0) cacheline_server(o, line, parent);
    g_child = pid;
    pin(o->client_cpu, "client");

    const uint64_t total = o->warmup + o->iterations;
    uint64_t v = 0;
    for (uint64_t i = 0; i < total; i++) {
        const uint64_t ping = v + 1, pong = v + 2;
        int64_t t0 = now_ns();
        atomic_store_explicit(line, ping, memory_order_release);
        while (atomic_load_explicit(line, memory_order_acquire) != pong) cpu_pause();
        int64_t t1 = now_ns();
        v = pong;
        if (i >= o->warmup) samples[i - o->warmup] = t1 - t0;
    }
    atomic_store_explicit(line, CACHELINE_STOP, memory_order_release);
    int status = 0;
    if (waitpid(pid, &status, 0) == pid) g_child = -1;
    munmap(page, 4096);
}
