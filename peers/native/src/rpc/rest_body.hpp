// The two body forms of bytes over REST (protocol/idl/rest.md, --rest-body): the bytes as
// application/octet-stream, or {"data": "<standard base64, padded>"} as application/json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ipclab::rpc {

inline constexpr const char* kOctetType = "application/octet-stream";
inline constexpr const char* kJsonType = "application/json";

// Standard base64 (RFC 4648 section 4) with padding.
std::string base64_encode(const std::uint8_t* p, std::size_t n);
// Decodes standard padded base64; false (out unspecified) for anything else.
bool base64_decode(std::string_view text, std::string& out);

// A JSON body that is not exactly {"data": "<base64>"}.
class BadJsonBody : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// {"data": "<base64 of p[0..n)>"}, written by nlohmann-json.
std::string json_body(const std::uint8_t* p, std::size_t n);
// The bytes of a {"data": "<base64>"} body; throws BadJsonBody.
std::string bytes_of_json_body(const std::string& body);

}  // namespace ipclab::rpc
