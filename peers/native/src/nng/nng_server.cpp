// The nng-tcp and nng-ipc server (PROTOCOL.md 4.9): a REP request socket (rr's frames, a
// stream's control frames) and a PULL stream socket (a stream's messages), answered as a section
// 2 server would (WholeFrameServer, server.hpp). While a MARK's messages are due it reads only
// the stream socket, so a control frame is taken only once every message before it came;
// otherwise it waits for the next request, and takes the stream messages nobody announced as
// it comes (they are rejected, nothing answers them). The lifecycle (lifecycle.cpp)
// ends the process on a signal or stdin's end and removes the ipc socket files.
#include <sys/stat.h>

#include <string>
#include <variant>

#include <nng/nng.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/reqrep0/rep.h>

#include "endpoint.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "nng_socket.hpp"
#include "options.hpp"
#include "result.hpp"
#include "server.hpp"
#include "server_common.hpp"

namespace ipclab::nanomsg {

namespace {

// nng-ipc: listens at ipc://PATH, refusing a path that exists (libnng would replace a stale
// one), registered for removal as it is made, made with mode 0600.
void listen_ipc(Socket& socket, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) throw PeerError(ErrorKind::io, "path exists: " + path);
  SignalBlock block;  // created and registered together, or neither
  socket.listen("ipc://" + path, 0600);
  register_created_path(path);
}

// Listens on both sockets where --endpoint says; returns READY's endpoint.
std::string listen_sockets(const ServeOptions& o, Socket& requests, Socket& stream) {
  if (const auto* path = std::get_if<PathEndpoint>(&o.endpoint)) {
    listen_ipc(requests, path->path);
    listen_ipc(stream, path->path + ".stream");
    return path->path;
  }
  const InetEndpoint& inet = endpoint_as<InetEndpoint>(o.endpoint);
  const std::string host = inet.host.find(':') != std::string::npos ? "[" + inet.host + "]"
                                                                    : inet.host;
  const std::string base = "tcp://" + host + ":";
  const int p1 = requests.listen(base + std::to_string(inet.port));
  const int p2 = stream.listen(base + "0");
  return base + std::to_string(p1) + "," + base + std::to_string(p2);
}

}  // namespace

void serve(const ServeOptions& o) {
  Socket requests(nng_rep0_open), stream(nng_pull0_open);
  // The library drops a connection whose message is longer, before it allocates for it.
  requests.set_size(NNG_OPT_RECVMAXSZ, kRequestIdSize + kHeaderSize + kMaxPayload);
  stream.set_size(NNG_OPT_RECVMAXSZ, kMaxPayload);
  announce_ready(listen_sockets(o, requests, stream), o.mechanism_name);

  WholeFrameServer frames(o);
  Message m;
  for (;;) {
    if (frames.pending() != 0) {  // a message is due: the stream socket alone
      m.receive(stream);
      frames.take(m.data(), m.size());  // counted, or rejected (length mismatch)
      continue;
    }
    // The next request, as a plain nng server waits for it: blocked in the library's receive
    // (a wait on both sockets' NNG_OPT_RECVFD costs a poll and the library's notification pipe,
    // about 5% of a 16-byte round trip here). Stream messages nobody announced are taken as the
    // request comes, before it is answered.
    m.receive(requests);
    for (Message unexpected; unexpected.try_receive(stream);)
      report_rejected("unexpected message");
    const Responder::Answer a = frames.take(m.data(), m.size());
    if (a.size == 0) {  // rejected: REP answers every request, here with an empty message
      requests.send("", 0);
      continue;
    }
    requests.send(a.data, a.size);
    frames.done();
  }
}

}  // namespace ipclab::nanomsg
