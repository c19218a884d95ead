/* libipclab_native.so: the "server" of the in-process mechanisms (PROTOCOL.md 4.4). */
#ifndef IPCLAB_NATIVE_H
#define IPCLAB_NATIVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills resp[0..resp_len) with payload(seed, 2, seq, resp_len) and checks that
 * req[0..req_len) starts with payload(seed, 1, seq, req_len)'s first min(8, req_len) bytes.
 * Returns 0, or -1 when the request's stamp is wrong. Keeps the last response base it
 * computed (per thread), so a call costs a copy of resp_len bytes, as a server's does. */
int ipclab_call(const uint8_t *req, uint64_t req_len, uint8_t *resp, uint64_t resp_len,
                uint64_t seed, uint64_t seq);

typedef int (*ipclab_call_fn)(const uint8_t *, uint64_t, uint8_t *, uint64_t, uint64_t,
                              uint64_t);

#ifdef __cplusplus
}
#endif

#endif
