# Included by CMakeLists.txt (its scope: paths are the peer's directory's).
if(IPCLAB_PEER_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
  # Built by the suite's own step (peer.toml's test), not the peer's build: the compile then runs
  # beside the other suites instead of before them all.
  add_executable(ipclab-peer-tests EXCLUDE_FROM_ALL
    tests/test_activemq.cpp
    tests/test_burst.cpp
    tests/test_capabilities.cpp
    tests/test_cli.cpp
    tests/test_client_errors.cpp
    tests/test_conditions.cpp
    tests/test_connection_conditions.cpp
    tests/test_file_mechanisms.cpp
    tests/test_frame.cpp
    tests/test_load.cpp
    tests/test_load_exchange.cpp
    tests/test_load_queue_messages.cpp
    tests/test_load_queues.cpp
    tests/test_load_release.cpp
    tests/test_load_run.cpp
    tests/test_message_channels.cpp
    tests/test_messages.cpp
    tests/test_native.cpp
    tests/test_one_way.cpp
    tests/test_patterns.cpp
    tests/test_payload.cpp
    tests/test_payload_conditions.cpp
    tests/test_posix_shm.cpp
    tests/test_read_size.cpp
    tests/test_rest_client.cpp
    tests/test_roundtrip.cpp
    tests/test_rpc.cpp
    tests/test_server_connection.cpp
    tests/test_server_faults.cpp
    tests/test_soap.cpp
    tests/test_stream_arithmetic.cpp
    tests/test_structs.cpp
    tests/test_studies.cpp
    tests/test_uds_dgram.cpp
    tests/test_two_socket_libraries.cpp
    tests/test_zmq.cpp
    tests/message_library.cpp
    tests/test_nng.cpp
    tests/test_redis.cpp
    tests/test_nats.cpp
    tests/test_iceoryx2.cpp
    tests/support.cpp
    tests/support_process.cpp
    tests/support_sockets.cpp
  )
  target_link_libraries(ipclab-peer-tests PRIVATE
    ipclab_peer_core ipclab_native ipclab_rpc_rest GTest::gtest GTest::gtest_main
    nlohmann_json::nlohmann_json)
  # The tests' own code needs no optimising (the peer they run and the library they call are
  # built -O2): -Og and one precompiled header of gtest, JSON and the standard library headers the
  # tests share halve the suite's compile time, most of a clean build. A unity build (three
  # translation units of 15 files) instantiates gtest's and JSON's templates once per unit instead
  # of once per file: 245 -> 67 CPU-s on a clean build. So a test file's helpers in its anonymous
  # namespace must not share a name with another file's (NngRaw, RedisRaw, drive_inproc).
  target_compile_options(ipclab-peer-tests PRIVATE -Og)
  set_target_properties(ipclab-peer-tests PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 15)
  target_precompile_headers(ipclab-peer-tests PRIVATE
    <gtest/gtest.h> <nlohmann/json.hpp> <filesystem> <fstream> <regex> <sstream> <string>
    <thread> <vector>)
  target_compile_definitions(ipclab-peer-tests PRIVATE
    IPCLAB_VECTORS_DIR="${CMAKE_SOURCE_DIR}/../../protocol/vectors"
    IPCLAB_PEER_EXE="$<TARGET_FILE:ipclab-peer>"
    IPCLAB_NATIVE_LIBRARY="$<TARGET_FILE:ipclab_native>")
  if(IPCLAB_HAVE_JNI)
    target_compile_definitions(ipclab-peer-tests PRIVATE IPCLAB_EXPECT_JNI)
  endif()
  if(IPCLAB_HAVE_SOAP)
    target_compile_definitions(ipclab-peer-tests PRIVATE IPCLAB_EXPECT_SOAP)
  endif()
  if(IPCLAB_HAVE_PROTON)  # test_activemq.cpp sends malformed messages through AmqpLink
    target_compile_definitions(ipclab-peer-tests PRIVATE IPCLAB_EXPECT_ACTIVEMQ)
    target_link_libraries(ipclab-peer-tests PRIVATE ipclab_broker)
  endif()
  # Each message library's suite (test_zmq.cpp, test_nng.cpp, test_redis.cpp, test_nats.cpp,
  # test_iceoryx2.cpp) sends malformed messages with sockets, a connection or a side of its own:
  # the library, linked (iceoryx2: ipclab's binding of it).
  foreach(upper IN LISTS IPCLAB_OPTIONAL_LIBRARIES)
    target_compile_definitions(ipclab-peer-tests PRIVATE IPCLAB_EXPECT_${upper})
    target_link_libraries(ipclab-peer-tests PRIVATE ${IPCLAB_LINK_${upper}})
  endforeach()
  add_dependencies(ipclab-peer-tests ipclab-peer ipclab_native)
  gtest_discover_tests(ipclab-peer-tests DISCOVERY_TIMEOUT 30 PROPERTIES TIMEOUT 60)
  # The fuzz targets' committed corpora, replayed (fuzz/CMakeLists.txt): fuzz_corpus.<target>.
  add_subdirectory(fuzz)
endif()
