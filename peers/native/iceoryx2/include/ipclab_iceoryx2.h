/* ipclab's C binding of iceoryx2 0.10 (PROTOCOL.md 4.12), implemented in Rust (src/lib.rs) over
 * the iceoryx2 crate and linked into the C++ peer as a static library. Exactly what the
 * contract's two mechanisms need: one side (the client or the server) with one node, the two
 * publish-subscribe services ipclab/requests and ipclab/responses and, unless it spins, their
 * two event services; a message sent from a loaned sample the caller writes in place, a message
 * received as the next sample, read in place until it is released.
 *
 * Every call but ipclab_ix2_version and ipclab_ix2_last_error returns one of the codes below;
 * on a failure ipclab_ix2_last_error() says what failed (a panic inside the library is caught
 * and returned as IPCLAB_IX2_INTERNAL). A side is used by one thread. */
#ifndef IPCLAB_ICEORYX2_H
#define IPCLAB_ICEORYX2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  IPCLAB_IX2_OK = 0,
  IPCLAB_IX2_TIMEOUT = 1,  /* nothing came (a receive), or no room came (a send), in time */
  IPCLAB_IX2_IO = 2,       /* iceoryx2 refused or failed: a node, a service, a port, a sample */
  IPCLAB_IX2_INTERNAL = 3, /* a panic in the binding or the library, or a call out of turn */
};

typedef struct ipclab_ix2_side ipclab_ix2_side;

typedef struct ipclab_ix2_options {
  int server;          /* 1: create the services (4.12's settings); 0: open them as they are */
  int spin;            /* 1: iceoryx2-spin (poll, no event services); 0: iceoryx2 (events) */
  const char* root;    /* iceoryx2's root path: the server's directory */
  const char* prefix;  /* iceoryx2's prefix of every file and shared-memory object: ipclab-<pid>- */
  /* The slice the publisher's pool starts with (bytes); a longer loan grows it (PowerOfTwo). */
  size_t initial_slice_len;
  /* How long a send waits for room in a full subscriber buffer (RetryUntilDelivered) before it
   * gives up with IPCLAB_IX2_TIMEOUT; negative: for ever. */
  int64_t send_timeout_ns;
} ipclab_ix2_options;

/* "iceoryx2 0.10.0": the version of the crate the binding was built with. Static. */
const char* ipclab_ix2_version(void);

/* What the calling thread's last failure was; valid until its next call. */
const char* ipclab_ix2_last_error(void);

/* Makes the node (iceoryx2's logging at Warn, no signal handling of its own), then the services
 * and the ports in 4.12's order: the server its subscriber on ipclab/requests, its publisher on
 * ipclab/responses (and its listener and notifier); the client its subscriber and listener first,
 * then its publisher and notifier. The caller sets the umask (077) first. */
int ipclab_ix2_open(const ipclab_ix2_options* options, ipclab_ix2_side** side);

/* Loans a sample of exactly n bytes (n may be 0) from the side's publisher: *data is where the
 * caller writes them, until ipclab_ix2_send_loaned. One loan at a time. */
int ipclab_ix2_loan(ipclab_ix2_side* side, size_t n, uint8_t** data);

/* Sends the loaned sample and, for iceoryx2 (not -spin), notifies the other side's event. A full
 * subscriber buffer is waited for (send_timeout_ns). */
int ipclab_ix2_send_loaned(ipclab_ix2_side* side);

/* The next sample on the side's subscriber: *data and *n are its bytes, valid until
 * ipclab_ix2_release. Without one it waits on the listener (iceoryx2) or polls (-spin), at most
 * timeout_ns (0: looks once; negative: for ever), then returns IPCLAB_IX2_TIMEOUT. One sample is
 * held at a time: a receive releases the one before. */
int ipclab_ix2_receive(ipclab_ix2_side* side, int64_t timeout_ns, const uint8_t** data,
                       size_t* n);

/* Releases the received sample (nothing where none is held). */
void ipclab_ix2_release(ipclab_ix2_side* side);

/* Drops the ports, the services and the node (NULL: nothing). A server's side then removes
 * every /dev/shm/<prefix>* (iceoryx2 leaves the node-global management segment behind). */
void ipclab_ix2_close(ipclab_ix2_side* side);

#ifdef __cplusplus
}
#endif

#endif /* IPCLAB_ICEORYX2_H */
