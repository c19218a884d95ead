// The zmq-tcp and zmq-ipc server (PROTOCOL.md 4.8): a REP request socket (rr's frames, a
// stream's control frames) and a PULL stream socket (a stream's messages), answered as a
// section 2 server would (WholeFrameServer, server.hpp). While a MARK's messages are due it reads
// only the stream socket, so a control frame is taken only once every message before it came.
// The lifecycle (lifecycle.cpp) ends the process on a signal or stdin's end and removes the
// ipc socket files.
#include <sys/stat.h>

#include <string>
#include <variant>

#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "options.hpp"
#include "result.hpp"
#include "server.hpp"
#include "server_common.hpp"
#include "zmq_socket.hpp"

namespace ipclab::zeromq {

namespace {

// zmq-ipc: binds ipc://PATH, refusing a path that exists (libzmq would replace it), registered
// for removal as it is made, mode 0600.
void bind_ipc(Socket& socket, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) throw PeerError(ErrorKind::io, "path exists: " + path);
  SignalBlock block;  // created and registered together, or neither
  socket.bind("ipc://" + path);
  register_created_path(path);
  ::chmod(path.c_str(), 0600);
}

// Binds both sockets where --endpoint says; returns READY's endpoint.
std::string bind_sockets(const ServeOptions& o, Socket& requests, Socket& stream) {
  if (const auto* path = std::get_if<PathEndpoint>(&o.endpoint)) {
    bind_ipc(requests, path->path);
    bind_ipc(stream, path->path + ".stream");
    return path->path;
  }
  const InetEndpoint& inet = endpoint_as<InetEndpoint>(o.endpoint);
  const std::string host = inet.host.find(':') != std::string::npos ? "[" + inet.host + "]"
                                                                    : inet.host;
  requests.bind("tcp://" + host + ":" + (inet.port != 0 ? std::to_string(inet.port) : "*"));
  stream.bind("tcp://" + host + ":*");
  return requests.last_endpoint() + "," + stream.last_endpoint();
}

bool readable(zmq_pollitem_t& item) { return (item.revents & ZMQ_POLLIN) != 0; }

}  // namespace

void serve(const ServeOptions& o) {
  Context context;
  Socket requests(context, ZMQ_REP), stream(context, ZMQ_PULL);
  requests.set_max_message(kHeaderSize + kMaxPayload);
  stream.set_max_message(kMaxPayload);
  announce_ready(bind_sockets(o, requests, stream), o.mechanism_name);

  WholeFrameServer frames(o);
  Message m;
  zmq_pollitem_t items[2] = {{requests.handle(), 0, ZMQ_POLLIN, 0},
                             {stream.handle(), 0, ZMQ_POLLIN, 0}};
  for (;;) {
    if (frames.pending() != 0) {  // a message is due: the stream socket alone
      m.receive(stream);
      frames.take(m.data(), m.size());  // counted, or rejected (length mismatch)
      continue;
    }
    if (zmq_poll(items, 2, -1) < 0) {
      if (zmq_errno() == EINTR) continue;
      throw_zmq("zmq_poll");
    }
    if (readable(items[1])) {  // nothing was announced
      m.receive(stream);
      report_rejected("unexpected message");
      continue;
    }
    if (!readable(items[0])) continue;
    m.receive(requests);
    const Responder::Answer a = frames.take(m.data(), m.size());
    if (a.size == 0) {  // rejected: REP answers every request, here with an empty message
      requests.send("", 0);
      continue;
    }
    if (m.data()[kOffKind] == static_cast<std::uint8_t>(FrameKind::mark))
      stream.set(ZMQ_RCVHWM, stream_hwm(frames.message_size()));  // before the MARK_ACK
    requests.send(a.data, a.size);
    frames.done();
  }
}

}  // namespace ipclab::zeromq
