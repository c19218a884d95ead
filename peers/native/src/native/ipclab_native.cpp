// libipclab_native.so (PROTOCOL.md 4.4): ipclab_call for direct (C++), ffm (Java) and ctypes
// (Python), and the JNI entry points of dev.ipclab.peer.NativeCall for jni: call and, for
// --jni-arrays copy, callCopy. Only these three symbols are exported (the library is built
// with hidden visibility).
#include "ipclab_native.h"

#include <cstring>
#include <vector>

#include "../payload.hpp"

#ifdef IPCLAB_WITH_JNI
#include <jni.h>
#endif

#define IPCLAB_EXPORT __attribute__((visibility("default")))

namespace {

using ipclab::kStampBytes;
using ipclab::PayloadStream;

// The last response base this thread computed, and the request base's first 8 bytes (they
// depend only on the seed: a shorter base is a prefix of a longer one).
struct Cache {
  bool response_valid = false;
  std::uint64_t response_seed = 0;
  std::vector<std::uint8_t> response;
  bool request_valid = false;
  std::uint64_t request_seed = 0;
  std::uint8_t request_head[kStampBytes] = {};
};
thread_local Cache t_cache;

// The cache is passed by reference: in a dlopen'ed library every thread_local access may be a
// __tls_get_addr call, so each entry point looks it up once.
inline const std::uint8_t* response_base(Cache& c, std::uint64_t seed, std::size_t n) {
  if (!c.response_valid || c.response_seed != seed || c.response.size() != n) {
    c.response.assign(n, 0);
    ipclab::fill_base(seed, PayloadStream::response, c.response.data(), n);
    c.response_seed = seed;
    c.response_valid = true;
  }
  return c.response.data();
}

// Whether req (its first min(8, n) bytes, in head) carries the stamp of seq.
inline bool request_stamp_ok(Cache& c, const std::uint8_t* head, std::size_t n,
                             std::uint64_t seed, std::uint64_t seq) {
  if (!c.request_valid || c.request_seed != seed) {
    ipclab::fill_base(seed, PayloadStream::request, c.request_head, kStampBytes);
    c.request_seed = seed;
    c.request_valid = true;
  }
  const std::size_t k = n < kStampBytes ? n : kStampBytes;
  for (std::size_t j = 0; j < k; ++j)
    if (head[j] != (c.request_head[j] ^ static_cast<std::uint8_t>(seq >> (8 * j)))) return false;
  return true;
}

}  // namespace

extern "C" IPCLAB_EXPORT int ipclab_call(const uint8_t* req, uint64_t req_len, uint8_t* resp,
                                         uint64_t resp_len, uint64_t seed, uint64_t seq) {
  Cache& c = t_cache;
  const std::size_t n = static_cast<std::size_t>(resp_len);
  if (n != 0) {
    std::memcpy(resp, response_base(c, seed, n), n);
    ipclab::stamp_in_place(resp, n, seq);
  }
  return request_stamp_ok(c, req, static_cast<std::size_t>(req_len), seed, seq) ? 0 : -1;
}

