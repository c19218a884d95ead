/* ipclab-floor-nng: the smallest honest NNG ping-pong, the floor `ipclab bench libraries` holds
 * the C++ peer's nng-tcp and nng-ipc to. It is NNG's own latency test (perf/perf.c, its
 * local_lat and remote_lat modes) in one program, with each round trip timed instead of only
 * the whole loop, so its samples are read like a peer's:
 *
 *   ipclab-floor-nng tcp|ipc --size N --iterations N --warmup N --samples-file PATH
 *       [--client-cpu C --server-cpu C]
 *
 * What is NNG perf's here: the server listens and, per round trip, takes one message with
 * nng_recvmsg, checks its length and gives that same message back with nng_sendmsg; the client
 * dials (nng_dial, flags 0: synchronous, the connection is up when it returns), allocates one
 * message of N bytes before the clock, and per round trip hands it over with nng_sendmsg and
 * takes the answer back with nng_recvmsg, blocking, on the calling thread (libnng's own
 * threads read the socket and hand the message over, the caller's thread writes it when the
 * connection is idle: the library's cost); no socket option of its own (its "set no delay" is a
 * to-do: TCP_NODELAY stays libnng's default, on, the value the peer sets on its endpoints).
 *
 * What differs from NNG perf, and why:
 * - req0/rep0, not pair1: perf's local_lat/remote_lat open pair1 sockets (pair0 where a build
 *   lacks pair1; req0/rep0 only in its inproc_lat mode), but the mechanism the peer implements
 *   is REQ/REP (PROTOCOL.md 4.9). A pair floor would count req0's request ID and its
 *   per-request state as the peer's cost, though any REQ/REP program pays them.
 * - NNG_OPT_REQ_RESENDTIME infinite, as the peer sets it (nng_client.cpp): req0's default
 *   resends an unanswered request after a minute, which arms libnng's timer at every send (a
 *   lock, and a wake of its timer thread whenever the deadline is the earliest: with one
 *   request at a time, every send; 15-17 % of a 16-byte round trip here); pair1 has no such
 *   timer, so off is as near to perf's loop as REQ gets. A dropped connection then fails the
 *   waiting receive (NNG_ECONNRESET) instead of waiting for a resend.
 * - No receive or send timeout: perf sets none; the peer's (--io-timeout) is the measurement's
 *   guard, not the library's cost, and `ipclab bench libraries` bounds this program's run.
 * - Each round trip timed (CLOCK_MONOTONIC, now_ns) after a warm-up, instead of perf's 100 ms
 *   sleep after the dial and the whole loop read with nng_clock (milliseconds); the one-way
 *   mean `ipclab bench libraries` prints beside it is perf's "average latency" (loop / 2N).
 * - The stop: one empty request, answered; the child then waits for the parent to close a
 *   pipe before it closes its socket (libnng 1.5's nng_close does not linger: closing right
 *   after the send could drop the answer), where perf sleeps 100 ms.
 *
 * The child listens (tcp://127.0.0.1 on a port the kernel picks, or ipc:// in a fresh 0700
 * directory) and tells the parent where over a pipe; libnng's threads do not survive fork, so
 * each side opens its socket (and so starts the library) after it, pinned first, so that
 * libnng's threads inherit the side's CPU. */
#include "floor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>

static void check(int rv, const char *what) {
    if (rv != 0) fail(1, "%s: %s", what, nng_strerror(rv));
}

