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
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#define ENDPOINT_MAX (PATH_MAX + 16) /* ipc:// and a path */

struct zmq_options {
    int ipc;
    size_t size;
    uint64_t iterations, warmup;
    const char *samples_file;
    long client_cpu, server_cpu;
};

static uint64_t number(const char *flag, const char *text) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || end == text || text[0] == '-') fail(2, "%s: %s is not a number", flag, text);
    return v;
}

static void parse(int argc, char **argv, struct zmq_options *o) {
    static const struct option longs[] = {
        {"size", required_argument, 0, 's'},       {"iterations", required_argument, 0, 'i'},
        {"warmup", required_argument, 0, 'w'},     {"samples-file", required_argument, 0, 'f'},
        {"client-cpu", required_argument, 0, 'c'}, {"server-cpu", required_argument, 0, 'S'},
        {0, 0, 0, 0}};
    *o = (struct zmq_options){.size = 16, .iterations = 10000, .warmup = 1000,
                              .client_cpu = -1, .server_cpu = -1};
    if (argc < 2 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "ipc")))
        fail(2, "usage: ipclab-floor-zmq tcp|ipc --size N --iterations N --warmup N "
                "--samples-file PATH [--client-cpu C --server-cpu C]");
    o->ipc = strcmp(argv[1], "ipc") == 0;
    optind = 2;
    for (int c; (c = getopt_long(argc, argv, "", longs, NULL)) != -1;) {
        switch (c) {
        case 's': o->size = number("--size", optarg); break;
        case 'i': o->iterations = number("--iterations", optarg); break;
        case 'w': o->warmup = number("--warmup", optarg); break;
        case 'f': o->samples_file = optarg; break;
        case 'c': o->client_cpu = (long)number("--client-cpu", optarg); break;
        case 'S': o->server_cpu = (long)number("--server-cpu", optarg); break;
        default: fail(2, "unknown option");
        }
    }
    if (optind != argc) fail(2, "unexpected argument %s", argv[optind]);
    if (!o->samples_file || !o->iterations || !o->size || o->size > MAX_STREAM_SIZE)
        fail(2, "--samples-file, --iterations ≥ 1 and 1 ≤ --size ≤ %u are needed", MAX_STREAM_SIZE);
}

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
static __attribute__((noreturn)) void echo(const struct zmq_options *o, int tell) {
    g_is_child = 1;
    pin(o->server_cpu, "server");
    void *ctx, *rep = open_socket(&ctx, ZMQ_REP);
    char where[ENDPOINT_MAX];
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

static void read_endpoint(int from, char *where) {
    size_t got = 0;
    for (ssize_t r; got < ENDPOINT_MAX && (r = read(from, where + got, ENDPOINT_MAX - got)) != 0;) {
        if (r < 0) {
            if (errno == EINTR) continue;
            fail(1, "read: %s", strerror(errno));
        }
        got += (size_t)r;
        if (memchr(where, '\0', got)) return;
    }
    fail(1, "the echo side gave no endpoint");
}

/* The parent: connect, the timed round trips, the stop message. */
static void ping(const struct zmq_options *o, const char *where, int64_t *samples) {
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
    struct zmq_options o;
    parse(argc, argv, &o);
    int fd = open(o.samples_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail(1, "cannot open %s: %s", o.samples_file, strerror(errno));
    int64_t *samples = malloc(o.iterations * sizeof *samples);
    if (!samples) fail(1, "out of memory");
    if (o.ipc) {
        make_tempdir();
        path_in_dir(0, "zmq.sock");
    }
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) fail(1, "pipe: %s", strerror(errno));
    g_child = fork();
    if (g_child < 0) fail(1, "fork: %s", strerror(errno));
    if (g_child == 0) {
        close(pipe_fds[0]);
        echo(&o, pipe_fds[1]);
    }
    close(pipe_fds[1]);
    char where[ENDPOINT_MAX];
    read_endpoint(pipe_fds[0], where);
    close(pipe_fds[0]);
    ping(&o, where, samples);
    int status;
    if (waitpid(g_child, &status, 0) != g_child || !WIFEXITED(status) || WEXITSTATUS(status))
        fail(1, "the echo side did not exit cleanly");
    g_child = -1;
    write_samples(fd, o.samples_file, samples, o.iterations);
    cleanup();
    return 0;
}
