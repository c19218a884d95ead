// POSIX shared memory (shm, shm-spin, shm-futex) of PROTOCOL.md 4.3: a dead server is a timeout
// and its removed name an io error, any spin time works, and the object's layout as the
// contract's table gives it, read back raw.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

#include "endpoint.hpp"
#include "lifecycle.hpp"
#include "message_objects.hpp"
#include "transport/message.hpp"

namespace ipclab {
namespace {

using namespace message_test;

// ---- shm, shm-spin, shm-futex: a dead server, the hybrid's spin time --------------------------

class PosixShmMechanism : public ::testing::TestWithParam<std::string> {};

class ShmDeadServer : public DeadServer {};

TEST_P(ShmDeadServer, IsATimeoutAndARemovedNameAnIoError) {
  // Nobody ever wakes the client; its waits (spinning or on the futex) end at --io-timeout.
  // Once the orchestrator removed the name, opening fails.
  ASSERT_EQ(objects_of(mech, ep).posix_shm, 1);
  DriveRun run = drive(mech, ep, served.dir, 16, 16, 3, {"--io-timeout", "0.3"});
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
  remove_objects(ep);
  run = drive(mech, ep, served.dir, 16, 16, 3, {"--io-timeout", "0.3"});
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
}

INSTANTIATE_TEST_SUITE_P(Peer, ShmDeadServer, ::testing::Values("shm", "shm-spin", "shm-futex"),
                         test::param_name);

TEST_P(PosixShmMechanism, AnySpinTimeWorks) {
  const std::string mech = GetParam();
  for (const char* spin : {"0", "1", "1000"}) {
    Served served(mech, {"--spin-us", spin});
    ASSERT_TRUE(served.server.ready());
    const DriveRun run =
        drive(mech, served.server.endpoint(), served.dir, 100, 5000, 200, {"--spin-us", spin, "--warmup", "5"});
    EXPECT_EQ(run.child.exit_code, 0) << spin << ": " << run.child.err;
    EXPECT_EQ(run.samples.size(), 200u);
    served.server.close_stdin();
    EXPECT_EQ(served.server.wait().exit_code, 0);
    EXPECT_EQ(objects_of(mech, served.server.endpoint()).total(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Peer, PosixShmMechanism,
                         ::testing::Values("shm", "shm-spin", "shm-futex"),
                         test::param_name);

// The offsets of the contract's table (4.3), read back raw through a mapping of our own: each
// side writes only its own line, messages of at most 48 bytes travel in it, longer ones in the
// slots. Both sides live in this process, on an object named with its pid.
TEST(PosixShmLayout, OneLinePerSideAndInlineMessages) {
  MessageServer server = create_posix_shm(ShmWait::spin, 0);
  struct Remove {
    ~Remove() { remove_created_paths(); }
  } remove;
  auto client = open_posix_shm(parse_posix_name(server.endpoint), ShmWait::spin, 0, 1'000'000'000);
  const std::string name = parse_posix_name(server.endpoint).prefix + "-shm";
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  ASSERT_GE(fd, 0);
  void* map = ::mmap(nullptr, 2101248, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  ASSERT_NE(map, MAP_FAILED);
  const auto* raw = static_cast<const std::uint8_t*>(map);
  const auto word = [raw](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, raw + at, 4);
    return v;
  };
  const auto bytes = [raw](std::size_t at, std::size_t n) {
    return std::vector<std::uint8_t>(raw + at, raw + at + n);
  };
  std::vector<std::uint8_t> request(48), response(30), longer(49), got(1048576);
  for (std::size_t i = 0; i < request.size(); ++i) request[i] = static_cast<std::uint8_t>(i + 1);
  for (std::size_t i = 0; i < response.size(); ++i)
    response[i] = static_cast<std::uint8_t>(100 + i);
  for (std::size_t i = 0; i < longer.size(); ++i) longer[i] = static_cast<std::uint8_t>(i);

  client->send(request.data(), request.size());
  EXPECT_EQ(word(0), 1u);   // seq1
  EXPECT_EQ(word(8), 48u);  // length1
  EXPECT_EQ(bytes(16, 48), request);
  EXPECT_EQ(word(64), 0u);
  EXPECT_EQ(word(68), 0u);
  ASSERT_EQ(server.channel->receive(got.data()), 48u);
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin(), got.begin() + 48), request);
  EXPECT_EQ(word(68), 1u);  // ack1, in the server's line
  server.channel->send(response.data(), response.size());
  EXPECT_EQ(word(64), 1u);  // seq2
  EXPECT_EQ(word(72), 30u);  // length2
  EXPECT_EQ(bytes(80, 30), response);
  ASSERT_EQ(client->receive(got.data()), 30u);
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin(), got.begin() + 30), response);
  EXPECT_EQ(word(4), 1u);  // ack2, in the client's line

  client->send(longer.data(), longer.size());  // 49 bytes: the slot
  EXPECT_EQ(word(0), 2u);
  EXPECT_EQ(word(8), 49u);
  EXPECT_EQ(bytes(4096, 49), longer);
  EXPECT_EQ(bytes(16, 48), request);  // the inline bytes are left as they were
  ASSERT_EQ(server.channel->receive(got.data()), 49u);
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin(), got.begin() + 49), longer);
  server.channel->send(longer.data(), longer.size());
  EXPECT_EQ(word(64), 2u);
  EXPECT_EQ(word(68), 2u);
  EXPECT_EQ(word(72), 49u);
  EXPECT_EQ(bytes(1052672, 49), longer);
  ASSERT_EQ(client->receive(got.data()), 49u);
  EXPECT_EQ(word(4), 2u);
  EXPECT_EQ(word(12), 0u);  // reserved
  EXPECT_EQ(word(76), 0u);
  EXPECT_EQ(word(128), 0u);  // sleepers: nobody slept
  EXPECT_EQ(word(192), 0u);
  ::munmap(map, 2101248);
}

}  // namespace
}  // namespace ipclab
