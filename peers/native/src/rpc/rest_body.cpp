#include "rpc/rest_body.hpp"

#include <array>
#include <nlohmann/json.hpp>

namespace ipclab::rpc {

namespace {

constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> decoding_table() {
  std::array<std::int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kDigits[i])] = static_cast<std::int8_t>(i);
  return t;
}
constexpr std::array<std::int8_t, 256> kValue = decoding_table();

}  // namespace

std::string base64_encode(const std::uint8_t* p, std::size_t n) {
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const std::uint32_t v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kDigits[(v >> s) & 63]);
  }
  if (const std::size_t rest = n - i; rest > 0) {
    const std::uint32_t v = (p[i] << 16) | (rest == 2 ? p[i + 1] << 8 : 0);
    out.push_back(kDigits[(v >> 18) & 63]);
    out.push_back(kDigits[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kDigits[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

bool base64_decode(std::string_view text, std::string& out) {
  if (text.size() % 4 != 0) return false;
  out.clear();
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') return false;  // "x=y=" is not padding
    std::uint32_t v = 0;
    for (int k = 0; k < 4 - pad; ++k) {
      const std::int8_t d = kValue[static_cast<unsigned char>(text[i + k])];
      if (d < 0) return false;
      v |= static_cast<std::uint32_t>(d) << (18 - 6 * k);
    }
    // Bits below the last byte must be zero (the canonical form).
    if ((pad == 1 && (v & 0xFF) != 0) || (pad == 2 && (v & 0xFFFF) != 0)) return false;
    out.push_back(static_cast<char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<char>(v >> 8));
    if (pad < 1) out.push_back(static_cast<char>(v));
  }
  return true;
}

std::string json_body(const std::uint8_t* p, std::size_t n) {
  return nlohmann::json{{"data", base64_encode(p, n)}}.dump();
}

std::string bytes_of_json_body(const std::string& body) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception& e) {
    throw BadJsonBody(std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object() || j.size() != 1 || !j.contains("data") || !j["data"].is_string())
    throw BadJsonBody("the body must be {\"data\": \"<base64>\"}");
  std::string out;
  if (!base64_decode(j["data"].get_ref<const std::string&>(), out))
    throw BadJsonBody("data is not standard base64");
  return out;
}

}  // namespace ipclab::rpc
