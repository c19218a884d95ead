/*
 * ipclab-floor: what its files share (main.c describes the program). One file per concern:
 *
 *   main.c      the command's flow: options, samples file, buffers, fork, which mode runs
 *   options.c   the strict command line (exit 2)
 *   common.c    the error path (fail, cleanup), CPU pinning, whole reads and writes, samples file
 *   channel.c   each mechanism's channel, set up before the fork, and each side's ends of it
 *   pingpong.c  rr: the echo server, the timed round trips, and cacheline
 *   stream.c    --pattern stream: one way, as fast as the mechanism takes it
 *   short.c     --pattern short: a tcp connection per round trip
 *   costs.c     syscall and memcpy: one operation's cost, no channel (--explain's floors)
 */
#ifndef IPCLAB_FLOOR_H
#define IPCLAB_FLOOR_H

#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#define MAX_STREAM_SIZE 134217728u /* PROTOCOL.md MAX_PAYLOAD */
#define MAX_UDP_SIZE 65507u        /* largest IPv4 UDP payload */

#define MAX_QUEUE_SIZE 8192u      /* one message of a queue: the peers' M (PROTOCOL.md 4.1) */

enum mech {
    MECH_TCP, MECH_UDP, MECH_UDS, MECH_PIPE, MECH_FIFO, MECH_CACHELINE, MECH_SYSV_MQ,
    MECH_POSIX_MQ, MECH_SYSCALL, MECH_MEMCPY
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
    uint64_t batch;       /* syscall, memcpy: operations per sample */
    const char *samples_file;
    long client_cpu; /* -1: not pinned */
    long server_cpu;
};

/* The channel: what each side reads from and writes to, set up before the fork. */
struct channel {
    int listen_fd;    /* tcp, uds: listening socket (child accepts) */
    int rd[2];        /* [SERVER], [CLIENT]: pipe ends, posix-mq queues; udp: rd[SERVER] is */
    int wr[2];        /* the child's bound socket */
    struct sockaddr_storage addr; /* tcp, udp: the bound server address; uds: path */
    socklen_t addr_len;
};

/* State the error path needs: what to remove and whom to stop (common.c). */
extern char g_dir[PATH_MAX];      /* mkdtemp directory, "" if none */
extern char g_paths[2][PATH_MAX]; /* files inside it */
extern pid_t g_child;
extern int g_is_child;
extern int g_msqid;               /* sysv-mq: the private queue, removed at the end */
extern char g_mq_names[2][64];    /* posix-mq: the two queues, unlinked at the end */

/* options.c */
void parse_options(int argc, char **argv, struct options *o);

/* common.c */
void cleanup(void);
__attribute__((noreturn, format(printf, 2, 3))) void fail(int code, const char *fmt, ...);
void pin(long cpu, const char *who);
void set_nodelay(int fd);
void write_all(int fd, const unsigned char *p, size_t n);
/* Returns 0 after n bytes, -1 on end of stream before the first byte (a clean close). */
int read_all(int fd, unsigned char *p, size_t n);
void write_samples(int fd, const char *path, const int64_t *samples, uint64_t n);
void make_tempdir(void);
void path_in_dir(int slot, const char *name);

/* channel.c */
void setup_channel(const struct options *o, struct channel *c);
void open_side(const struct options *o, struct channel *c, int side, int *rd, int *wr);

/* pingpong.c */
__attribute__((noreturn)) void run_server(const struct options *o, struct channel *c);
void run_pingpong(const struct options *o, int rd, int wr, const unsigned char *out,
                  unsigned char *in, int64_t *samples);
void run_cacheline(const struct options *o, int64_t *samples);

/* stream.c */
__attribute__((noreturn)) void run_stream_receiver(const struct options *o, struct channel *c);
int64_t run_stream_sender(const struct options *o, int rd, int wr, const unsigned char *out);

/* short.c */
__attribute__((noreturn)) void run_short_server(const struct options *o, struct channel *c);
void run_short_client(const struct options *o, struct channel *c, const unsigned char *out,
                      unsigned char *in, int64_t *samples);

/* costs.c */
void run_costs(const struct options *o, int64_t *samples);

/* Inline: the timed loops read the clock in place, not through a call. */
static inline int64_t now_ns(void) {
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

/* library.c: what the message libraries' floors (zmq.c, nng.c) share. */
#define ADDRESS_MAX (PATH_MAX + 16) /* ipc:// and a path */
struct library_options {
    int ipc;
    size_t size;
    uint64_t iterations, warmup;
    const char *samples_file;
    long client_cpu, server_cpu;
};
void library_parse(int argc, char **argv, const char *program, struct library_options *o);
void library_read_address(int from, char *where);
int64_t *library_start(const struct library_options *o, const char *socket_name, int *fd);
void library_finish(const struct library_options *o, int fd, int64_t *samples);

#endif
