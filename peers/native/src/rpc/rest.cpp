// REST (protocol/idl/rest.md): cpp-httplib's threaded server, the lean client of
// rest_client.hpp on one kept-alive HTTP/1.1 connection, JSON bodies through nlohmann-json,
// TCP_NODELAY on both sides.
#include <httplib.h>

#include <charconv>
#include <climits>
#include <cstring>
#include <nlohmann/json.hpp>
#include <regex>

#include "numbers.hpp"
#include "result.hpp"
#include "rpc/fields.hpp"
#include "rpc/rest_body.hpp"
#include "rpc/rest_client.hpp"
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

// The server keeps the client's connection for the whole run (10.1).
constexpr std::size_t kKeepAliveRequests = SIZE_MAX;
constexpr time_t kKeepAliveSeconds = 24 * 3600;

// The longest answer body each request may get: the call's response is wanted bytes (or their
// JSON form), an echo about the size of the record sent (another server may write its numbers a
// little longer), a finish a small object, a put none.
constexpr std::size_t kSmallAnswer = 4096;
std::size_t json_answer_limit(std::size_t bytes) {
  return std::strlen("{\"data\":\"\"}") + (bytes + 2) / 3 * 4 + 256;  // 256: spaces
}

// One kept-alive connection for the whole run (10.1); pattern short (11.3): a connection per
// call, each request saying Connection: close.
class RestSession final : public Session {
 public:
  explicit RestSession(const DriveOptions& o)
      : json_(o.rest_json),
        http_(endpoint_as<InetEndpoint>(o.endpoint).host,
              endpoint_as<InetEndpoint>(o.endpoint).port, o.nodelay, o.pattern != "short",
              o.io_timeout_ns) {
    // Opens the connection before the warm-up (any answer, even 404, means it is up).
    if (o.pattern != "short")
      http_.exchange("GET", "/", "", nullptr, 0, kSmallAnswer, answer_);
  }

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.resize(request_size);
    wanted_ = wanted;
    return reinterpret_cast<std::uint8_t*>(request_.data());
  }
  void call(std::uint64_t seq) override {
    target_.assign("/call/");
    append_number(target_, seq);
    target_.append("?wanted=");
    append_number(target_, wanted_);
    if (!json_) {
      expect(http_.exchange("POST", target_, kOctetType, request_.data(), request_.size(),
                            wanted_, response_),
             200, "call", response_);
      return;
    }
    const std::string body = json_body(request_bytes(), request_.size());
    expect(http_.exchange("POST", target_, kJsonType, body.data(), body.size(),
                          json_answer_limit(wanted_), answer_),
           200, "call", answer_);
    try {
      response_ = bytes_of_json_body(answer_);
    } catch (const BadJsonBody& e) {
      throw PeerError(ErrorKind::protocol, std::string("rest: call answer: ") + e.what());
    }
  }
  void put(std::uint64_t seq) override {
    target_.assign("/put/");
    append_number(target_, seq);
    const std::string body = json_ ? json_body(request_bytes(), request_.size()) : std::string();
    const int status = json_ ? http_.exchange("POST", target_, kJsonType, body.data(),
                                              body.size(), 0, answer_)
                             : http_.exchange("POST", target_, kOctetType, request_.data(),
                                              request_.size(), 0, answer_);
    expect(status, 204, "put", answer_);
  }
  void put_record() override {
    const std::string body = value_.dump();
    expect(http_.exchange("POST", put_path_, kJsonType, body.data(), body.size(), 0, answer_),
           204, "put", answer_);
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
    const std::string body = value_.dump();
    expect(http_.exchange("POST", path_, kJsonType, body.data(), body.size(),
                          2 * body.size() + kSmallAnswer, answer_),
           200, "echo", answer_);
    try {
      echoed_ = from_json(kind_, json::parse(answer_));
    } catch (const std::exception& e) {
      throw PeerError(ErrorKind::protocol, std::string("rest: echo answer: ") + e.what());
    }
  }
  Record echoed() override { return echoed_; }

  std::uint64_t finish() override {
    expect(http_.exchange("POST", "/finish", kOctetType, nullptr, 0, kSmallAnswer, answer_), 200,
           "finish", answer_);
    try {
      const json j = json::parse(answer_);
      return j.at("corrupted").get<std::uint64_t>();
    } catch (const std::exception& e) {
      throw PeerError(ErrorKind::protocol, std::string("rest: finish answer: ") + e.what());
    }
  }

 private:
  const std::uint8_t* request_bytes() const {
    return reinterpret_cast<const std::uint8_t*>(request_.data());
  }
  static void append_number(std::string& out, std::uint64_t n) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
  }
  // An answer with another status is the server's error: its text is in the body.
  static void expect(int status, int wanted, const char* what, const std::string& body) {
    if (status != wanted)
      throw PeerError(ErrorKind::protocol, std::string("rest: ") + what + ": HTTP " +
                                               std::to_string(status) + " " + body);
  }

  bool json_;
  HttpClient http_;
  std::string request_, response_, answer_, target_;
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
  announce_ready(hp.host + ":" + std::to_string(port), o.mechanism_name, ready_extra(o));
  server.listen_after_bind();
  throw PeerError(ErrorKind::io, "rest: the server stopped");
}

}  // namespace ipclab::rpc
