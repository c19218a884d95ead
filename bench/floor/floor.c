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
 * Output: nothing on stdout; on error one line on stderr (exit 2: bad command line, exit 1:
 * anything else).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STREAM_SIZE 134217728u /* PROTOCOL.md MAX_PAYLOAD */
#define MAX_UDP_SIZE 65507u        /* largest IPv4 UDP payload */

#define MAX_QUEUE_SIZE 8192u      /* one message of a queue: the peers' M (PROTOCOL.md 4.1) */

enum mech {
    MECH_TCP, MECH_UDP, MECH_UDS, MECH_PIPE, MECH_FIFO, MECH_CACHELINE, MECH_SYSV_MQ,
    MECH_POSIX_MQ
};
enum pattern { PATTERN_RR, PATTERN_STREAM, PATTERN_SHORT };
enum side { SERVER = 0, CLIENT = 1 };

struct options {
    enum mech mech;
    enum pattern pattern;
    size_t size;
    size_t response_size; /* short */
    uint64_t messages;    /* stream */
    uint64_t iterations;
    uint64_t warmup;
    const char *samples_file;
    long client_cpu; /* -1: not pinned */
    long server_cpu;
};

/* State the error path needs: what to remove and whom to stop. */
static char g_dir[PATH_MAX];     /* mkdtemp directory, "" if none */
static char g_paths[2][PATH_MAX]; /* files inside it */
static pid_t g_child = -1;
static int g_is_child = 0;
static int g_msqid = -1;              /* sysv-mq: the private queue, removed at the end */
static char g_mq_names[2][64];        /* posix-mq: the two queues, unlinked at the end */

static void cleanup(void) {
    if (g_is_child) return;
    if (g_child > 0) {
        kill(g_child, SIGTERM);
        waitpid(g_child, NULL, 0);
        g_child = -1;
    }
    for (int i = 0; i < 2; i++)
        if (g_paths[i][0]) {
            unlink(g_paths[i]);
            g_paths[i][0] = '\0';
        }
    if (g_msqid >= 0) {
        msgctl(g_msqid, IPC_RMID, NULL);
        g_msqid = -1;
    }
    for (int i = 0; i < 2; i++)
        if (g_mq_names[i][0]) {
            mq_unlink(g_mq_names[i]);
            g_mq_names[i][0] = '\0';
        }
    if (g_dir[0]) {
        rmdir(g_dir);
        g_dir[0] = '\0';
    }
}

static void fail(int code, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    dprintf(STDERR_FILENO, "ipclab-floor: %s\n", line);
    if (g_is_child) _exit(code);
    cleanup();
    exit(code);
}

#define USAGE_HINT                                                                     \
    "usage: ipclab-floor tcp|udp|uds|pipe|fifo --size N --iterations N --warmup N "    \
    "--samples-file PATH [--client-cpu C] [--server-cpu C]; "                          \
    "ipclab-floor cacheline --iterations N --warmup N --samples-file PATH "            \
    "[--client-cpu C] [--server-cpu C]; "                                              \
    "ipclab-floor tcp|uds|pipe|fifo|sysv-mq|posix-mq --pattern stream --size N "       \
    "--messages N --warmup N --samples-file PATH [--client-cpu C] [--server-cpu C]; "  \
    "ipclab-floor tcp --pattern short --size N --response-size N --iterations N "      \
    "--warmup N --samples-file PATH [--client-cpu C] [--server-cpu C]"

