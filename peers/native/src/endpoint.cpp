#include "endpoint.hpp"

#include <cctype>
#include <climits>

#include "error.hpp"
#include "numbers.hpp"

namespace ipclab {

namespace {

UsageError bad(const std::string& text, const std::string& why) {
  return UsageError("bad value for --endpoint: '" + text + "' " + why);
}

// The word a side takes instead of an address (auto, inproc).
void expect_word(const std::string& text, const char* word) {
  if (text != word) throw bad(text, std::string("(this side takes the word ") + word + ")");
}

std::string nonempty_path(const std::string& text) {
  if (text.empty()) throw UsageError("bad value for --endpoint: empty path");
  return text;
}

}  // namespace

InetEndpoint parse_inet(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw bad(text, "is not HOST:PORT");
  InetEndpoint e;
  e.host = text.substr(0, colon);
  if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']')
    e.host = e.host.substr(1, e.host.size() - 2);  // [::1]:port
  if (e.host.empty()) throw bad(text, "has an empty host");
  e.port = static_cast<std::uint16_t>(parse_unsigned("--endpoint port", text.substr(colon + 1), 65535));
  return e;
}

std::string to_string(const InetEndpoint& e) {
  const std::string host = e.host.find(':') == std::string::npos ? e.host : "[" + e.host + "]";
  return host + ":" + std::to_string(e.port);
}

FdEndpoint parse_fds(const std::string& text) {
  const auto comma = text.find(',', 3);
  if (text.rfind("fd:", 0) != 0 || comma == std::string::npos) throw bad(text, "is not fd:R,W");
  FdEndpoint e;
  try {
    e.read_fd = static_cast<int>(parse_unsigned("--endpoint", text.substr(3, comma - 3), INT_MAX));
    e.write_fd = static_cast<int>(parse_unsigned("--endpoint", text.substr(comma + 1), INT_MAX));
  } catch (const UsageError&) {
    throw bad(text, "is not fd:R,W");
  }
  return e;
}

namespace {

// One "0x<hex>" key of a sysv endpoint, not 0 (IPC_PRIVATE).
std::int32_t parse_key(const std::string& text, const std::string& part) {
  const char* form = "is not sysv:0x<hex key> (load over sysv-mq: sysv:0x<key>,0x<key>)";
  if (part.rfind("0x", 0) != 0 && part.rfind("0X", 0) != 0) throw bad(text, form);
  const std::string hex = part.substr(2);
  if (hex.empty() || hex.size() > 8) throw bad(text, form);
  std::uint32_t key = 0;
  for (char c : hex) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else throw bad(text, form);
    key = key * 16 + static_cast<std::uint32_t>(d);
  }
  if (key == 0) throw bad(text, "is not sysv:0x<hex key> (key 0 is IPC_PRIVATE)");
  return static_cast<std::int32_t>(key);
}

}  // namespace

KeyEndpoint parse_sysv_key(const std::string& text) {
  if (text.rfind("sysv:", 0) != 0) throw bad(text, "is not sysv:0x<hex key>");
  const auto comma = text.find(',');
  KeyEndpoint e;
  e.key = parse_key(text, text.substr(5, comma == std::string::npos ? std::string::npos
                                                                     : comma - 5));
  if (comma != std::string::npos) e.reply_key = parse_key(text, text.substr(comma + 1));
  return e;
}

PosixNameEndpoint parse_posix_name(const std::string& text) {
  if (text.rfind("posix:/", 0) != 0) throw bad(text, "is not posix:/<name>");
  std::string name = text.substr(6);
  // NAME_MAX (255) minus the "-1" suffix; no slash after the first.
  if (name.size() < 2 || name.size() > 253 || name.find('/', 1) != std::string::npos)
    throw bad(text, "is not posix:/<name>");
  return {std::move(name)};
}

AmqpEndpoint parse_amqp(const std::string& text, bool with_queue) {
  const char* form = with_queue ? "is not amqp://HOST:PORT/QUEUE" : "is not amqp://HOST:PORT";
  if (text.rfind("amqp://", 0) != 0) throw bad(text, form);
  const std::string rest = text.substr(7);
  const auto slash = rest.find('/');
  if ((slash != std::string::npos) != with_queue) throw bad(text, form);
  AmqpEndpoint e;
  try {
    e.url = "amqp://" + to_string(parse_inet(rest.substr(0, slash)));
  } catch (const UsageError&) {
    throw bad(text, form);
  }
  if (with_queue) {
    e.queue = rest.substr(slash + 1);
    if (e.queue.empty() || e.queue.find('/') != std::string::npos) throw bad(text, form);
  }
  return e;
}

ZmqEndpoint parse_zmq_tcp(const std::string& text) {
  const char* form = "is not tcp://HOST:PORT,tcp://HOST:PORT";
  const auto comma = text.find(',');
  if (comma == std::string::npos) throw bad(text, form);
  std::string parts[2] = {text.substr(0, comma), text.substr(comma + 1)};
  for (std::string& part : parts) {
    if (part.rfind("tcp://", 0) != 0) throw bad(text, form);
    try {
      const InetEndpoint e = parse_inet(part.substr(6));
      if (e.port == 0) throw bad(text, form);
      part = "tcp://" + to_string(e);
    } catch (const UsageError&) {
      throw bad(text, form);
    }
  }
  return {parts[0], parts[1]};
}

