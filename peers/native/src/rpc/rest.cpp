// REST (protocol/idl/rest.md): cpp-httplib's threaded server and client on one kept-alive
// HTTP/1.1 connection, JSON bodies through nlohmann-json, TCP_NODELAY on both sides.
#include <httplib.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <nlohmann/json.hpp>
#include <regex>

#include "numbers.hpp"
#include "result.hpp"
#include "rpc/fields.hpp"
#include "rpc/rest_body.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

using nlohmann::json;

class BadBody : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const json& field(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) throw BadBody(std::string("missing field ") + name);
  return *it;
}
std::int32_t as_int(const json& v, const char* name) {
  if (!v.is_number_integer()) throw BadBody(std::string(name) + " is not an integer");
  const auto x = v.get<std::int64_t>();
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > INT32_MAX)
    throw BadBody(std::string(name) + " is out of range");
  if (x < INT32_MIN || x > INT32_MAX) throw BadBody(std::string(name) + " is out of range");
  return static_cast<std::int32_t>(x);
}
std::string as_string(const json& v, const char* name) {
  if (!v.is_string()) throw BadBody(std::string(name) + " is not a string");
  return v.get<std::string>();
}
bool as_bool(const json& v, const char* name) {
  if (!v.is_boolean()) throw BadBody(std::string(name) + " is not a boolean");
  return v.get<bool>();
}
// Some serialisers write an integral double without a fraction: any JSON number is a double.
double as_double(const json& v, const char* name) {
  if (!v.is_number()) throw BadBody(std::string(name) + " is not a number");
  return v.get<double>();
}
template <class T, class F>
std::vector<T> as_list(const json& v, const char* name, F each) {
  if (!v.is_array()) throw BadBody(std::string(name) + " is not an array");
  std::vector<T> out;
  out.reserve(v.size());
  for (const auto& e : v) out.push_back(each(e, name));
  return out;
}

#define COUNT(f, i) +1
#define TO_I(f, i) j[#f] = r.n[i];
#define TO_S(f, i) j[#f] = r.s[i];
#define TO_B(f, i) j[#f] = static_cast<bool>(r.b[i]);
#define TO_D(f, i) j[#f] = r.d[i];
#define TO_LI(f, i) j[#f] = r.li[i];
#define TO_LS(f, i) j[#f] = r.ls[i];
#define TO_LD(f, i) j[#f] = r.ld[i];
#define FROM_I(f, i) r.n.push_back(as_int(field(j, #f), #f));
#define FROM_S(f, i) r.s.push_back(as_string(field(j, #f), #f));
#define FROM_B(f, i) r.b.push_back(as_bool(field(j, #f), #f));
#define FROM_D(f, i) r.d.push_back(as_double(field(j, #f), #f));
#define FROM_LI(f, i) r.li.push_back(as_list<std::int32_t>(field(j, #f), #f, as_int));
#define FROM_LS(f, i) r.ls.push_back(as_list<std::string>(field(j, #f), #f, as_string));
#define FROM_LD(f, i) r.ld.push_back(as_list<double>(field(j, #f), #f, as_double));
#define CONVERT(kind, FIELDS)                                                                 \
  json to_json_##kind(const Record& r) {                                                      \
    json j = json::object();                                                                  \
    FIELDS(TO_I, TO_S, TO_B, TO_D, TO_LI, TO_LS, TO_LD)                                       \
    return j;                                                                                 \
  }                                                                                           \
  Record from_json_##kind(const json& j) {                                                    \
    if (!j.is_object()) throw BadBody("the body is not a JSON object");                       \
    constexpr std::size_t fields = 0 FIELDS(COUNT, COUNT, COUNT, COUNT, COUNT, COUNT, COUNT); \
    Record r;                                                                                 \
    FIELDS(FROM_I, FROM_S, FROM_B, FROM_D, FROM_LI, FROM_LS, FROM_LD)                         \
    if (j.size() != fields) throw BadBody("extra fields");                                    \
    return r;                                                                                 \
  }
CONVERT(small, IPCLAB_SMALL_FIELDS)
CONVERT(medium, IPCLAB_MEDIUM_FIELDS)
CONVERT(large, IPCLAB_LARGE_FIELDS)

json to_json(PayloadKind k, const Record& r) {
  switch (k) {
    case PayloadKind::small: return to_json_small(r);
    case PayloadKind::medium: return to_json_medium(r);
    default: return to_json_large(r);
  }
}
Record from_json(PayloadKind k, const json& j) {
  switch (k) {
    case PayloadKind::small: return from_json_small(j);
    case PayloadKind::medium: return from_json_medium(j);
    default: return from_json_large(j);
  }
}

// Keep-alive for the whole run: one client, one connection (10.1); pattern short (11.3): every
// request says Connection: close, so cpp-httplib opens a connection per call and closes it
// after the response.
constexpr std::size_t kKeepAliveRequests = SIZE_MAX;
constexpr time_t kKeepAliveSeconds = 24 * 3600;