/* Unsigned decimal, digits only, no overflow. */
static int parse_u64(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (*s == '\0') return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static void parse_options(int argc, char **argv, struct options *o) {
    if (argc < 2) fail(2, "missing mechanism; " USAGE_HINT);
    const char *m = argv[1];
    if (strcmp(m, "tcp") == 0) o->mech = MECH_TCP;
    else if (strcmp(m, "udp") == 0) o->mech = MECH_UDP;
    else if (strcmp(m, "uds") == 0) o->mech = MECH_UDS;
    else if (strcmp(m, "pipe") == 0) o->mech = MECH_PIPE;
    else if (strcmp(m, "fifo") == 0) o->mech = MECH_FIFO;
    else if (strcmp(m, "cacheline") == 0) o->mech = MECH_CACHELINE;
    else if (strcmp(m, "sysv-mq") == 0) o->mech = MECH_SYSV_MQ;
    else if (strcmp(m, "posix-mq") == 0) o->mech = MECH_POSIX_MQ;
    else fail(2, "unknown mechanism '%s'; " USAGE_HINT, m);

    /* The pattern first: it decides which flags belong. */
    o->pattern = PATTERN_RR;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--pattern") != 0) continue;
        const char *p = argv[i + 1];
        if (strcmp(p, "rr") == 0) o->pattern = PATTERN_RR;
        else if (strcmp(p, "stream") == 0) o->pattern = PATTERN_STREAM;
        else if (strcmp(p, "short") == 0) o->pattern = PATTERN_SHORT;
        else fail(2, "bad value for --pattern: '%s' (rr, stream, short)", p);
    }
    const int queue = o->mech == MECH_SYSV_MQ || o->mech == MECH_POSIX_MQ;
    if (o->pattern == PATTERN_RR && queue)
        fail(2, "%s has only --pattern stream here; " USAGE_HINT, m);
    if (o->pattern == PATTERN_STREAM && (o->mech == MECH_UDP || o->mech == MECH_CACHELINE))
        fail(2, "--pattern stream: tcp, uds, pipe, fifo, sysv-mq or posix-mq; " USAGE_HINT);
    if (o->pattern == PATTERN_SHORT && o->mech != MECH_TCP)
        fail(2, "--pattern short: tcp only; " USAGE_HINT);

    int have_size = 0, have_iter = 0, have_warm = 0, have_samples = 0, have_ccpu = 0,
        have_scpu = 0, have_pattern = 0, have_messages = 0, have_resp = 0;
    o->client_cpu = o->server_cpu = -1;
    for (int i = 2; i < argc; i += 2) {
        const char *flag = argv[i];
        if (i + 1 >= argc) fail(2, "flag %s needs a value", flag);
        const char *val = argv[i + 1];
        uint64_t n = 0;
        int *seen;
        if (strcmp(flag, "--size") == 0) seen = &have_size;
        else if (strcmp(flag, "--iterations") == 0) seen = &have_iter;
        else if (strcmp(flag, "--warmup") == 0) seen = &have_warm;
        else if (strcmp(flag, "--samples-file") == 0) seen = &have_samples;
        else if (strcmp(flag, "--client-cpu") == 0) seen = &have_ccpu;
        else if (strcmp(flag, "--server-cpu") == 0) seen = &have_scpu;
        else if (strcmp(flag, "--pattern") == 0) seen = &have_pattern;
        else if (strcmp(flag, "--messages") == 0) seen = &have_messages;
        else if (strcmp(flag, "--response-size") == 0) seen = &have_resp;
        else fail(2, "unknown flag '%s'; " USAGE_HINT, flag);
        if (*seen) fail(2, "flag %s given twice", flag);
        *seen = 1;
        if (seen == &have_pattern) continue; /* parsed above */
        if (seen == &have_samples) {
            if (*val == '\0') fail(2, "bad value for --samples-file: empty path");
            o->samples_file = val;
            continue;
        }
        if (parse_u64(val, &n) != 0) fail(2, "bad value for %s: '%s'", flag, val);
        if (seen == &have_size) {
            if (o->mech == MECH_CACHELINE)
                fail(2, "cacheline takes no --size (it bounces one counter); " USAGE_HINT);
            uint64_t max = o->mech == MECH_UDP ? MAX_UDP_SIZE
                         : queue               ? MAX_QUEUE_SIZE
                                               : MAX_STREAM_SIZE;
            if (n < 1 || n > max)
                fail(2, "bad value for --size: %s (1 ... %llu for this mechanism)", val,
                     (unsigned long long)max);
            o->size = (size_t)n;
        } else if (seen == &have_resp) {
            if (o->pattern != PATTERN_SHORT) fail(2, "--response-size needs --pattern short");
            if (n < 1 || n > MAX_STREAM_SIZE)
                fail(2, "bad value for --response-size: %s (1 ... %u)", val, MAX_STREAM_SIZE);
            o->response_size = (size_t)n;
        } else if (seen == &have_messages) {
            if (o->pattern != PATTERN_STREAM) fail(2, "--messages needs --pattern stream");
            if (n < 1) fail(2, "bad value for --messages: must be at least 1");
            o->messages = n;
        } else if (seen == &have_iter) {
            if (o->pattern == PATTERN_STREAM)
                fail(2, "--iterations is not used with --pattern stream (--messages is)");
            if (n < 1) fail(2, "bad value for --iterations: must be at least 1");
            o->iterations = n;
        } else if (seen == &have_warm) {
            o->warmup = n;
        } else {
            if (n >= CPU_SETSIZE) fail(2, "bad value for %s: %s", flag, val);
            if (seen == &have_ccpu) o->client_cpu = (long)n;
            else o->server_cpu = (long)n;
        }
    }
    if (!have_size && o->mech != MECH_CACHELINE) fail(2, "missing --size; " USAGE_HINT);
    if (o->pattern == PATTERN_STREAM) {
        if (!have_messages) fail(2, "missing --messages; " USAGE_HINT);
        o->iterations = 1; /* one sample: the stream */
    } else if (!have_iter) {
        fail(2, "missing --iterations; " USAGE_HINT);
    }
    if (o->pattern == PATTERN_SHORT && !have_resp) fail(2, "missing --response-size; " USAGE_HINT);
    if (!have_warm) fail(2, "missing --warmup; " USAGE_HINT);
    if (!have_samples) fail(2, "missing --samples-file; " USAGE_HINT);
    if (o->warmup > UINT64_MAX - o->iterations) fail(2, "--warmup + --iterations overflows");
    if (o->warmup > UINT64_MAX - o->messages) fail(2, "--warmup + --messages overflows");
    if (o->iterations > SIZE_MAX / sizeof(int64_t)) fail(2, "--iterations too large");
}

