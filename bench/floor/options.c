/* The command line, strictly: every flag once, `--name value`, unsigned decimal numbers. Any
 * mistake is one line on stderr and exit 2. */
#include "floor.h"

#include <sched.h>
#include <string.h>

#define USAGE_HINT                                                                     \
    "usage: ipclab-floor tcp|udp|uds|pipe|fifo --size N --iterations N --warmup N "    \
    "--samples-file PATH [--client-cpu C] [--server-cpu C]; "                          \
    "ipclab-floor cacheline --iterations N --warmup N --samples-file PATH "            \
    "[--client-cpu C] [--server-cpu C]; "                                              \
    "ipclab-floor tcp|uds|pipe|fifo|sysv-mq|posix-mq --pattern stream --size N "       \
    "--messages N --warmup N --samples-file PATH [--client-cpu C] [--server-cpu C]; "  \
    "ipclab-floor tcp --pattern short --size N --response-size N --iterations N "      \
    "--warmup N --samples-file PATH [--client-cpu C] [--server-cpu C]; "               \
    "ipclab-floor syscall --batch N --iterations N --warmup N --samples-file PATH "    \
    "[--client-cpu C]; ipclab-floor memcpy --size N --batch N --iterations N "         \
    "--warmup N --samples-file PATH [--client-cpu C]"

/* Indexed by enum mech and enum pattern. */
static const char *const mech_names[] = {"tcp",  "udp",       "uds",     "pipe",
                                         "fifo", "cacheline", "sysv-mq", "posix-mq",
                                         "syscall", "memcpy"};
static const char *const pattern_names[] = {"rr", "stream", "short"};

