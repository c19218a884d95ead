/* syscall and memcpy: the floors of `--explain` (the orchestrator's execute/floors.py), no
 * channel and no second process. One sample is the time of --batch operations, so that the
 * clock's own ~20 ns does not swamp an operation that takes less:
 *   syscall  --batch getppid() calls: the cheapest system call, its entry and exit alone;
 *   memcpy   --batch copies of --size bytes between two buffers of that size, touched first
 *            (so page faults are not timed), the destination kept live for the compiler. */
#include "floor.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int64_t syscall_batch(uint64_t batch) {
    const int64_t start = now_ns();
    for (uint64_t i = 0; i < batch; i++) syscall(SYS_getppid);
    return now_ns() - start;
}

static int64_t memcpy_batch(unsigned char *dst, const unsigned char *src, size_t size,
                            uint64_t batch) {
    const int64_t start = now_ns();
    for (uint64_t i = 0; i < batch; i++) {
        memcpy(dst, src, size);
        __asm__ __volatile__("" : : "r"(dst) : "memory"); /* the copy is used */
    }
    return now_ns() - start;
}

void run_costs(const struct options *o, int64_t *samples) {
    unsigned char *src = NULL, *dst = NULL;
    if (o->mech == MECH_MEMCPY) {
        src = malloc(o->size);
        dst = malloc(o->size);
        if (src == NULL || dst == NULL) fail(1, "out of memory");
        memset(src, 0x5a, o->size);
        memset(dst, 0, o->size);
    }
    pin(o->client_cpu, "client");
    for (uint64_t i = 0; i < o->warmup + o->iterations; i++) {
        const int64_t t = o->mech == MECH_MEMCPY ? memcpy_batch(dst, src, o->size, o->batch)
                                                 : syscall_batch(o->batch);
        if (i >= o->warmup) samples[i - o->warmup] = t;
    }
    free(src);
    free(dst);
}
