/* ipclab-floor-zmq: the smallest honest ZeroMQ ping-pong, the floor `ipclab bench libraries`
 * holds the C++ peer's zmq-tcp and zmq-ipc to. It is libzmq's own latency test
 * (perf/local_lat.cpp and remote_lat.cpp: a REP socket echoing, a REQ socket sending and
 * receiving, default socket options) in one program, with each round trip timed instead of
 * only the whole loop, so its samples are read like a peer's:
 *
 *   ipclab-floor-zmq tcp|ipc --size N --iterations N --warmup N --samples-file PATH
 *       [--client-cpu C --server-cpu C]
 *
 * The child binds REP (tcp://127.0.0.1:* or ipc:// in a fresh 0700 directory) and tells the
 * parent its endpoint over a pipe (a ZeroMQ context does not survive fork, so each side makes
 * its own after it); the parent connects REQ, makes warmup + iterations round trips of N bytes,
 * sends one empty message to stop the echo, and waits for the child. */
#include "floor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

static void *open_socket(void **ctx, int type) {
    *ctx = zmq_ctx_new();
    void *s = *ctx ? zmq_socket(*ctx, type) : NULL;
    if (!s) fail(1, "zmq_socket: %s", zmq_strerror(zmq_errno()));
    int linger = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    return s;
}

static void close_socket(void *ctx, void *s) {
    zmq_close(s);
    zmq_ctx_term(ctx);
}

/* The child: bind, say where, echo until the empty message. */
static __attribute__((noreturn)) void echo(const struct library_options *o, int tell) {
    g_is_child = 1;
    pin(o->server_cpu, "server");
    void *ctx, *rep = open_socket(&ctx, ZMQ_REP);
    char where[ADDRESS_MAX];
    if (o->ipc) snprintf(where, sizeof where, "ipc://%s", g_paths[0]);
    else snprintf(where, sizeof where, "tcp://127.0.0.1:*");
    size_t len = sizeof where;
    if (zmq_bind(rep, where) != 0 || zmq_getsockopt(rep, ZMQ_LAST_ENDPOINT, where, &len) != 0)
        fail(1, "zmq_bind %s: %s", where, zmq_strerror(zmq_errno()));
    if (write(tell, where, strlen(where) + 1) < 0) fail(1, "write: %s", strerror(errno));
    close(tell);
    unsigned char *buf = malloc(o->size);
    if (!buf) fail(1, "out of memory");
    for (;;) {
        int n = zmq_recv(rep, buf, o->size, 0);
        if (n < 0) fail(1, "zmq_recv: %s", zmq_strerror(zmq_errno()));
        if (zmq_send(rep, buf, (size_t)n, 0) < 0) fail(1, "zmq_send: %s", zmq_strerror(zmq_errno()));
        if (n == 0) break;
    }
    close_socket(ctx, rep);
    _exit(0);
}

/* The parent: connect, the timed round trips, the stop message. */
static void ping(const struct library_options *o, const char *where, int64_t *samples) {
    pin(o->client_cpu, "client");
    void *ctx, *req = open_socket(&ctx, ZMQ_REQ);
    if (zmq_connect(req, where) != 0) fail(1, "zmq_connect %s: %s", where, zmq_strerror(zmq_errno()));
    unsigned char *out = malloc(o->size), *in = malloc(o->size);
    if (!out || !in) fail(1, "out of memory");
    for (size_t i = 0; i < o->size; i++) out[i] = (unsigned char)(i * 131 + 7);
    for (uint64_t i = 0; i < o->warmup + o->iterations; i++) {
        int64_t t0 = now_ns();
        if (zmq_send(req, out, o->size, 0) < 0) fail(1, "zmq_send: %s", zmq_strerror(zmq_errno()));
        int n = zmq_recv(req, in, o->size, 0);
        int64_t t1 = now_ns();
        if (n != (int)o->size) fail(1, "echo of %d bytes, expected %zu", n, o->size);
        if (i >= o->warmup) samples[i - o->warmup] = t1 - t0;
    }
    if (memcmp(out, in, o->size) != 0) fail(1, "the echo differs from what was sent");
    if (zmq_send(req, "", 0, 0) < 0 || zmq_recv(req, in, o->size, 0) != 0)
        fail(1, "stopping the echo: %s", zmq_strerror(zmq_errno()));
    close_socket(ctx, req);
    free(out);
    free(in);
}

int main(int argc, char **argv) {
    struct library_options o;
    library_parse(argc, argv, "ipclab-floor-zmq", &o);
    int fd;
    int64_t *samples = library_start(&o, "zmq.sock", &fd);
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) fail(1, "pipe: %s", strerror(errno));
    g_child = fork();
    if (g_child < 0) fail(1, "fork: %s", strerror(errno));
    if (g_child == 0) {
        close(pipe_fds[0]);
        echo(&o, pipe_fds[1]);
    }
    close(pipe_fds[1]);
    char where[ADDRESS_MAX];
    library_read_address(pipe_fds[0], where);
    close(pipe_fds[0]);
    ping(&o, where, samples);
    library_finish(&o, fd, samples);
    return 0;
}