#ifdef IPCLAB_WITH_JNI
// static native byte[] call(byte[] req, int respLen, long seed, long seq); null on a wrong stamp.
// Request: GetByteArrayRegion of just its first 8 bytes (the stamp; no pinning, one VM
// transition). Response: NewByteArray, then GetPrimitiveArrayCritical on it, one memcpy of the
// cached base, the 8-byte stamp, Release (mode 0; HotSpot hands out the array itself, so there
// is no copy back). Measured on JDK 25 at 16 B (a noisy 2-vCPU VM, JNI call plus Java loop):
// 145-180 ns per call against 157-190 ns with SetByteArrayRegion, i.e. equal or up to ~10 ns
// faster; at large sizes both are one memcpy. Nothing but memcpy and the stamp run inside the
// critical section.
extern "C" IPCLAB_EXPORT JNIEXPORT jbyteArray JNICALL Java_dev_ipclab_peer_NativeCall_call(
    JNIEnv* env, jclass, jbyteArray req, jint resp_len, jlong seed, jlong seq) {
  if (req == nullptr || resp_len < 0) return nullptr;
  const auto useed = static_cast<std::uint64_t>(seed);
  const auto useq = static_cast<std::uint64_t>(seq);
  const jsize req_len = env->GetArrayLength(req);
  std::uint8_t head[kStampBytes];
  const jsize k_req = req_len < static_cast<jsize>(kStampBytes) ? req_len
                                                                 : static_cast<jsize>(kStampBytes);
  env->GetByteArrayRegion(req, 0, k_req, reinterpret_cast<jbyte*>(head));
  Cache& c = t_cache;
  if (!request_stamp_ok(c, head, static_cast<std::size_t>(req_len), useed, useq)) return nullptr;

  jbyteArray out = env->NewByteArray(resp_len);
  if (out == nullptr) return nullptr;  // OutOfMemoryError pending
  const auto n = static_cast<std::size_t>(resp_len);
  if (n != 0) {
    const std::uint8_t* base = response_base(c, useed, n);
    void* p = env->GetPrimitiveArrayCritical(out, nullptr);  // the new array: never a copy
    if (p == nullptr) return nullptr;                          // OutOfMemoryError pending
    std::memcpy(p, base, n);
    ipclab::stamp_in_place(static_cast<std::uint8_t*>(p), n, useq);
    env->ReleasePrimitiveArrayCritical(out, p, 0);
  }
  return out;
}

// static native byte[] callCopy(byte[] req, int respLen, long seed, long seq) (--jni-arrays
// copy): the same call marshalled as the thesis's JNI code did (seed 000, Listing 3.6). The
// request is copied in full with GetByteArrayElements (then GetArrayLength, the thesis's order),
// its stamp checked on the copy, the copy dropped with ReleaseByteArrayElements(JNI_ABORT). The
// response: NewByteArray, GetByteArrayElements of it (a copy of the new, zeroed array), filled
// there (memcpy of the cached base, the stamp), written back with SetByteArrayRegion, the copy
// released with JNI_ABORT. Two differences from the thesis, both the contract's: the response
// carries payload(seed, 2, seq, n) where the thesis wrote back the zeros it got (its
// prepareResponseRandomBytes took the elements and filled nothing), and the response's elements
// are released, which the thesis never did (a leak of n bytes per call on HotSpot).
extern "C" IPCLAB_EXPORT JNIEXPORT jbyteArray JNICALL Java_dev_ipclab_peer_NativeCall_callCopy(
    JNIEnv* env, jclass, jbyteArray req, jint resp_len, jlong seed, jlong seq) {
  if (req == nullptr || resp_len < 0) return nullptr;
  const auto useed = static_cast<std::uint64_t>(seed);
  const auto useq = static_cast<std::uint64_t>(seq);
  jbyte* request = env->GetByteArrayElements(req, nullptr);
  if (request == nullptr) return nullptr;  // OutOfMemoryError pending
  const jsize req_len = env->GetArrayLength(req);
  Cache& c = t_cache;
  const bool stamp_ok = request_stamp_ok(c, reinterpret_cast<const std::uint8_t*>(request),
                                         static_cast<std::size_t>(req_len), useed, useq);
  env->ReleaseByteArrayElements(req, request, JNI_ABORT);
  if (!stamp_ok) return nullptr;

  jbyteArray out = env->NewByteArray(resp_len);
  if (out == nullptr) return nullptr;  // OutOfMemoryError pending
  jbyte* elements = env->GetByteArrayElements(out, nullptr);
  if (elements == nullptr) return nullptr;  // OutOfMemoryError pending
  const auto n = static_cast<std::size_t>(resp_len);
  if (n != 0) {
    std::memcpy(elements, response_base(c, useed, n), n);
    ipclab::stamp_in_place(reinterpret_cast<std::uint8_t*>(elements), n, useq);
  }
  env->SetByteArrayRegion(out, 0, resp_len, elements);
  env->ReleaseByteArrayElements(out, elements, JNI_ABORT);
  return out;
}
#endif