/* The child: listen, say where, echo until the empty request, wait for the parent's word. */
static __attribute__((noreturn)) void echo(const struct library_options *o, pid_t parent, int tell,
                                           int done) {
    g_is_child = 1;
    /* A REP socket does not see its peer go: killed with the parent, not left waiting. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
    pin(o->server_cpu, "server");
    nng_socket rep;
    nng_listener listener;
    check(nng_rep0_open(&rep), "nng_rep0_open");
    char url[ADDRESS_MAX];
    if (o->ipc) snprintf(url, sizeof url, "ipc://%s", g_paths[0]);
    else snprintf(url, sizeof url, "tcp://127.0.0.1:0");
    int rv = nng_listen(rep, url, &listener, 0);
    if (rv != 0) fail(1, "nng_listen %s: %s", url, nng_strerror(rv));
    if (!o->ipc) {
        int port;
        check(nng_listener_get_int(listener, NNG_OPT_TCP_BOUND_PORT, &port), "bound port");
        snprintf(url, sizeof url, "tcp://127.0.0.1:%d", port);
    }
    if (write(tell, url, strlen(url) + 1) < 0) fail(1, "write: %s", strerror(errno));
    close(tell);
    for (;;) {
        nng_msg *msg;
        check(nng_recvmsg(rep, &msg, 0), "nng_recvmsg");
        size_t n = nng_msg_len(msg);
        if (n != 0 && n != o->size) fail(1, "a request of %zu bytes, expected %zu", n, o->size);
        check(nng_sendmsg(rep, msg, 0), "nng_sendmsg"); /* the message is the library's again */
        if (n == 0) break;
    }
    char byte;
    while (read(done, &byte, 1) < 0 && errno == EINTR) continue; /* end of file: answer taken */
    nng_close(rep);
    _exit(0);
}

/* The parent: dial, the timed round trips, the stop request. */
static void ping(const struct library_options *o, const char *url, int done, int64_t *samples) {
    pin(o->client_cpu, "client");
    nng_socket req;
    check(nng_req0_open(&req), "nng_req0_open");
    check(nng_socket_set_ms(req, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE),
          NNG_OPT_REQ_RESENDTIME);
    int rv = nng_dial(req, url, NULL, 0);
    if (rv != 0) fail(1, "nng_dial %s: %s", url, nng_strerror(rv));
    unsigned char *out = malloc(o->size);
    nng_msg *msg;
    if (!out || nng_msg_alloc(&msg, o->size) != 0) fail(1, "out of memory");
    for (size_t i = 0; i < o->size; i++) out[i] = (unsigned char)(i * 131 + 7);
    memcpy(nng_msg_body(msg), out, o->size);
    for (uint64_t i = 0; i < o->warmup + o->iterations; i++) {
        int64_t t0 = now_ns();
        check(nng_sendmsg(req, msg, 0), "nng_sendmsg");
        check(nng_recvmsg(req, &msg, 0), "nng_recvmsg");
        int64_t t1 = now_ns();
        if (nng_msg_len(msg) != o->size)
            fail(1, "echo of %zu bytes, expected %zu", nng_msg_len(msg), o->size);
        if (i >= o->warmup) samples[i - o->warmup] = t1 - t0;
    }
    if (memcmp(out, nng_msg_body(msg), o->size) != 0)
        fail(1, "the echo differs from what was sent");
    nng_msg_free(msg);
    check(nng_send(req, "", 0, 0), "stopping the echo");
    check(nng_recvmsg(req, &msg, 0), "stopping the echo");
    if (nng_msg_len(msg) != 0) fail(1, "the stop request's answer is not empty");
    nng_msg_free(msg);
    close(done);
    nng_close(req);
    free(out);
}

int main(int argc, char **argv) {
    struct library_options o;
    library_parse(argc, argv, "ipclab-floor-nng", &o);
    int fd;
    int64_t *samples = library_start(&o, "nng.sock", &fd);
    int tell[2], done[2]; /* child to parent: the address; parent to child: end of file, stop */
    if (pipe(tell) != 0 || pipe(done) != 0) fail(1, "pipe: %s", strerror(errno));
    pid_t parent = getpid();
    g_child = fork();
    if (g_child < 0) fail(1, "fork: %s", strerror(errno));
    if (g_child == 0) {
        close(tell[0]);
        close(done[1]);
        echo(&o, parent, tell[1], done[0]);
    }
    close(tell[1]);
    close(done[0]);
    char url[ADDRESS_MAX];
    library_read_address(tell[0], url);
    close(tell[0]);
    ping(&o, url, done[1], samples);
    library_finish(&o, fd, samples);
    return 0;
}
