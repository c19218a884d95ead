// Fuzz target: the structured records of PROTOCOL.md 10.2 as the REST binding decodes them
// (JSON objects of the Small, Medium and Large fields: from_json, with its type and range
// checks), and REST's bytes bodies ({"data": "<base64>"}: bytes_of_json_body, base64_decode).
// A record that decodes must come back equal through to_json and from_json; base64 that decodes
// must be the canonical encoding of what it decodes to (rest_body.hpp accepts nothing else).
//
// The record decoder lives in rest.cpp's anonymous namespace: the file is included here, so the
// target reaches it as the REST server's routes do, without the peer exporting it.
#include "rpc/rest.cpp"  // NOLINT(bugprone-suspicious-include)

#include <cstdlib>

#include "support.hpp"

namespace {

using namespace ipclab;
using namespace ipclab::rpc;

void record_round_trip(PayloadKind kind, const std::string& text) {
  Record r;
  try {
    r = from_json(kind, json::parse(text));
  } catch (const BadBody&) {
    return;
  } catch (const json::exception&) {
    return;
  }
  if (!(from_json(kind, to_json(kind, r)) == r)) std::abort();
}

void bytes_body(const std::string& text) {
  try {
    bytes_of_json_body(text);
  } catch (const BadJsonBody&) {
  }
  std::string decoded;
  if (base64_decode(text, decoded) &&
      base64_encode(reinterpret_cast<const std::uint8_t*>(decoded.data()), decoded.size()) != text)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint8_t form = in.byte() % 4;
  const std::string text = in.rest_text();
  if (form == 0) bytes_body(text);
  if (form == 1) record_round_trip(PayloadKind::small, text);
  if (form == 2) record_round_trip(PayloadKind::medium, text);
  if (form == 3) record_round_trip(PayloadKind::large, text);
  return 0;
}
