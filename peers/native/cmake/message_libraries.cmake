# Included by CMakeLists.txt (its scope: paths are the peer's directory's).
# activemq (PROTOCOL.md 4.7): Qpid Proton C++ (Debian libqpid-proton-cpp12-dev,
# scripts/setup-system). Optional like gSOAP: without it the peer builds without `activemq` and
# `capabilities` does not list it. pkg-config first; Debian 12's libqpid-proton-cpp.pc requires
# libqpid-proton-core.pc and libqpid-proton-proactor.pc, which no Debian package ships, so
# pkg-config fails there and the library and header are looked up directly.
pkg_check_modules(PROTON_CPP IMPORTED_TARGET libqpid-proton-cpp)
if(PROTON_CPP_FOUND)
  set(_proton PkgConfig::PROTON_CPP)
else()
  find_library(IPCLAB_PROTON_CPP_LIB qpid-proton-cpp)
  find_path(IPCLAB_PROTON_CPP_INCLUDE proton/container.hpp)
  if(IPCLAB_PROTON_CPP_LIB AND IPCLAB_PROTON_CPP_INCLUDE)
    set(_proton ${IPCLAB_PROTON_CPP_LIB})
  endif()
endif()
if(_proton)
  add_library(ipclab_broker STATIC src/broker/amqp_client.cpp src/broker/amqp_server.cpp
    src/broker/amqp_session.cpp)
  target_link_libraries(ipclab_broker PUBLIC ipclab_peer_core ${_proton})
  target_link_libraries(ipclab-peer PRIVATE ipclab_broker)
  set_source_files_properties(src/main.cpp PROPERTIES COMPILE_DEFINITIONS IPCLAB_WITH_PROTON)
  set(IPCLAB_HAVE_PROTON ON)
else()
  message(STATUS "Qpid Proton C++ (libqpid-proton-cpp) not found: the mechanism activemq is left out")
endif()

# A message library's mechanisms, built in only where the library is found: the pkg-config
# module PKG (its target PkgConfig::<NAME> linked, NAME in capitals), or else FOUND and LINK as
# a CMake package gives them; the static library ipclab_NAME of SOURCES (src/DIR/SOURCE.cpp) in
# the peer, main.cpp told by IPCLAB_WITH_<NAME>, and the tests' section below by
# IPCLAB_OPTIONAL_LIBRARIES (NAME in capitals: the suite gets IPCLAB_EXPECT_<NAME> and LINK).
# Otherwise a line says that the MECHANISMS are left out (MISSING: what was not found, if not
# the library).
function(ipclab_optional_library)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PKG;FOUND;LINK;DIR;MISSING" "MECHANISMS;SOURCES")
  string(TOUPPER "${arg_NAME}" upper)
  if(arg_PKG)
    # Asked anew at every configure: CMake 3.25 imports libzmq's "-isystem /usr/include/mit-krb5"
    # as an include directory the first time and as a compile option from its cache after, so
    # the second configure of a fresh build directory rebuilt every source that includes zmq.h.
    # The mark is FindPkgConfig's own (internal) variable: a CMake that drops it only brings
    # that one rebuild back.
    unset(__pkg_config_checked_${upper} CACHE)
    pkg_check_modules(${upper} IMPORTED_TARGET ${arg_PKG})
    set(arg_FOUND ${${upper}_FOUND})
    set(arg_LINK PkgConfig::${upper})
  endif()
  if(NOT arg_FOUND)
    set(library ${arg_PKG})
    if(NOT library)
      set(library lib${arg_NAME})
    endif()
    if(arg_MISSING)
      set(library "${arg_MISSING}")
    endif()
    list(LENGTH arg_MECHANISMS count)
    list(JOIN arg_MECHANISMS " and " mechanisms)
    if(count EQUAL 1)
      message(STATUS "${library} not found: the mechanism ${mechanisms} is left out")
    else()
      message(STATUS "${library} not found: the mechanisms ${mechanisms} are left out")
    endif()
    return()
  endif()
  list(TRANSFORM arg_SOURCES PREPEND src/${arg_DIR}/)
  list(TRANSFORM arg_SOURCES APPEND .cpp)
  add_library(ipclab_${arg_NAME} STATIC ${arg_SOURCES})
  target_link_libraries(ipclab_${arg_NAME} PUBLIC ipclab_peer_core ${arg_LINK})
  target_link_libraries(ipclab-peer PRIVATE ipclab_${arg_NAME})
  set_property(SOURCE src/main.cpp APPEND PROPERTY COMPILE_DEFINITIONS IPCLAB_WITH_${upper})
  set(IPCLAB_HAVE_${upper} ON PARENT_SCOPE)
  set(IPCLAB_LINK_${upper} ${arg_LINK} PARENT_SCOPE)
  set(IPCLAB_OPTIONAL_LIBRARIES ${IPCLAB_OPTIONAL_LIBRARIES} ${upper} PARENT_SCOPE)
endfunction()

# zmq-tcp, zmq-ipc (PROTOCOL.md 4.8): libzmq's C API (Debian libzmq3-dev, scripts/setup-system).
# Optional like Proton: without it the peer builds without both and `capabilities` leaves them
# out (the orchestrator then refuses this peer until it is rebuilt with it).
ipclab_optional_library(NAME zmq PKG libzmq MECHANISMS zmq-tcp zmq-ipc
  DIR zmq SOURCES zmq_client zmq_server zmq_socket)

