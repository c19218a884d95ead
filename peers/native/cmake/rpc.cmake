# Included by CMakeLists.txt (its scope: paths are the peer's directory's).
# ---- RPC middleware (PROTOCOL.md section 10) --------------------------------------------------
# Only the ipclab-peer executable links the frameworks (libipclab_native.so stays free of them).
# Each framework's code is generated at build time from protocol/idl by its own compiler into
# the build tree, and compiled with its binding as one library, so a rebuild stays cheap.
find_package(PkgConfig REQUIRED)
set(IPCLAB_IDL_DIR "${CMAKE_CURRENT_SOURCE_DIR}/../../protocol/idl")
set(IPCLAB_GEN_DIR "${CMAKE_CURRENT_BINARY_DIR}/generated")
add_library(ipclab_rpc STATIC src/rpc/rpc.cpp src/rpc/load.cpp)
target_link_libraries(ipclab_rpc PUBLIC ipclab_peer_core)

# gRPC: protoc + grpc_cpp_plugin.
pkg_check_modules(GRPCPP REQUIRED IMPORTED_TARGET grpc++ protobuf)
find_program(IPCLAB_PROTOC protoc REQUIRED)
find_program(IPCLAB_GRPC_PLUGIN grpc_cpp_plugin REQUIRED)
set(_g "${IPCLAB_GEN_DIR}/grpc")
add_custom_command(
  OUTPUT ${_g}/ipclab_grpc.pb.cc ${_g}/ipclab_grpc.pb.h
         ${_g}/ipclab_grpc.grpc.pb.cc ${_g}/ipclab_grpc.grpc.pb.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_g}
  COMMAND ${IPCLAB_PROTOC} -I ${IPCLAB_IDL_DIR} --cpp_out=${_g} --grpc_out=${_g}
          --plugin=protoc-gen-grpc=${IPCLAB_GRPC_PLUGIN} ${IPCLAB_IDL_DIR}/ipclab_grpc.proto
  DEPENDS ${IPCLAB_IDL_DIR}/ipclab_grpc.proto
  COMMENT "protoc ipclab_grpc.proto")
add_library(ipclab_rpc_grpc STATIC src/rpc/grpc.cpp
  ${_g}/ipclab_grpc.pb.cc ${_g}/ipclab_grpc.grpc.pb.cc)
target_include_directories(ipclab_rpc_grpc PRIVATE ${_g})
target_link_libraries(ipclab_rpc_grpc PUBLIC ipclab_peer_core PkgConfig::GRPCPP)
target_compile_definitions(ipclab_rpc PRIVATE IPCLAB_WITH_GRPC)
target_link_libraries(ipclab_rpc PUBLIC ipclab_rpc_grpc)

# Thrift: the thrift compiler's C++ generator.
pkg_check_modules(THRIFT REQUIRED IMPORTED_TARGET thrift)
find_program(IPCLAB_THRIFT thrift REQUIRED)
set(_t "${IPCLAB_GEN_DIR}/thrift")
add_custom_command(
  OUTPUT ${_t}/Bench.cpp ${_t}/Bench.h ${_t}/ipclab_thrift_types.cpp ${_t}/ipclab_thrift_types.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_t}
  COMMAND ${IPCLAB_THRIFT} --gen cpp:no_skeleton -out ${_t} ${IPCLAB_IDL_DIR}/ipclab_thrift.thrift
  DEPENDS ${IPCLAB_IDL_DIR}/ipclab_thrift.thrift
  COMMENT "thrift ipclab_thrift.thrift")
add_library(ipclab_rpc_thrift STATIC src/rpc/thrift.cpp
  ${_t}/Bench.cpp ${_t}/ipclab_thrift_types.cpp)
target_include_directories(ipclab_rpc_thrift PRIVATE ${_t})
target_link_libraries(ipclab_rpc_thrift PUBLIC ipclab_peer_core PkgConfig::THRIFT)
target_compile_definitions(ipclab_rpc PRIVATE IPCLAB_WITH_THRIFT)
target_link_libraries(ipclab_rpc PUBLIC ipclab_rpc_thrift)

# REST: cpp-httplib's server (Debian builds it as a shared library, pkg-config cpp-httplib), the
# client's own HTTP/1.1 (rest_client.cpp) and nlohmann-json.
find_package(nlohmann_json 3 REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
add_library(ipclab_rpc_rest STATIC src/rpc/rest.cpp src/rpc/rest_body.cpp
  src/rpc/rest_client.cpp)
target_link_libraries(ipclab_rpc_rest PUBLIC
  ipclab_peer_core PkgConfig::HTTPLIB nlohmann_json::nlohmann_json)
target_compile_definitions(ipclab_rpc PRIVATE IPCLAB_WITH_REST)
target_link_libraries(ipclab_rpc PUBLIC ipclab_rpc_rest)

# Ice 3.7: slice2cpp, the C++11 mapping (ICE_CPP11_MAPPING, libIce++11).
find_program(IPCLAB_SLICE2CPP slice2cpp REQUIRED)
find_library(IPCLAB_ICE_LIB Ice++11 REQUIRED)
set(_i "${IPCLAB_GEN_DIR}/ice")
add_custom_command(
  OUTPUT ${_i}/ipclab_ice.cpp ${_i}/ipclab_ice.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_i}
  COMMAND ${IPCLAB_SLICE2CPP} --output-dir ${_i} ${IPCLAB_IDL_DIR}/ipclab_ice.ice
  DEPENDS ${IPCLAB_IDL_DIR}/ipclab_ice.ice
  COMMENT "slice2cpp ipclab_ice.ice")
