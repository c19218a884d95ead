/* What the message libraries' floors (zmq.c, nng.c) share: their command line, the pipe over
 * which the echo side tells the client its address, and the run around the round trips (the
 * samples file opened first, the socket's directory, the child's clean exit, the samples
 * written). Each library's file keeps only its sockets, its echo and its timed loop. */
#include "floor.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t number(const char *flag, const char *text) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || end == text || text[0] == '-')
        fail(2, "%s: %s is not a number", flag, text);
    return v;
}

void library_parse(int argc, char **argv, const char *program, struct library_options *o) {
    static const struct option longs[] = {
        {"size", required_argument, 0, 's'},       {"iterations", required_argument, 0, 'i'},
        {"warmup", required_argument, 0, 'w'},     {"samples-file", required_argument, 0, 'f'},
        {"client-cpu", required_argument, 0, 'c'}, {"server-cpu", required_argument, 0, 'S'},
        {0, 0, 0, 0}};
    *o = (struct library_options){.size = 16, .iterations = 10000, .warmup = 1000,
                                  .client_cpu = -1, .server_cpu = -1};
    if (argc < 2 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "ipc")))
        fail(2, "usage: %s tcp|ipc --size N --iterations N --warmup N "
                "--samples-file PATH [--client-cpu C --server-cpu C]", program);
    o->ipc = strcmp(argv[1], "ipc") == 0;
    optind = 2;
    opterr = 0; /* the one line below, not getopt's as well */
    for (int c; (c = getopt_long(argc, argv, "", longs, NULL)) != -1;) {
        switch (c) {
        case 's': o->size = number("--size", optarg); break;
        case 'i': o->iterations = number("--iterations", optarg); break;
        case 'w': o->warmup = number("--warmup", optarg); break;
        case 'f': o->samples_file = optarg; break;
        case 'c': o->client_cpu = (long)number("--client-cpu", optarg); break;
        case 'S': o->server_cpu = (long)number("--server-cpu", optarg); break;
        default: fail(2, "unknown option or a missing value: %s", argv[optind - 1]);
        }
    }
    if (optind != argc) fail(2, "unexpected argument %s", argv[optind]);
    if (!o->samples_file || !o->iterations || !o->size || o->size > MAX_STREAM_SIZE)
        fail(2, "--samples-file, --iterations ≥ 1 and 1 ≤ --size ≤ %u are needed",
             MAX_STREAM_SIZE);
    if ((o->client_cpu < 0) != (o->server_cpu < 0))
        fail(2, "--client-cpu and --server-cpu go together");
}

void library_read_address(int from, char *where) {
    size_t got = 0;
    for (ssize_t r; got < ADDRESS_MAX && (r = read(from, where + got, ADDRESS_MAX - got)) != 0;) {
        if (r < 0) {
            if (errno == EINTR) continue;
            fail(1, "read: %s", strerror(errno));
        }
        got += (size_t)r;
        if (memchr(where, '\0', got)) return;
    }
    fail(1, "the echo side gave no address");
}

int64_t *library_start(const struct library_options *o, const char *socket_name, int *fd) {
    *fd = open(o->samples_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (*fd < 0) fail(1, "cannot open %s: %s", o->samples_file, strerror(errno));
    int64_t *samples = malloc(o->iterations * sizeof *samples);
    if (!samples) fail(1, "out of memory");
    if (o->ipc) {
        make_tempdir();
        path_in_dir(0, socket_name);
    }
    return samples;
}

void library_finish(const struct library_options *o, int fd, int64_t *samples) {
    int status;
    if (waitpid(g_child, &status, 0) != g_child || !WIFEXITED(status) || WEXITSTATUS(status))
        fail(1, "the echo side did not exit cleanly");
    g_child = -1;
    write_samples(fd, o->samples_file, samples, o->iterations);
    free(samples);
    cleanup();
}