# nng-tcp, nng-ipc (PROTOCOL.md 4.9): libnng's C API (Debian libnng-dev, scripts/setup-system,
# which ships a CMake package and no pkg-config file). Optional like libzmq.
find_package(nng CONFIG QUIET)
ipclab_optional_library(NAME nng FOUND ${nng_FOUND} LINK nng::nng MECHANISMS nng-tcp nng-ipc
  DIR nng SOURCES nng_client nng_server nng_socket)

# redis-tcp, redis-uds (PROTOCOL.md 4.10): hiredis (Debian libhiredis-dev, scripts/setup-system).
# Optional like libzmq.
ipclab_optional_library(NAME hiredis PKG hiredis MECHANISMS redis-tcp redis-uds
  DIR redis SOURCES redis_client redis_server redis_connection)

# nats (PROTOCOL.md 4.11): nats.c (Debian libnats-dev 3.4, scripts/setup-system; its pkg-config
# name is libnats). Optional like hiredis.
ipclab_optional_library(NAME nats PKG libnats MECHANISMS nats
  DIR nats SOURCES nats_client nats_server nats_connection)

# iceoryx2, iceoryx2-spin (PROTOCOL.md 4.12): ipclab's C binding of the iceoryx2 crate
# (iceoryx2/: Cargo.toml, Cargo.lock, src/*.rs, include/ipclab_iceoryx2.h), since iceoryx2's
# own C and C++ bindings are not on crates.io at 0.10. Optional like the others, found where
# cargo is on PATH with a rustc the crates take (1.89, their rust-version) and the locked crates
# can be fetched (here, at configure time: offline from cargo's cache, else from crates.io).
# Ninja then builds the static library with `cargo build --release --locked` into build/cargo
# (about a minute of two CPUs from clean; after that only when the binding's sources change),
# linked only into ipclab-peer (and the suite) with what Rust's std needs of the system.
set(_ix2 ${CMAKE_CURRENT_SOURCE_DIR}/iceoryx2)
set(_ix2_found FALSE)
set(_ix2_missing "cargo (rustup, https://rustup.rs)")
find_program(IPCLAB_CARGO cargo)
find_program(IPCLAB_RUSTC rustc)
if(IPCLAB_CARGO AND IPCLAB_RUSTC)
  execute_process(COMMAND ${IPCLAB_RUSTC} --version OUTPUT_VARIABLE _rustc RESULT_VARIABLE _rc
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" _rustc_version "${_rustc}")
  if(NOT _rc EQUAL 0 OR _rustc_version VERSION_LESS 1.89)
    set(_ix2_missing "rustc 1.89 or newer (found '${_rustc}')")
  else()
    execute_process(COMMAND ${IPCLAB_CARGO} fetch --locked --offline --quiet
                    WORKING_DIRECTORY ${_ix2} RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT _rc EQUAL 0)
      execute_process(COMMAND ${IPCLAB_CARGO} fetch --locked --quiet
                      WORKING_DIRECTORY ${_ix2} RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    endif()
    if(_rc EQUAL 0)
      set(_ix2_found TRUE)
    else()
      set(_ix2_missing "the iceoryx2 crates of iceoryx2/Cargo.lock (cargo fetch failed)")
    endif()
  endif()
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_ix2}/Cargo.lock)
if(_ix2_found)
  set(_ix2_target ${CMAKE_CURRENT_BINARY_DIR}/cargo)
  file(GLOB _ix2_sources CONFIGURE_DEPENDS ${_ix2}/src/*.rs)
  set(_ix2_lib ${_ix2_target}/release/libipclab_iceoryx2.a)
  add_custom_command(OUTPUT ${_ix2_lib}
    COMMAND ${CMAKE_COMMAND} -E env CARGO_TARGET_DIR=${_ix2_target}
            ${IPCLAB_CARGO} build --release --locked --quiet --manifest-path ${_ix2}/Cargo.toml
    DEPENDS ${_ix2}/Cargo.toml ${_ix2}/Cargo.lock ${_ix2_sources}
    COMMENT "Building ipclab's iceoryx2 binding (cargo build --release)"
    VERBATIM)
  add_custom_target(ipclab_iceoryx2_cargo DEPENDS ${_ix2_lib})
  add_library(ipclab_iceoryx2_binding INTERFACE)
  target_include_directories(ipclab_iceoryx2_binding INTERFACE ${_ix2}/include)
  # What `cargo rustc -- --print native-static-libs` names beyond libc and libgcc_s.
  target_link_libraries(ipclab_iceoryx2_binding INTERFACE ${_ix2_lib} Threads::Threads
                        ${CMAKE_DL_LIBS} rt m util)
  add_dependencies(ipclab_iceoryx2_binding ipclab_iceoryx2_cargo)
endif()
ipclab_optional_library(NAME iceoryx2 FOUND ${_ix2_found} LINK ipclab_iceoryx2_binding
  MISSING "${_ix2_missing}" MECHANISMS iceoryx2 iceoryx2-spin
  DIR iceoryx2 SOURCES iceoryx2_client iceoryx2_server iceoryx2_side)