class RestSession final : public Session {
 public:
  explicit RestSession(const DriveOptions& o) : timeout_ns_(o.io_timeout_ns), json_(o.rest_json) {
    const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
    const bool short_calls = o.pattern == "short";
    client_ = std::make_unique<httplib::Client>(hp.host, hp.port);
    client_->set_keep_alive(!short_calls);
    if (short_calls) client_->set_default_headers({{"Connection", "close"}});
    client_->set_tcp_nodelay(o.nodelay);
    const time_t sec = static_cast<time_t>(o.io_timeout_ns / 1'000'000'000);
    const time_t usec = static_cast<time_t>((o.io_timeout_ns % 1'000'000'000) / 1000);
    client_->set_connection_timeout(sec, usec);
    client_->set_read_timeout(sec, usec);
    client_->set_write_timeout(sec, usec);
    // Opens the connection before the warm-up (any answer, even 404, means it is up).
    if (!short_calls) check(client_->Get("/"), "connect", now(), 0);
  }

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.resize(request_size);
    wanted_ = wanted;
    return reinterpret_cast<std::uint8_t*>(request_.data());
  }
  void call(std::uint64_t seq) override {
    const auto t0 = now();
    const std::string path = "/call/" + std::to_string(seq) + "?wanted=" + std::to_string(wanted_);
    auto res = post_bytes(path);
    check(res, "call", t0, 200);
    if (!json_) {
      response_ = std::move(res->body);
      return;
    }
    try {
      response_ = bytes_of_json_body(res->body);
    } catch (const BadJsonBody& e) {
      throw PeerError(ErrorKind::protocol, std::string("rest: call answer: ") + e.what());
    }
  }
  void put(std::uint64_t seq) override {
    const auto t0 = now();
    check(post_bytes("/put/" + std::to_string(seq)), "put", t0, 204);
  }
  void put_record() override {
    const auto t0 = now();
    check(client_->Post(put_path_, value_.dump(), kJsonType), "put", t0, 204);
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    return {reinterpret_cast<const std::uint8_t*>(response_.data()), response_.size()};
  }

  void prepare_echo(PayloadKind kind, const Record& record) override {
    kind_ = kind;
    value_ = to_json(kind, record);
    path_ = std::string("/echo/") + payload_kind_name(kind);
    put_path_ = std::string("/put/") + payload_kind_name(kind);
  }
  void stamp_echo(std::int32_t n1) override { value_["n1"] = n1; }
  void echo() override {
    const auto t0 = now();
    auto res = client_->Post(path_, value_.dump(), "application/json");
    check(res, "echo", t0, 200);
    try {
      echoed_ = from_json(kind_, json::parse(res->body));
    } catch (const std::exception& e) {
      throw PeerError(ErrorKind::protocol, std::string("rest: echo answer: ") + e.what());
    }
  }
  Record echoed() override { return echoed_; }

  std::uint64_t finish() override {
    auto res = client_->Post("/finish", "", 0, "application/octet-stream");
    check(res, "finish", now(), 200);
    try {
      const json j = json::parse(res->body);
      return j.at("corrupted").get<std::uint64_t>();
    } catch (const std::exception& e) {
      throw PeerError(ErrorKind::protocol, std::string("rest: finish answer: ") + e.what());
    }
  }

 private:
  static std::int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // The request's bytes in the body form of --rest-body.
  httplib::Result post_bytes(const std::string& path) {
    if (!json_) return client_->Post(path, request_.data(), request_.size(), kOctetType);
    return client_->Post(path, json_body(reinterpret_cast<const std::uint8_t*>(request_.data()),
                                         request_.size()),
                         kJsonType);
  }
  // cpp-httplib reports a read timeout as a plain read error: the elapsed time tells them apart.
  // status: the answer's expected status (0: any).
  void check(const httplib::Result& res, const char* what, std::int64_t t0, int status) {
    if (!res) {
      const auto err = res.error();
      const std::string text = std::string("rest: ") + what + ": " + httplib::to_string(err);
      if (err == httplib::Error::ConnectionTimeout ||
          ((err == httplib::Error::Read || err == httplib::Error::Write) &&
           now() - t0 >= timeout_ns_))
        throw PeerError(ErrorKind::timeout, text);
      throw PeerError(ErrorKind::io, text);
    }
    if (status != 0 && res->status != status)
      throw PeerError(ErrorKind::protocol, std::string("rest: ") + what + ": HTTP " +
                                               std::to_string(res->status) + " " + res->body);
  }

  std::int64_t timeout_ns_;
  bool json_;
  std::unique_ptr<httplib::Client> client_;
  std::string request_, response_;
  std::uint32_t wanted_ = 0;
  PayloadKind kind_ = PayloadKind::small;
  json value_;
  std::string path_, put_path_;
  Record echoed_;
};

bool parse_decimal(const std::string& s, std::uint64_t max, std::uint64_t& out) {
  try {
    out = parse_unsigned("", s, max);
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

void bad_request(httplib::Response& res, const std::string& why) {
  res.status = 400;
  res.set_content(why + "\n", "text/plain");
}

bool is_json(const httplib::Request& req) {
  const std::string type = req.get_header_value("Content-Type");
  return type.compare(0, std::strlen(kJsonType), kJsonType) == 0;
}

// The request's bytes in either body form (rest.md); false after answering 400.
bool request_bytes(const httplib::Request& req, httplib::Response& res, std::string& storage,
                   const std::string*& bytes) {
  bytes = &req.body;
  if (!is_json(req)) return true;
  try {
    storage = bytes_of_json_body(req.body);
  } catch (const BadJsonBody& e) {
    bad_request(res, e.what());
    return false;
  }
  bytes = &storage;
  return true;
}

const std::uint8_t* data_of(const std::string& s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

// POST /call/{seq}?wanted=N and POST /put/{seq}: bytes, answered in the form asked.
void add_bytes_routes(httplib::Server& server, Service& service) {
  server.Post(R"(/call/([^/]*))", [&service](const httplib::Request& req, httplib::Response& res) {
    std::uint64_t seq = 0, wanted = 0;
    if (!parse_decimal(req.matches[1], UINT64_MAX, seq))
      return bad_request(res, "bad sequence in the path");
    if (req.params.size() != 1 || !req.has_param("wanted"))
      return bad_request(res, "the query must be wanted=N");
    if (!parse_decimal(req.get_param_value("wanted"), UINT32_MAX, wanted))
      return bad_request(res, "bad value for wanted");
    std::string storage;
    const std::string* request = nullptr;
    if (!request_bytes(req, res, storage, request)) return;
    std::string out(wanted, '\0');
    service.call(seq, static_cast<std::uint32_t>(wanted), data_of(*request), request->size(),
                 reinterpret_cast<std::uint8_t*>(out.data()));
    if (is_json(req)) return res.set_content(json_body(data_of(out), out.size()), kJsonType);
    res.body = std::move(out);
    res.set_header("Content-Type", kOctetType);
  });
  server.Post(R"(/put/([^/]*))", [&service](const httplib::Request& req, httplib::Response& res) {
    std::uint64_t seq = 0;
    if (!parse_decimal(req.matches[1], UINT64_MAX, seq))
      return bad_request(res, "bad sequence in the path");
    std::string storage;
    const std::string* request = nullptr;
    if (!request_bytes(req, res, storage, request)) return;
    service.put(seq, data_of(*request), request->size());
    res.status = 204;
  });
}

// POST /echo/{kind} and POST /put/{kind}: the records as JSON objects.
void add_record_routes(httplib::Server& server, Service& service) {
  for (const PayloadKind kind : {PayloadKind::small, PayloadKind::medium, PayloadKind::large}) {
    const auto route = [&service, kind](bool echo) {
      return [&service, kind, echo](const httplib::Request& req, httplib::Response& res) {
        Record r;
        try {
          r = from_json(kind, json::parse(req.body));
        } catch (const BadBody& e) {
          return bad_request(res, e.what());
        } catch (const json::exception& e) {
          return bad_request(res, std::string("malformed JSON: ") + e.what());
        }
        if (!echo) {
          res.status = 204;
          return;
        }
        r.n[1] = service.echo_n2(r.n[1]);
        res.set_content(to_json(kind, r).dump(), kJsonType);
      };
    };
    server.Post(std::string("/echo/") + payload_kind_name(kind), route(true));
    server.Post(std::string("/put/") + payload_kind_name(kind), route(false));
  }
}

}  // namespace

std::unique_ptr<Session> open_rest(const DriveOptions& o) {
  return std::make_unique<RestSession>(o);
}

void serve_rest(const ServeOptions& o, Service& service) {
  const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
  static httplib::Server server;
  server.set_tcp_nodelay(o.nodelay);
  server.set_keep_alive_max_count(kKeepAliveRequests);
  server.set_keep_alive_timeout(kKeepAliveSeconds);
  server.set_payload_max_length(kMessageLimit);
  server.set_read_timeout(kKeepAliveSeconds, 0);
  server.set_write_timeout(kKeepAliveSeconds, 0);
  // Known paths with another method: 405 (rest.md); unknown paths fall through to 404.
  static const std::regex known(R"(/call/[^/]*|/put/[^/]*|/echo/(small|medium|large)|/finish)");
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "POST" && std::regex_match(req.path, known)) {
      res.status = 405;
      res.set_header("Allow", "POST");
      res.set_content("method not allowed\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  add_record_routes(server, service);  // first: /put/small is not /put/{seq}
  add_bytes_routes(server, service);
  server.Post("/finish", [&service](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"corrupted", service.finish()}}.dump(), kJsonType);
  });
  const int port = server.bind_to_any_port(hp.host);
  if (port < 0) throw PeerError(ErrorKind::io, "rest: cannot listen on " + o.endpoint_text);
  announce_ready(hp.host + ":" + std::to_string(port), o.mechanism_name);
  server.listen_after_bind();
  throw PeerError(ErrorKind::io, "rest: the server stopped");
}

}  // namespace ipclab::rpc
