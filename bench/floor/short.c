/* --pattern short (PROTOCOL.md 11.2): a tcp connection per round trip. As in the peers, the
 * socket and its source bind are made before the clock; connect, exchange and close are timed. */
#include "floor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The child: accept, read the request, answer, read the end of stream, close; until stopped. */
void run_short_server(const struct options *o, struct channel *c) {
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

/* The parent: connection i from 127.1.b.c (PROTOCOL.md 11.2); socket, TCP_NODELAY and bind
 * untimed (the peers make them before the clock too), connect to close timed. */
void run_short_client(const struct options *o, struct channel *c, const unsigned char *out,
                             unsigned char *in, int64_t *samples) {
    close(c->listen_fd);
    const uint64_t total = o->warmup + o->iterations;
    for (uint64_t i = 0; i < total; i++) {
        struct sockaddr_in from;
        memset(&from, 0, sizeof from);
        from.sin_family = AF_INET;
        const uint32_t k = (uint32_t)(i % 65280); /* 127.1.(k / 255).(k mod 255): never .255 */
        from.sin_addr.s_addr = htonl((127u << 24) | (1u << 16) | ((k / 255) << 8) | (k % 255));
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) fail(1, "socket: %s", strerror(errno));
        set_nodelay(fd); /* kept by connect */
        int one = 1;
        if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) != 0)
            fail(1, "setsockopt(IP_BIND_ADDRESS_NO_PORT): %s", strerror(errno));
        if (bind(fd, (struct sockaddr *)&from, sizeof from) != 0)
            fail(1, "bind to a 127.1.b.c source: %s", strerror(errno));
        int64_t t0 = now_ns();
        if (connect(fd, (struct sockaddr *)&c->addr, c->addr_len) != 0)
            fail(1, "connect: %s", strerror(errno));
        write_all(fd, out, o->size);
        if (read_all(fd, in, o->response_size) != 0) fail(1, "the server closed the connection");
        close(fd);
        int64_t t1 = now_ns();
        if (i >= o->warmup) samples[i - o->warmup] = t1 - t0;
    }
}
