/* --pattern stream (PROTOCOL.md 11.1): one way, as fast as the mechanism takes it. The child
 * receives and acknowledges after the warm-up and after the last message; the parent times the
 * stream between the two acknowledgements. */
#include "floor.h"

#include <errno.h>
#include <mqueue.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <unistd.h>

struct sysv_msg {
    long mtype;
    unsigned char mtext[MAX_QUEUE_SIZE];
};

/* The child: receives `count` messages (all their bytes), then acknowledges with one byte. */
static void stream_receive(const struct options *o, int rd, int wr, uint64_t count,
                           unsigned char *buf, struct sysv_msg *msg) {
    if (o->mech == MECH_SYSV_MQ) {
        for (uint64_t i = 0; i < count; i++) {
            ssize_t r = msgrcv(g_msqid, msg, MAX_QUEUE_SIZE, 1, 0);
            if (r < 0 && errno == EINTR) { i--; continue; }
            if (r != (ssize_t)o->size) fail(1, "msgrcv: %s", r < 0 ? strerror(errno) : "size");
        }
        msg->mtype = 2;
        while (msgsnd(g_msqid, msg, 1, 0) != 0)
            if (errno != EINTR) fail(1, "msgsnd: %s", strerror(errno));
        return;
    }
    if (o->mech == MECH_POSIX_MQ) {
        for (uint64_t i = 0; i < count; i++) {
            ssize_t r = mq_receive((mqd_t)rd, (char *)buf, MAX_QUEUE_SIZE, NULL);
            if (r < 0 && errno == EINTR) { i--; continue; }
            if (r != (ssize_t)o->size) fail(1, "mq_receive: %s", r < 0 ? strerror(errno) : "size");
        }
        while (mq_send((mqd_t)wr, (const char *)buf, 1, 0) != 0)
            if (errno != EINTR) fail(1, "mq_send: %s", strerror(errno));
        return;
    }
    /* Byte streams: as much as the kernel has, into 64 KiB, never past this phase's bytes. */
    uint64_t left = count * (uint64_t)o->size;
    while (left > 0) {
        size_t want = left < 65536 ? (size_t)left : 65536;
        ssize_t r = read(rd, buf, want);
        if (r > 0) left -= (uint64_t)r;
        else if (r == 0) fail(1, "end of stream with %llu bytes to come", (unsigned long long)left);
        else if (errno != EINTR) fail(1, "read: %s", strerror(errno));
    }
    write_all(wr, buf, 1);
}

void run_stream_receiver(const struct options *o, struct channel *c) {
    g_is_child = 1;
    pin(o->server_cpu, "server");
    int rd = -1, wr = -1;
    open_side(o, c, SERVER, &rd, &wr);
    unsigned char *buf = malloc(65536);
    struct sysv_msg *msg = malloc(sizeof *msg);
    if (buf == NULL || msg == NULL) fail(1, "out of memory");
    memset(buf, 0, 65536);
    stream_receive(o, rd, wr, o->warmup, buf, msg);
    stream_receive(o, rd, wr, o->messages, buf, msg);
    _exit(0);
}

/* The parent: `count` messages of --size bytes, one call each. */
static void stream_send(const struct options *o, int wr, uint64_t count, const unsigned char *out,
                        struct sysv_msg *msg) {
    for (uint64_t i = 0; i < count; i++) {
        if (o->mech == MECH_SYSV_MQ) {
            while (msgsnd(g_msqid, msg, o->size, 0) != 0)
                if (errno != EINTR) fail(1, "msgsnd: %s", strerror(errno));
        } else if (o->mech == MECH_POSIX_MQ) {
            while (mq_send((mqd_t)wr, (const char *)out, o->size, 0) != 0)
                if (errno != EINTR) fail(1, "mq_send: %s", strerror(errno));
        } else {
            write_all(wr, out, o->size);
        }
    }
}

static void stream_wait_ack(const struct options *o, int rd, unsigned char *in,
                            struct sysv_msg *ack) {
    ssize_t r;
    if (o->mech == MECH_SYSV_MQ) {
        while ((r = msgrcv(g_msqid, ack, MAX_QUEUE_SIZE, 2, 0)) < 0)
            if (errno != EINTR) fail(1, "msgrcv: %s", strerror(errno));
    } else if (o->mech == MECH_POSIX_MQ) {
        while ((r = mq_receive((mqd_t)rd, (char *)in, MAX_QUEUE_SIZE, NULL)) < 0)
            if (errno != EINTR) fail(1, "mq_receive: %s", strerror(errno));
    } else if (read_all(rd, in, 1) != 0) {
        fail(1, "the receiver closed the channel");
    }
}

/* Warm-up, acknowledgement, then the measured stream up to the second acknowledgement. */
int64_t run_stream_sender(const struct options *o, int rd, int wr,
                                 const unsigned char *out) {
    struct sysv_msg *msg = malloc(sizeof *msg), *ack = malloc(sizeof *ack);
    unsigned char *in = malloc(MAX_QUEUE_SIZE);
    if (msg == NULL || ack == NULL || in == NULL) fail(1, "out of memory");
    msg->mtype = 1;
    memcpy(msg->mtext, out, o->size <= MAX_QUEUE_SIZE ? o->size : MAX_QUEUE_SIZE);
    memset(in, 0, MAX_QUEUE_SIZE);
    stream_send(o, wr, o->warmup, out, msg);
    stream_wait_ack(o, rd, in, ack);
    int64_t t0 = now_ns();
    stream_send(o, wr, o->messages, out, msg);
    stream_wait_ack(o, rd, in, ack);
    int64_t t1 = now_ns();
    free(msg);
    free(ack);
    free(in);
    return t1 - t0;
}

