/* Each mechanism's channel: set up by the parent before the fork (setup_channel), then each side
 * takes its ends (open_side). Everything created is registered in the globals of floor.h, so the
 * error path and the end remove it. */
#include "floor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* tcp, udp: bound to 127.0.0.1 with a kernel-chosen port; tcp listens, udp is the child's. */
static void setup_inet(const struct options *o, struct channel *c) {
    int type = o->mech == MECH_TCP ? SOCK_STREAM : SOCK_DGRAM;
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (fd < 0) fail(1, "socket: %s", strerror(errno));
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sin.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0)
        fail(1, "bind 127.0.0.1:0: %s", strerror(errno));
    c->addr_len = sizeof c->addr;
    if (getsockname(fd, (struct sockaddr *)&c->addr, &c->addr_len) != 0)
        fail(1, "getsockname: %s", strerror(errno));
    if (o->mech == MECH_TCP) {
        if (listen(fd, 16) != 0) fail(1, "listen: %s", strerror(errno));
        c->listen_fd = fd;
    } else {
        c->rd[SERVER] = c->wr[SERVER] = fd;
    }
}

/* uds: a listening socket "sock" in the temporary directory. */
static void setup_uds(struct channel *c) {
    make_tempdir();
    path_in_dir(0, "sock");
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    if (strlen(g_paths[0]) >= sizeof sun.sun_path) fail(1, "socket path too long");
    strcpy(sun.sun_path, g_paths[0]);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail(1, "socket: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0)
        fail(1, "bind %s: %s", g_paths[0], strerror(errno));
    if (listen(fd, 1) != 0) fail(1, "listen: %s", strerror(errno));
    c->listen_fd = fd;
    memcpy(&c->addr, &sun, sizeof sun);
    c->addr_len = sizeof sun;
}

/* pipe: one pipe each way. */
static void setup_pipe(struct channel *c) {
    int req[2], resp[2];
    if (pipe2(req, O_CLOEXEC) != 0 || pipe2(resp, O_CLOEXEC) != 0)
        fail(1, "pipe: %s", strerror(errno));
    c->rd[SERVER] = req[0];
    c->wr[CLIENT] = req[1];
    c->rd[CLIENT] = resp[0];
    c->wr[SERVER] = resp[1];
}

/* fifo: "req" and "resp" in the temporary directory, opened by each side (open_side). */
static void setup_fifo(void) {
    make_tempdir();
    path_in_dir(0, "req");
    path_in_dir(1, "resp");
    if (mkfifo(g_paths[0], 0600) != 0 || mkfifo(g_paths[1], 0600) != 0)
        fail(1, "mkfifo: %s", strerror(errno));
}

/* sysv-mq: one private queue, the peers' default capacity (msgmnb); type 1 there, 2 back. */
static void setup_sysv_mq(void) {
    if ((g_msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0600)) < 0)
        fail(1, "msgget: %s", strerror(errno));
}

/* posix-mq: two queues as the peers make them: 10 messages of 8192 bytes. */
static void setup_posix_mq(struct channel *c) {
    struct mq_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.mq_maxmsg = 10;
    attr.mq_msgsize = MAX_QUEUE_SIZE;
    for (int i = 0; i < 2; i++) {
        snprintf(g_mq_names[i], sizeof g_mq_names[i], "/ipclab-floor-%ld-%d", (long)getpid(),
                 i + 1);
        mqd_t q = mq_open(g_mq_names[i], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
        if (q == (mqd_t)-1) {
            int e = errno;
            g_mq_names[i][0] = '\0';
            fail(1, "mq_open: %s", strerror(e));
        }
        if (i == 0) c->wr[CLIENT] = c->rd[SERVER] = q; /* direction 1 */
        else c->wr[SERVER] = c->rd[CLIENT] = q;        /* direction 2 */
    }
}

void setup_channel(const struct options *o, struct channel *c) {
    memset(c, 0, sizeof *c);
    c->listen_fd = c->rd[SERVER] = c->wr[SERVER] = c->rd[CLIENT] = c->wr[CLIENT] = -1;
    switch (o->mech) {
    case MECH_TCP:
    case MECH_UDP: setup_inet(o, c); break;
    case MECH_UDS: setup_uds(c); break;
    case MECH_PIPE: setup_pipe(c); break;
    case MECH_FIFO: setup_fifo(); break;
    case MECH_SYSV_MQ: setup_sysv_mq(); break;
    case MECH_POSIX_MQ: setup_posix_mq(c); break;
    case MECH_CACHELINE: break; /* handled by run_cacheline */
    }
}

/* One side's ends of the channel: the child (SERVER) accepts, the parent (CLIENT) connects or
 * opens; each closes the other side's pipe ends. */
void open_side(const struct options *o, struct channel *c, int side, int *rd, int *wr) {
    switch (o->mech) {
    case MECH_TCP:
    case MECH_UDS: {
        int fd;
        if (side == SERVER) {
            fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
            if (fd < 0) fail(1, "accept: %s", strerror(errno));
        } else {
            fd = socket(c->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0) fail(1, "socket: %s", strerror(errno));
            if (connect(fd, (struct sockaddr *)&c->addr, c->addr_len) != 0)
                fail(1, "connect: %s", strerror(errno));
        }
        close(c->listen_fd);
        if (o->mech == MECH_TCP) set_nodelay(fd);
        *rd = *wr = fd;
        break;
    }
    case MECH_UDP: {
        if (side == SERVER) {
            *rd = *wr = c->rd[SERVER];
            break;
        }
        close(c->rd[SERVER]);
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) fail(1, "socket: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *)&c->addr, c->addr_len) != 0)
            fail(1, "connect: %s", strerror(errno));
        /* Loopback does not lose datagrams in practice; if it does, fail instead of hanging. */
        struct timeval tv = {10, 0};
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
            fail(1, "setsockopt(SO_RCVTIMEO): %s", strerror(errno));
        *rd = *wr = fd;
        break;
    }
    case MECH_PIPE:
        close(c->rd[!side]);
        close(c->wr[!side]);
        /* fall through */
    case MECH_POSIX_MQ: /* both sides use both queues */
        *rd = c->rd[side];
        *wr = c->wr[side];
        break;
    case MECH_FIFO: {
        /* Both open req first, then resp, so neither blocks forever. */
        int req = open(g_paths[0], (side == SERVER ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
        if (req < 0) fail(1, "open %s: %s", g_paths[0], strerror(errno));
        int resp = open(g_paths[1], (side == SERVER ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
        if (resp < 0) fail(1, "open %s: %s", g_paths[1], strerror(errno));
        *rd = side == SERVER ? req : resp;
        *wr = side == SERVER ? resp : req;
        break;
    }
    case MECH_SYSV_MQ:
    case MECH_CACHELINE: /* no descriptors */
        break;
    }
}
