/*
 * ipclab-floor: the hand-written ping-pong every peer is measured against.
 *
 *   ipclab-floor MECH --size N --iterations N --warmup N --samples-file PATH
 *                [--client-cpu C] [--server-cpu C]
 *
 *   ipclab-floor cacheline --iterations N --warmup N --samples-file PATH
 *                [--client-cpu C] [--server-cpu C]
 *
 *   ipclab-floor MECH --pattern stream --size N --messages N --warmup N --samples-file PATH
 *                [--client-cpu C] [--server-cpu C]
 *
 *   ipclab-floor tcp --pattern short --size N --response-size N --iterations N --warmup N
 *                --samples-file PATH [--client-cpu C] [--server-cpu C]
 *
 * MECH is tcp, udp, uds, pipe or fifo. The program sets up the channel, forks an echo server
 * (the child: read N bytes, write them back) and times, in the parent, each round trip
 * (CLOCK_MONOTONIC around one write and the reads of the echo). The samples go to PATH as raw
 * little-endian int64 nanoseconds, the same format the peers write. No framing, no payload
 * generation, no validation: only the kernel's cost of the mechanism remains.
 *
 * cacheline is the floor of shared memory with busy waiting (shm-spin): parent and child share
 * an anonymous MAP_SHARED page and bounce one counter on one 64-byte cache line. The client
 * stores an odd value with release ordering and spins (acquire loads, pause hint) until the
 * server has stored the next even value; the server spins for the odd value and answers. One
 * sample is one such round trip: two cache-line transfers each way, no system call.
 *
 * stream (MECH tcp, uds, pipe, fifo, sysv-mq, posix-mq) is the floor of PROTOCOL.md 11.1: the
 * parent sends --warmup messages of N bytes, waits for the child's 1-byte acknowledgement, takes
 * the clock, sends --messages messages as fast as the mechanism takes them (one write, msgsnd or
 * mq_send each), waits for the second acknowledgement and takes the clock again. The child reads
 * everything (byte streams: greedy reads into a 64 KiB buffer, as the peers' servers read;
 * queues: one receive per message) and acknowledges after the warm-up and after the last message.
 * The samples file holds one sample: the nanoseconds of the measured stream.
 *
 * short (tcp only) is the floor of PROTOCOL.md 11.2: per iteration the parent opens a socket,
 * binds it to 127.1.b.c (k = i mod 65280, b = k / 255, c = k mod 255) port 0 with
 * IP_BIND_ADDRESS_NO_PORT, connects, sets TCP_NODELAY, writes the request, reads the response and
 * closes (first, so TIME_WAIT stays with it); the child accepts, reads the request, answers, reads
 * the end of stream and closes. One sample per connection, the whole of it.
 *
 * syscall and memcpy (costs.c) time --batch getppid() calls or --batch copies of --size bytes
 * per sample, in one process: the floors `ipclab run --explain` models a case's time with.
 *
 * Output: nothing on stdout; on error one line on stderr (exit 2: bad command line, exit 1:
 * anything else).
 *
 * The files: floor.h lists them.
 */
#include "floor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* cacheline: no channel, no payload; the counter's round trips only. */
static int cacheline_mode(const struct options *o, int samples_fd, int64_t *samples) {
    if (samples == NULL) fail(1, "out of memory");
    memset(samples, 0, (size_t)o->iterations * sizeof *samples);
    run_cacheline(o, samples);
    write_samples(samples_fd, o->samples_file, samples, o->iterations);
    cleanup();
    free(samples);
    return 0;
}

/* syscall, memcpy: one process, one operation's cost (costs.c). */
static int costs_mode(const struct options *o, int samples_fd, int64_t *samples) {
    if (samples == NULL) fail(1, "out of memory");
    run_costs(o, samples);
    write_samples(samples_fd, o->samples_file, samples, o->iterations);
    free(samples);
    return 0;
}

/* The forked child: the server of the pattern; never returns. */
__attribute__((noreturn)) static void child_side(const struct options *o, struct channel *c) {
    if (o->pattern == PATTERN_STREAM) run_stream_receiver(o, c);
    if (o->pattern == PATTERN_SHORT) run_short_server(o, c);
    run_server(o, c);
}

/* The parent over its ends of the channel (rr and stream): fills samples, returns how many. */
static uint64_t client_side(const struct options *o, struct channel *c, pid_t pid,
                            const unsigned char *out, unsigned char *in, int64_t *samples) {
    int rd = -1, wr = -1;
    open_side(o, c, CLIENT, &rd, &wr);
    uint64_t n = o->iterations;
    if (o->pattern == PATTERN_STREAM) {
        samples[0] = run_stream_sender(o, rd, wr, out);
        int status = 0;
        if (waitpid(pid, &status, 0) == pid) g_child = -1; /* it ends after its last ack */
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(1, "the receiver failed");
        n = 1;
    } else {
        run_pingpong(o, rd, wr, out, in, samples);
    }
    if (o->mech != MECH_SYSV_MQ) { /* sysv-mq has no descriptors */
        close(rd);
        if (wr != rd) close(wr);
    }
    return n;
}

/* Every mode with a channel: the buffers, the channel, the fork, the parent's side. */
static int channel_mode(const struct options *o, int samples_fd, int64_t *samples) {
    const size_t in_size = o->response_size > o->size ? o->response_size : o->size;
    unsigned char *out = malloc(o->size), *in = malloc(in_size);
    if (samples == NULL || out == NULL || in == NULL) fail(1, "out of memory");
    for (size_t i = 0; i < o->size; i++) out[i] = (unsigned char)(i * 131 + 7);
    /* Touch the pages now, not in the first timed round trip. */
    memset(in, 0, in_size);
    memset(samples, 0, (size_t)o->iterations * sizeof *samples);

    struct channel c;
    setup_channel(o, &c);

    pid_t pid = fork();
    if (pid < 0) fail(1, "fork: %s", strerror(errno));
    if (pid == 0) child_side(o, &c);
    g_child = pid;

    pin(o->client_cpu, "client");
    uint64_t n = o->iterations;
    if (o->pattern == PATTERN_SHORT) run_short_client(o, &c, out, in, samples);
    else n = client_side(o, &c, pid, out, in, samples);
    write_samples(samples_fd, o->samples_file, samples, n);
    /* Ends and reaps the child (short: stops the accept loop), removes the queues or the
     * temporary directory. */
    cleanup();
    free(samples);
    free(out);
    free(in);
    return 0;
}

int main(int argc, char **argv) {
    struct options o;
    memset(&o, 0, sizeof o);
    parse_options(argc, argv, &o);
    signal(SIGPIPE, SIG_IGN);
    /* Opened now, so a bad path fails before any measuring. */
    int samples_fd = open(o.samples_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (samples_fd < 0) fail(1, "cannot open %s: %s", o.samples_file, strerror(errno));

    int64_t *samples = malloc((size_t)o.iterations * sizeof *samples);
    if (o.mech == MECH_CACHELINE) return cacheline_mode(&o, samples_fd, samples);
    if (o.mech == MECH_SYSCALL || o.mech == MECH_MEMCPY) return costs_mode(&o, samples_fd, samples);
    return channel_mode(&o, samples_fd, samples);
}