enum flag {
    F_SIZE, F_ITERATIONS, F_WARMUP, F_SAMPLES_FILE, F_CLIENT_CPU, F_SERVER_CPU, F_PATTERN,
    F_MESSAGES, F_RESPONSE_SIZE, F_BATCH, F_COUNT
};
static const char *const flag_names[F_COUNT] = {
    "--size",       "--iterations", "--warmup",   "--samples-file",  "--client-cpu",
    "--server-cpu", "--pattern",    "--messages", "--response-size", "--batch"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The index of s in names, or -1. */
static int lookup(const char *const *names, int count, const char *s) {
    for (int i = 0; i < count; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

static int is_queue(enum mech m) { return m == MECH_SYSV_MQ || m == MECH_POSIX_MQ; }
static int is_cost(enum mech m) { return m == MECH_SYSCALL || m == MECH_MEMCPY; }

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

static void parse_mechanism(int argc, char **argv, struct options *o) {
    if (argc < 2) fail(2, "missing mechanism; " USAGE_HINT);
    const int m = lookup(mech_names, COUNT(mech_names), argv[1]);
    if (m < 0) fail(2, "unknown mechanism '%s'; " USAGE_HINT, argv[1]);
    o->mech = (enum mech)m;
}

/* The pattern first: it decides which flags belong. */
static void parse_pattern(int argc, char **argv, struct options *o) {
    o->pattern = PATTERN_RR;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--pattern") != 0) continue;
        const int p = lookup(pattern_names, COUNT(pattern_names), argv[i + 1]);
        if (p < 0) fail(2, "bad value for --pattern: '%s' (rr, stream, short)", argv[i + 1]);
        o->pattern = (enum pattern)p;
    }
    if (o->pattern != PATTERN_RR && (is_cost(o->mech) || o->mech == MECH_CACHELINE))
        fail(2, "%s takes no --pattern; " USAGE_HINT, argv[1]);
    if (o->pattern == PATTERN_RR && is_queue(o->mech))
        fail(2, "%s has only --pattern stream here; " USAGE_HINT, argv[1]);
    if (o->pattern == PATTERN_STREAM && (o->mech == MECH_UDP || o->mech == MECH_CACHELINE))
        fail(2, "--pattern stream: tcp, uds, pipe, fifo, sysv-mq or posix-mq; " USAGE_HINT);
    if (o->pattern == PATTERN_SHORT && o->mech != MECH_TCP)
        fail(2, "--pattern short: tcp only; " USAGE_HINT);
}

/* A numeric flag's value n (val as given), checked against the mechanism and pattern. */
static void set_number(struct options *o, enum flag f, const char *flag, const char *val,
                       uint64_t n) {
    switch (f) {
    case F_SIZE: {
        if (o->mech == MECH_CACHELINE || o->mech == MECH_SYSCALL)
            fail(2, "%s takes no --size; " USAGE_HINT, mech_names[o->mech]);
        uint64_t max = o->mech == MECH_UDP ? MAX_UDP_SIZE
                     : is_queue(o->mech)   ? MAX_QUEUE_SIZE
                                           : MAX_STREAM_SIZE;
        if (n < 1 || n > max)
            fail(2, "bad value for --size: %s (1 ... %llu for this mechanism)", val,
                 (unsigned long long)max);
        o->size = (size_t)n;
        break;
    }
    case F_RESPONSE_SIZE:
        if (o->pattern != PATTERN_SHORT) fail(2, "--response-size needs --pattern short");
        if (n < 1 || n > MAX_STREAM_SIZE)
            fail(2, "bad value for --response-size: %s (1 ... %u)", val, MAX_STREAM_SIZE);
        o->response_size = (size_t)n;
        break;
    case F_MESSAGES:
        if (o->pattern != PATTERN_STREAM) fail(2, "--messages needs --pattern stream");
        if (n < 1) fail(2, "bad value for --messages: must be at least 1");
        o->messages = n;
        break;
    case F_ITERATIONS:
        if (o->pattern == PATTERN_STREAM)
            fail(2, "--iterations is not used with --pattern stream (--messages is)");
        if (n < 1) fail(2, "bad value for --iterations: must be at least 1");
        o->iterations = n;
        break;
    case F_WARMUP:
        o->warmup = n;
        break;
    case F_BATCH:
        if (!is_cost(o->mech)) fail(2, "--batch is for syscall and memcpy only");
        if (n < 1) fail(2, "bad value for --batch: must be at least 1");
        o->batch = n;
        break;
    default: /* the CPUs */
        if (n >= CPU_SETSIZE) fail(2, "bad value for %s: %s", flag, val);
        if (f == F_CLIENT_CPU) o->client_cpu = (long)n;
        else o->server_cpu = (long)n;
    }
}

static void parse_flags(int argc, char **argv, struct options *o, int *seen) {
    o->client_cpu = o->server_cpu = -1;
    for (int i = 2; i < argc; i += 2) {
        const char *flag = argv[i];
        if (i + 1 >= argc) fail(2, "flag %s needs a value", flag);
        const char *val = argv[i + 1];
        const int f = lookup(flag_names, F_COUNT, flag);
        if (f < 0) fail(2, "unknown flag '%s'; " USAGE_HINT, flag);
        if (seen[f]) fail(2, "flag %s given twice", flag);
        seen[f] = 1;
        if (f == F_PATTERN) continue; /* parsed above */
        if (f == F_SAMPLES_FILE) {
            if (*val == '\0') fail(2, "bad value for --samples-file: empty path");
            o->samples_file = val;
            continue;
        }
        uint64_t n = 0;
        if (parse_u64(val, &n) != 0) fail(2, "bad value for %s: '%s'", flag, val);
        set_number(o, (enum flag)f, flag, val, n);
    }
}

/* What the mode needs and was not given, and the sizes that would overflow. */
static void check_complete(struct options *o, const int *seen) {
    if (!seen[F_SIZE] && o->mech != MECH_CACHELINE && o->mech != MECH_SYSCALL)
        fail(2, "missing --size; " USAGE_HINT);
    if (is_cost(o->mech) && !seen[F_BATCH]) fail(2, "missing --batch; " USAGE_HINT);
    if (is_cost(o->mech) && seen[F_SERVER_CPU]) fail(2, "%s has no server: no --server-cpu", mech_names[o->mech]);
    if (o->pattern == PATTERN_STREAM) {
        if (!seen[F_MESSAGES]) fail(2, "missing --messages; " USAGE_HINT);
        o->iterations = 1; /* one sample: the stream */
    } else if (!seen[F_ITERATIONS]) {
        fail(2, "missing --iterations; " USAGE_HINT);
    }
    if (o->pattern == PATTERN_SHORT && !seen[F_RESPONSE_SIZE])
        fail(2, "missing --response-size; " USAGE_HINT);
    if (!seen[F_WARMUP]) fail(2, "missing --warmup; " USAGE_HINT);
    if (!seen[F_SAMPLES_FILE]) fail(2, "missing --samples-file; " USAGE_HINT);
    if (o->warmup > UINT64_MAX - o->iterations) fail(2, "--warmup + --iterations overflows");
    if (o->warmup > UINT64_MAX - o->messages) fail(2, "--warmup + --messages overflows");
    if (o->iterations > SIZE_MAX / sizeof(int64_t)) fail(2, "--iterations too large");
}

void parse_options(int argc, char **argv, struct options *o) {
    int seen[F_COUNT] = {0};
    parse_mechanism(argc, argv, o);
    parse_pattern(argc, argv, o);
    parse_flags(argc, argv, o, seen);
    check_complete(o, seen);
}