namespace {

// NAME of a round on a server (4.10, 4.11): 1-200 characters of A-Z a-z 0-9 _ : - and, where
// `dots` (Redis's keys; not NATS's subjects, whose tokens '.' separates), '.'.
std::string round_name(const std::string& text, const std::string& name, const char* form,
                       bool dots) {
  if (name.empty() || name.size() > 200) throw bad(text, form);
  for (const char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || (dots && c == '.') || c == '_' ||
          c == ':' || c == '-'))
      throw bad(text, dots ? "has a NAME outside A-Z a-z 0-9 . _ : -"
                           : "has a NAME outside A-Z a-z 0-9 _ : -");
  return name;
}

// The HOST:PORT of a server's URL, a port other than 0.
InetEndpoint server_address(const std::string& text, const std::string& address,
                            const char* form) {
  try {
    const InetEndpoint inet = parse_inet(address);
    if (inet.port == 0) throw bad(text, form);
    return inet;
  } catch (const UsageError&) {
    throw bad(text, form);
  }
}

}  // namespace

RedisEndpoint parse_redis(const std::string& text, bool tcp) {
  const char* form = tcp ? "is not redis://HOST:PORT/NAME" : "is not unix://PATH#NAME";
  const std::string scheme = tcp ? "redis://" : "unix://";
  if (text.rfind(scheme, 0) != 0) throw bad(text, form);
  const std::string rest = text.substr(scheme.size());
  const auto cut = tcp ? rest.find('/') : rest.rfind('#');
  if (cut == std::string::npos || cut == 0) throw bad(text, form);
  RedisEndpoint e;
  e.name = round_name(text, rest.substr(cut + 1), form, true);
  if (tcp) {
    const InetEndpoint inet = server_address(text, rest.substr(0, cut), form);
    e.host = inet.host;
    e.port = inet.port;
  } else {
    e.path = rest.substr(0, cut);
    if (e.path.front() != '/') throw bad(text, "has a socket path that is not absolute");
  }
  e.text = text;
  return e;
}

NatsEndpoint parse_nats(const std::string& text) {
  const char* form = "is not nats://HOST:PORT/NAME";
  const std::string scheme = "nats://";
  if (text.rfind(scheme, 0) != 0) throw bad(text, form);
  const std::string rest = text.substr(scheme.size());
  const auto cut = rest.find('/');
  if (cut == std::string::npos || cut == 0) throw bad(text, form);
  NatsEndpoint e;
  e.name = round_name(text, rest.substr(cut + 1), form, false);
  e.address = server_address(text, rest.substr(0, cut), form);
  e.server = scheme + to_string(e.address);
  e.text = text;
  return e;
}

PosixDirEndpoint parse_posix_dir(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || comma + 1 == text.size())
    throw bad(text, "is not posix:/<name>,DIR");
  PosixDirEndpoint e;
  try {
    e.prefix = parse_posix_name(text.substr(0, comma)).prefix;
  } catch (const UsageError&) {
    throw bad(text, "is not posix:/<name>,DIR");
  }
  e.dir = text.substr(comma + 1);
  return e;
}

ZmqEndpoint zmq_ipc_sockets(const std::string& path) {
  return {"ipc://" + path, "ipc://" + path + ".stream"};
}

Endpoint parse_endpoint(EndpointKind kind, const std::string& text) {
  switch (kind) {
    case EndpointKind::inet: return parse_inet(text);
    case EndpointKind::path: return PathEndpoint{nonempty_path(text)};
    case EndpointKind::fds: return parse_fds(text);
    case EndpointKind::dir: return DirEndpoint{nonempty_path(text)};
    case EndpointKind::automatic: expect_word(text, "auto"); return AutoEndpoint{};
    case EndpointKind::sysv_key: return parse_sysv_key(text);
    case EndpointKind::posix_name: return parse_posix_name(text);
    case EndpointKind::inproc: expect_word(text, "inproc"); return InprocEndpoint{};
    case EndpointKind::ior:
      if (text.rfind("IOR:", 0) != 0) throw bad(text, "is not IOR:...");
      return IorEndpoint{text};
    case EndpointKind::amqp_broker: return parse_amqp(text, false);
    case EndpointKind::amqp_queue: return parse_amqp(text, true);
    case EndpointKind::zmq_tcp: return parse_zmq_tcp(text);
    case EndpointKind::redis_tcp: return parse_redis(text, true);
    case EndpointKind::redis_uds: return parse_redis(text, false);
    case EndpointKind::nats: return parse_nats(text);
    case EndpointKind::posix_dir: return parse_posix_dir(text);
  }
  throw bad(text, "has an unknown kind");
}

}  // namespace ipclab