static void pin(long cpu, const char *who) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fail(1, "cannot pin the %s to CPU %ld: %s", who, cpu, strerror(errno));
}

static void set_nodelay(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        fail(1, "setsockopt(TCP_NODELAY): %s", strerror(errno));
}

static void write_all(int fd, const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            fail(1, "write: %s", strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Returns 0 after n bytes, -1 on end of stream before the first byte (a clean close). */
static int read_all(int fd, unsigned char *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r > 0) {
            got += (size_t)r;
        } else if (r == 0) {
            if (got == 0) return -1;
            fail(1, "end of stream after %zu of %zu bytes", got, n);
        } else if (errno != EINTR) {
            fail(1, "read: %s", strerror(errno));
        }
    }
    return 0;
}

static void make_tempdir(void) {
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || *tmp == '\0') tmp = "/tmp";
    if (snprintf(g_dir, sizeof g_dir, "%s/ipclab-floor-XXXXXX", tmp) >= (int)sizeof g_dir)
        fail(1, "TMPDIR too long");
    if (mkdtemp(g_dir) == NULL) {
        int e = errno;
        g_dir[0] = '\0';
        fail(1, "mkdtemp: %s", strerror(e));
    }
    /* mkdtemp creates the directory with mode 0700. */
}

static void path_in_dir(int slot, const char *name) {
    if (snprintf(g_paths[slot], PATH_MAX, "%s/%s", g_dir, name) >= PATH_MAX)
        fail(1, "path too long");
}

/* The channel: what each side reads from and writes to, set up before the fork. */
struct channel {
    int listen_fd;    /* tcp, uds: listening socket (child accepts) */
    int rd[2];        /* [SERVER], [CLIENT]: pipe ends, posix-mq queues; udp: rd[SERVER] is */
    int wr[2];        /* the child's bound socket */
    struct sockaddr_storage addr; /* tcp, udp: the bound server address; uds: path */
    socklen_t addr_len;
};

static void setup_channel(const struct options *o, struct channel *c) {
    memset(c, 0, sizeof *c);
    c->listen_fd = c->rd[SERVER] = c->wr[SERVER] = c->rd[CLIENT] = c->wr[CLIENT] = -1;
    switch (o->mech) {
    case MECH_TCP:
    case MECH_UDP: {
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
        break;
    case MECH_CACHELINE: /* handled by run_cacheline */
        break;
    }
    case MECH_UDS: {
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
        break;
    }
    case MECH_PIPE: {
        int req[2], resp[2];
        if (pipe2(req, O_CLOEXEC) != 0 || pipe2(resp, O_CLOEXEC) != 0)
            fail(1, "pipe: %s", strerror(errno));
        c->rd[SERVER] = req[0];
        c->wr[CLIENT] = req[1];
        c->rd[CLIENT] = resp[0];
        c->wr[SERVER] = resp[1];
        break;
    }
    case MECH_FIFO:
        make_tempdir();
        path_in_dir(0, "req");
        path_in_dir(1, "resp");
        if (mkfifo(g_paths[0], 0600) != 0 || mkfifo(g_paths[1], 0600) != 0)
            fail(1, "mkfifo: %s", strerror(errno));
        break;
    case MECH_SYSV_MQ:
        /* One private queue, the peers' default capacity (msgmnb); type 1 there, 2 back. */
        if ((g_msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0600)) < 0)
            fail(1, "msgget: %s", strerror(errno));
        break;
    case MECH_POSIX_MQ: {
        /* Two queues as the peers make them: 10 messages of 8192 bytes. */
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
        break;
    }
    }
}

