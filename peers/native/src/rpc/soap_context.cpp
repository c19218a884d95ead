#include "rpc/soap_context.hpp"

#include <algorithm>

#include "rpc/rpc.hpp"

// libgsoap++ refers to a global table of XML namespaces; the proxy and the service install their
// own copy of the same table on their contexts. Defined here, once.
#include "BenchBinding.nsmap"

namespace ipclab::rpc::soap_binding {

namespace {

// Above the contract's largest sequence (--sequence-length 1000000).
constexpr std::size_t kMaxOccurs = 1u << 24;

}  // namespace

void raise_limits(struct soap* soap) noexcept {
  soap->recv_maxlength = std::max<ULONG64>(soap->recv_maxlength, kMessageLimit);
  soap->maxlength = 0;  // no limit on one string's length (the base64 text)
  soap->maxoccurs = kMaxOccurs;
}

gs::xsd__base64Binary base64_of(unsigned char* data, std::size_t size) noexcept {
  static unsigned char none = 0;
  gs::xsd__base64Binary b;
  b.__ptr = data != nullptr ? data : &none;
  b.__size = static_cast<int>(size);  // at most MAX_PAYLOAD
  return b;
}

}  // namespace ipclab::rpc::soap_binding
