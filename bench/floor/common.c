/* What every mode uses: the error path, CPU pinning, whole reads and writes, the samples file
 * and the temporary directory. */
#include "floor.h"

#include <errno.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/wait.h>
#include <unistd.h>

char g_dir[PATH_MAX];
char g_paths[2][PATH_MAX];
pid_t g_child = -1;
int g_is_child = 0;
int g_msqid = -1;
char g_mq_names[2][64];

void cleanup(void) {
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

void fail(int code, const char *fmt, ...) {
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

void pin(long cpu, const char *who) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fail(1, "cannot pin the %s to CPU %ld: %s", who, cpu, strerror(errno));
}

void set_nodelay(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        fail(1, "setsockopt(TCP_NODELAY): %s", strerror(errno));
}

void write_all(int fd, const unsigned char *p, size_t n) {
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

int read_all(int fd, unsigned char *p, size_t n) {
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

void write_samples(int fd, const char *path, const int64_t *samples, uint64_t n) {
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

void make_tempdir(void) {
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

void path_in_dir(int slot, const char *name) {
    if (snprintf(g_paths[slot], PATH_MAX, "%s/%s", g_dir, name) >= PATH_MAX)
        fail(1, "path too long");
}
