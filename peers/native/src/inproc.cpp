// The in-process drivers (PROTOCOL.md section 4.4): none and direct, the Family::inproc rows of
// mechanisms.cpp. No link and no frames: a round trip is one call of ipclab_call from
// --native-library (direct), or the same work done in place (none).
#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

#include "client.hpp"
#include "error.hpp"
#include "patterns.hpp"  // now_ns, at_sequence
#include "payload.hpp"

namespace ipclab {

namespace {

// Keeps the compiler from moving memory accesses to p across this point (the clock reads).
inline void touch(const void* p) noexcept { asm volatile("" : : "r"(p) : "memory"); }

// none with --mock new-array (contract 6): the thesis's Mock. Each call makes a new zero-filled
// array of the response size (value-initialised) and checks its length, and nothing more; the
// array is freed after the clock, once its length was checked again (its bytes are zeros by
// definition, so there is nothing else to validate).
void drive_new_arrays(const DriveOptions& o, Recorder& recorder) {
  const std::size_t resp_len = o.response_size;
  const std::uint64_t total = o.warmup + o.iterations;
  std::uint64_t seq = 0;
  try {
    for (; seq < total; ++seq) {
      const std::int64_t t0 = now_ns();
      std::vector<std::uint8_t> fresh(resp_len);
      touch(fresh.data());  // the array is made and zeroed: the compiler may not drop it
      const bool length_ok = fresh.size() == resp_len;  // the thesis's length check
      const std::int64_t t1 = now_ns();

      if (!length_ok || fresh.size() != resp_len)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch: a new array of " + std::to_string(fresh.size()) +
                            " bytes, expected " + std::to_string(resp_len));
      recorder.record(seq, t1 - t0);
    }
  } catch (const PeerError& e) {
    throw PeerError(e.kind(), at_sequence(e.what(), seq));
  }
}

}  // namespace

// none and direct (section 4.4): one round trip is one call of ipclab_call (direct) or the
// same work done in place (none: copy of the cached response base, stamp; or, --mock new-array,
// a new array per call). No frames: the request and response buffers are the payloads. Every
// response is validated after the clock, and only then recorded.
void drive_calls(ipclab_call_fn call, const DriveOptions& o, Recorder& recorder) {
  if (call == nullptr && o.mock_new_array) return drive_new_arrays(o, recorder);
  std::vector<std::uint8_t> request(o.request_size);
  fill_base(o.seed, PayloadStream::request, request.data(), o.request_size);
  std::uint8_t head[kStampBytes] = {};
  if (o.request_size != 0)  // an empty vector's data() may be null (memcpy needs a pointer)
    std::memcpy(head, request.data(), o.request_size < kStampBytes ? o.request_size : kStampBytes);
  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  std::vector<std::uint8_t> response(o.response_size);

  std::uint8_t* const req = request.data();
  std::uint8_t* const resp = response.data();
  const std::uint8_t* const base = expected.data();
  const std::size_t req_len = o.request_size;
  const std::size_t resp_len = o.response_size;
  const std::uint64_t seed = o.seed;
  const std::uint64_t total = o.warmup + o.iterations;
  std::uint64_t seq = 0;
  try {
    for (; seq < total; ++seq) {
      stamp_from(req, head, req_len, seq);
      touch(req);
      int rc = 0;
      const std::int64_t t0 = now_ns();
      if (call != nullptr) {
        rc = call(req, req_len, resp, resp_len, seed, seq);
      } else {
        if (resp_len != 0) std::memcpy(resp, base, resp_len);  // both null when empty
        stamp_in_place(resp, resp_len, seq);
      }
      touch(resp);
      const std::int64_t t1 = now_ns();

      if (rc != 0)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch: ipclab_call returned " + std::to_string(rc) +
                            " (wrong request stamp)");
      const std::size_t off = first_difference(resp, base, resp_len, seq);
      if (off != kNoDifference)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch at offset " + std::to_string(off));
      recorder.record(seq, t1 - t0);
    }
  } catch (const PeerError& e) {
    throw PeerError(e.kind(), at_sequence(e.what(), seq));
  }
}

// The library is loaded at run time from --native-library, so the peer itself starts without
// it. The handle stays open until the process exits.
ipclab_call_fn load_ipclab_call(const std::string& path) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    throw PeerError(ErrorKind::io, "cannot load " + path + ": " + (why ? why : "dlopen failed"));
  }
  void* sym = ::dlsym(lib, "ipclab_call");
  if (sym == nullptr) throw PeerError(ErrorKind::io, path + " has no symbol ipclab_call");
  return reinterpret_cast<ipclab_call_fn>(sym);
}

}  // namespace ipclab