/* One side's ends of the channel: the child (SERVER) accepts, the parent (CLIENT) connects or
 * opens; each closes the other side's pipe ends. */
static void open_side(const struct options *o, struct channel *c, int side, int *rd, int *wr) {
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

/* The child: echo until end of stream (or, for udp, until it is terminated). */
static void run_server(const struct options *o, struct channel *c) {
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

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

#define CACHELINE_STOP UINT64_MAX

/* cacheline: the counter at the start of a shared page (so alone on its 64-byte line). Odd
 * values are pings (client), even values pongs (server); CACHELINE_STOP ends the server. */
static void run_cacheline(const struct options *o, int64_t *samples) {
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) fail(1, "mmap: %s", strerror(errno));
    _Atomic uint64_t *line = (_Atomic uint64_t *)page;
    atomic_init(line, 0);

    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) fail(1, "fork: %s", strerror(errno));
    if (pid == 0) {
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

static void write_samples(int fd, const char *path, const int64_t *samples, uint64_t n) {
    unsigned char chunk[8 * 4096];
    uint64_t i = 0;
    while (i < n) {
        size_t k = 0;
        for (; k < sizeof chunk / 8 && i < n; k++, i++) {
            uint64_t v = (uint64_t)samples[i];
            for (int b = 0; b < 8; b++) chunk[k * 8 + b] = (unsigned char)(v >> (8 * b));
        }
        write_all(fd, chunk, k * 8);
    }
    if (close(fd) != 0) fail(1, "close %s: %s", path, strerror(errno));
}

/* ---- stream: one way, as fast as the mechanism takes it ---------------------------------- */

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

static void run_stream_receiver(const struct options *o, struct channel *c) {
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
static int64_t run_stream_sender(const struct options *o, int rd, int wr,
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

/* ---- short: a tcp connection per round trip ----------------------------------------------- */

/* The child: accept, read the request, answer, read the end of stream, close; until stopped. */
static void run_short_server(const struct options *o, struct channel *c) {
    g_is_child = 1;
    pin(o->server_cpu, "server");
    unsigned char *req = malloc(o->size), *resp = malloc(o->response_size);
    if (req == NULL || resp == NULL) fail(1, "out of memory");
    memset(resp, 0x5a, o->response_size);
    for (;;) {
        int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            fail(1, "accept: %s", strerror(errno));
        }
        set_nodelay(fd);
        if (read_all(fd, req, o->size) != 0) fail(1, "a client closed before its request");
        write_all(fd, resp, o->response_size);
        unsigned char end;
        ssize_t r;
        while ((r = read(fd, &end, 1)) < 0 && errno == EINTR) {
        }
        if (r != 0) fail(1, "a client sent more than its request");
        close(fd);
    }
}

/* The parent: connection i from 127.1.b.c (PROTOCOL.md 11.2), whole connections timed. */
static void run_short_client(const struct options *o, struct channel *c, const unsigned char *out,
                             unsigned char *in, int64_t *samples) {
    close(c->listen_fd);
    const uint64_t total = o->warmup + o->iterations;
    for (uint64_t i = 0; i < total; i++) {
        struct sockaddr_in from;
        memset(&from, 0, sizeof from);
        from.sin_family = AF_INET;
        const uint32_t k = (uint32_t)(i % 65280); /* 127.1.(k / 255).(k mod 255): never .255 */
        from.sin_addr.s_addr = htonl((127u << 24) | (1u << 16) | ((k / 255) << 8) | (k % 255));
        int64_t t0 = now_ns();
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) fail(1, "socket: %s", strerror(errno));
        int one = 1;
        if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) != 0)
            fail(1, "setsockopt(IP_BIND_ADDRESS_NO_PORT): %s", strerror(errno));
        if (bind(fd, (struct sockaddr *)&from, sizeof from) != 0)
            fail(1, "bind to a 127.1.b.c source: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *)&c->addr, c->addr_len) != 0)
            fail(1, "connect: %s", strerror(errno));
        set_nodelay(fd);
        write_all(fd, out, o->size);
        if (read_all(fd, in, o->response_size) != 0) fail(1, "the server closed the connection");
        close(fd);
        int64_t t1 = now_ns();
        if (i >= o->warmup) samples[i - o->warmup] = t1 - t0;
    }
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
    if (o.mech == MECH_CACHELINE) {
        if (samples == NULL) fail(1, "out of memory");
        memset(samples, 0, (size_t)o.iterations * sizeof *samples);
        run_cacheline(&o, samples);
        write_samples(samples_fd, o.samples_file, samples, o.iterations);
        cleanup();
        free(samples);
        return 0;
    }
    const size_t in_size = o.response_size > o.size ? o.response_size : o.size;
    unsigned char *out = malloc(o.size), *in = malloc(in_size);
    if (samples == NULL || out == NULL || in == NULL) fail(1, "out of memory");
    for (size_t i = 0; i < o.size; i++) out[i] = (unsigned char)(i * 131 + 7);
    /* Touch the pages now, not in the first timed round trip. */
    memset(in, 0, in_size);
    memset(samples, 0, (size_t)o.iterations * sizeof *samples);

    struct channel c;
    setup_channel(&o, &c);

    pid_t pid = fork();
    if (pid < 0) fail(1, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (o.pattern == PATTERN_STREAM) run_stream_receiver(&o, &c);
        if (o.pattern == PATTERN_SHORT) run_short_server(&o, &c);
        run_server(&o, &c);
    }
    g_child = pid;

    pin(o.client_cpu, "client");
    if (o.pattern == PATTERN_SHORT) {
        run_short_client(&o, &c, out, in, samples);
        write_samples(samples_fd, o.samples_file, samples, o.iterations);
        cleanup(); /* stops the accept loop */
        free(samples);
        free(out);
        free(in);
        return 0;
    }
    int rd = -1, wr = -1;
    open_side(&o, &c, CLIENT, &rd, &wr);
    if (o.pattern == PATTERN_STREAM) {
        samples[0] = run_stream_sender(&o, rd, wr, out);
        int status = 0;
        if (waitpid(pid, &status, 0) == pid) g_child = -1; /* it ends after its last ack */
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(1, "the receiver failed");
        if (o.mech != MECH_SYSV_MQ) {
            close(rd);
            if (wr != rd) close(wr);
        }
        write_samples(samples_fd, o.samples_file, samples, 1);
        cleanup(); /* removes the queues or the temporary directory */
        free(samples);
        free(out);
        free(in);
        return 0;
    }

    const uint64_t total = o.warmup + o.iterations;
    if (o.mech == MECH_UDP) {
        for (uint64_t i = 0; i < total; i++) {
            int64_t t0 = now_ns();
            if (send(wr, out, o.size, 0) < 0) fail(1, "send: %s", strerror(errno));
            ssize_t r;
            while ((r = recv(rd, in, o.size, 0)) < 0 && errno == EINTR) {
            }
            int64_t t1 = now_ns();
            if (r < 0)
                fail(1, "recv: %s", errno == EAGAIN ? "no echo within 10 s" : strerror(errno));
            if ((size_t)r != o.size) fail(1, "echo of %zd bytes, expected %zu", r, o.size);
            if (i >= o.warmup) samples[i - o.warmup] = t1 - t0;
        }
    } else {
        for (uint64_t i = 0; i < total; i++) {
            int64_t t0 = now_ns();
            write_all(wr, out, o.size);
            if (read_all(rd, in, o.size) != 0) fail(1, "the echo server closed the channel");
            int64_t t1 = now_ns();
            if (i >= o.warmup) samples[i - o.warmup] = t1 - t0;
        }
    }

    close(rd);
    if (wr != rd) close(wr);
    write_samples(samples_fd, o.samples_file, samples, o.iterations);
    cleanup(); /* ends and reaps the child, removes the temporary directory */
    free(samples);
    free(out);
    free(in);
    return 0;
}
