// What the gSOAP client (soap_client.cpp) and server (soap_server.cpp) share: the generated code
// of protocol/idl/ipclab_soap.wsdl (namespace ipclab_soap, made at build time by wsdl2h and
// soapcpp2, see cmake/rpc.cmake) and the limits both sides raise on their soap contexts.
#pragma once

#include "ipclab_soapH.h"

namespace ipclab::rpc::soap_binding {

namespace gs = ::ipclab_soap;

// Raises gSOAP's limits on a context so MAX_PAYLOAD travels (10.1 "Sizes"): a 128 MiB payload
// is ~171 MiB of base64 in the XML, and a record's sequences may hold 1000000 elements where
// gSOAP stops at SOAP_MAXOCCURS (100000) by default.
void raise_limits(struct soap* soap) noexcept;

// A `bytes` payload's base64Binary over `size` bytes at `data`. gSOAP writes a null pointer as
// xsi:nil, which the WSDL does not allow; an empty payload points at a static byte instead.
gs::xsd__base64Binary base64_of(unsigned char* data, std::size_t size) noexcept;

// The bytes of a received base64Binary (a pointer that is never null).
inline const std::uint8_t* bytes_of(const gs::xsd__base64Binary& b) noexcept {
  static const std::uint8_t none = 0;
  return b.__ptr != nullptr ? b.__ptr : &none;
}
inline std::size_t size_of(const gs::xsd__base64Binary& b) noexcept {
  return b.__ptr != nullptr && b.__size > 0 ? static_cast<std::size_t>(b.__size) : 0;
}

}  // namespace ipclab::rpc::soap_binding