add_library(ipclab_rpc_ice STATIC src/rpc/ice.cpp ${_i}/ipclab_ice.cpp)
target_include_directories(ipclab_rpc_ice PRIVATE ${_i})
target_compile_definitions(ipclab_rpc_ice PRIVATE ICE_CPP11_MAPPING)
target_link_libraries(ipclab_rpc_ice PUBLIC ipclab_peer_core ${IPCLAB_ICE_LIB})
target_compile_definitions(ipclab_rpc PRIVATE IPCLAB_WITH_ICE)
target_link_libraries(ipclab_rpc PUBLIC ipclab_rpc_ice)

# CORBA: omniORB 4.2, omniidl -bcxx.
pkg_check_modules(OMNIORB REQUIRED IMPORTED_TARGET omniORB4)
find_program(IPCLAB_OMNIIDL omniidl REQUIRED)
set(_c "${IPCLAB_GEN_DIR}/corba")
add_custom_command(
  OUTPUT ${_c}/ipclab_corbaSK.cc ${_c}/ipclab_corba.hh
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_c}
  COMMAND ${IPCLAB_OMNIIDL} -bcxx -C${_c} ${IPCLAB_IDL_DIR}/ipclab_corba.idl
  DEPENDS ${IPCLAB_IDL_DIR}/ipclab_corba.idl
  COMMENT "omniidl ipclab_corba.idl")
add_library(ipclab_rpc_corba STATIC src/rpc/corba.cpp ${_c}/ipclab_corbaSK.cc)
# omniidl's output is not warning-clean under -Wextra.
set_source_files_properties(${_c}/ipclab_corbaSK.cc PROPERTIES COMPILE_OPTIONS "-w")
target_include_directories(ipclab_rpc_corba PRIVATE ${_c})
target_link_libraries(ipclab_rpc_corba PUBLIC ipclab_peer_core PkgConfig::OMNIORB)
target_compile_definitions(ipclab_rpc PRIVATE IPCLAB_WITH_CORBA)
target_link_libraries(ipclab_rpc PUBLIC ipclab_rpc_corba)

# SOAP: gSOAP (Debian gsoap + libgsoap-dev, scripts/setup-system). cmake/soap_stubs.cmake runs
# wsdl2h (the WSDL into an annotated header: C++ namespace ipclab_soap, XML prefix `ipclab` from
# src/rpc/soap_typemap.dat) and soapcpp2 (serializers, a client proxy and a service class that
# share one soap context (-j); no sample messages (-x), no WSDL back (-w)). Optional: without
# gSOAP the peer builds without `soap` and `capabilities` does not list it.
pkg_check_modules(GSOAP IMPORTED_TARGET gsoap++)
find_program(IPCLAB_WSDL2H wsdl2h)
find_program(IPCLAB_SOAPCPP2 soapcpp2)
if(GSOAP_FOUND AND IPCLAB_WSDL2H AND IPCLAB_SOAPCPP2)
  set(_s "${IPCLAB_GEN_DIR}/soap")
  set(_s_typemap "${CMAKE_CURRENT_SOURCE_DIR}/src/rpc/soap_typemap.dat")
  set(_s_script "${CMAKE_CURRENT_SOURCE_DIR}/cmake/soap_stubs.cmake")
  add_custom_command(
    OUTPUT ${_s}/ipclab_soapC.cpp ${_s}/ipclab_soapH.h ${_s}/ipclab_soapStub.h
           ${_s}/ipclab_soapBenchBindingProxy.cpp ${_s}/ipclab_soapBenchBindingProxy.h
           ${_s}/ipclab_soapBenchBindingService.cpp ${_s}/ipclab_soapBenchBindingService.h
           ${_s}/BenchBinding.nsmap ${_s}/envC.cpp
    COMMAND ${CMAKE_COMMAND} -DWSDL2H=${IPCLAB_WSDL2H} -DSOAPCPP2=${IPCLAB_SOAPCPP2}
            -DWSDL=${IPCLAB_IDL_DIR}/ipclab_soap.wsdl -DTYPEMAP=${_s_typemap} -DOUT=${_s}
            -P ${_s_script}
    DEPENDS ${IPCLAB_IDL_DIR}/ipclab_soap.wsdl ${_s_typemap} ${_s_script}
    COMMENT "wsdl2h + soapcpp2 ipclab_soap.wsdl")
  add_library(ipclab_rpc_soap STATIC src/rpc/soap_client.cpp src/rpc/soap_server.cpp
    src/rpc/soap_context.cpp ${_s}/ipclab_soapC.cpp ${_s}/envC.cpp
    ${_s}/ipclab_soapBenchBindingProxy.cpp ${_s}/ipclab_soapBenchBindingService.cpp)
  # soapcpp2's output is not warning-clean under -Wextra.
  set_source_files_properties(${_s}/ipclab_soapC.cpp ${_s}/envC.cpp
    ${_s}/ipclab_soapBenchBindingProxy.cpp ${_s}/ipclab_soapBenchBindingService.cpp
    PROPERTIES COMPILE_OPTIONS "-w")
  target_include_directories(ipclab_rpc_soap PRIVATE ${_s})
  # The service's operations pure virtual: soap_server.cpp derives the server from the class.
  target_compile_definitions(ipclab_rpc_soap PRIVATE WITH_PURE_VIRTUAL)
  target_link_libraries(ipclab_rpc_soap PUBLIC ipclab_peer_core PkgConfig::GSOAP)
  target_compile_definitions(ipclab_rpc PRIVATE IPCLAB_WITH_SOAP)
  target_link_libraries(ipclab_rpc PUBLIC ipclab_rpc_soap)
  set(IPCLAB_HAVE_SOAP ON)
else()
  message(STATUS "gSOAP (gsoap++, wsdl2h, soapcpp2) not found: the mechanism soap is left out")
endif()

target_link_libraries(ipclab-peer PRIVATE ipclab_rpc)
