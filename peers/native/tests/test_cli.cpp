// The strict command line of section 1.
#include <gtest/gtest.h>

#include "cli.hpp"
#include "endpoint.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "mechanisms.hpp"
#include "numbers.hpp"

namespace ipclab {
namespace {

std::vector<std::string> drive_args() {
  return {"drive",          "--mechanism",     "tcp",        "--endpoint",    "127.0.0.1:9",
          "--request-size", "16",              "--response-size", "32",         "--iterations",
          "100",            "--samples-file",  "s.bin",      "--result-file", "r.json"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::string& flag,
                              const std::string& value) {
  for (std::size_t i = 1; i + 1 < args.size(); i += 2)
    if (args[i] == flag) {
      args[i + 1] = value;
      return args;
    }
  args.push_back(flag);
  args.push_back(value);
  return args;
}

std::vector<std::string> without(std::vector<std::string> args, const std::string& flag) {
  for (std::size_t i = 1; i + 1 < args.size(); i += 2)
    if (args[i] == flag) {
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
      break;
    }
  return args;
}

TEST(Cli, ParsesDriveWithDefaults) {
  const auto o = std::get<DriveOptions>(parse_command_line(drive_args()));
  EXPECT_EQ(o.mechanism, find_mechanism("tcp"));
  EXPECT_EQ(o.endpoint_text, "127.0.0.1:9");
  EXPECT_EQ(std::get<InetEndpoint>(o.endpoint).host, "127.0.0.1");
  EXPECT_EQ(std::get<InetEndpoint>(o.endpoint).port, 9);
  EXPECT_EQ(o.warmup_samples_file, "");
  EXPECT_EQ(o.request_size, 16u);
  EXPECT_EQ(o.response_size, 32u);
  EXPECT_EQ(o.iterations, 100u);
  EXPECT_EQ(o.warmup, 0u);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(o.pattern, "rr");
  EXPECT_EQ(o.io_timeout_ns, 30'000'000'000);
}

TEST(Cli, ParsesDriveOptionalFlags) {
  auto args = with(with(with(with(drive_args(), "--warmup", "5"), "--seed", "18446744073709551615"),
                        "--io-timeout", "0.5"),
                   "--pattern", "rr");
  const auto o = std::get<DriveOptions>(parse_command_line(args));
  EXPECT_EQ(o.warmup, 5u);
  EXPECT_EQ(o.seed, 18446744073709551615ull);
  EXPECT_EQ(o.io_timeout_ns, 500'000'000);
  EXPECT_EQ(std::get<DriveOptions>(parse_command_line(with(drive_args(), "--warmup-samples-file", "w.bin")))
                .warmup_samples_file,
            "w.bin");
  EXPECT_THROW(parse_command_line(with(drive_args(), "--warmup-samples-file", "")), UsageError);
}

TEST(Cli, ParsesServe) {
  const auto o = std::get<ServeOptions>(parse_command_line(
      {"serve", "--mechanism", "pipe", "--endpoint", "fd:3,4", "--fault", "flip-response-byte"}));
  EXPECT_EQ(o.mechanism, find_mechanism("pipe"));
  EXPECT_EQ(o.fault, Fault::flip_response_byte);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(std::get<FdEndpoint>(o.endpoint).read_fd, 3);
  EXPECT_EQ(std::get<FdEndpoint>(o.endpoint).write_fd, 4);
}

TEST(Cli, CapabilitiesTakesNoArguments) {
  EXPECT_TRUE(std::holds_alternative<CapabilitiesCommand>(parse_command_line({"capabilities"})));
  EXPECT_THROW(parse_command_line({"capabilities", "--mechanism"}), UsageError);
  EXPECT_THROW(parse_command_line({"capabilities", "x", "y"}), UsageError);
}

TEST(Cli, RejectsBadSubcommands) {
  EXPECT_THROW(parse_command_line({}), UsageError);
  EXPECT_THROW(parse_command_line({"run"}), UsageError);
  EXPECT_THROW(parse_command_line({"--mechanism", "tcp"}), UsageError);
}

TEST(Cli, RejectsUnknownRepeatedAndValuelessFlags) {
  EXPECT_THROW(parse_command_line(with(drive_args(), "--verbose", "1")), UsageError);
  EXPECT_THROW(parse_command_line(with(drive_args(), "--fault", "none")), UsageError);  // serve only
  auto repeated = drive_args();
  repeated.push_back("--iterations");
  repeated.push_back("5");
  EXPECT_THROW(parse_command_line(repeated), UsageError);
  auto dangling = drive_args();
  dangling.push_back("--warmup");
  EXPECT_THROW(parse_command_line(dangling), UsageError);
  auto equals = without(drive_args(), "--iterations");
  equals.push_back("--iterations=100");
  equals.push_back("x");
  EXPECT_THROW(parse_command_line(equals), UsageError);
  EXPECT_THROW(parse_command_line({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                                   "--iterations", "3"}),
               UsageError);
}

TEST(Cli, RejectsMissingRequiredFlags) {
  for (const char* flag : {"--mechanism", "--endpoint", "--request-size", "--response-size",
                           "--iterations", "--samples-file", "--result-file"}) {
    SCOPED_TRACE(flag);
    EXPECT_THROW(parse_command_line(without(drive_args(), flag)), UsageError);
  }
  EXPECT_THROW(parse_command_line({"serve", "--mechanism", "tcp"}), UsageError);
  EXPECT_THROW(parse_command_line({"serve", "--endpoint", "x"}), UsageError);
}

TEST(Cli, RejectsBadNumbers) {
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1k", "0x10", "1.0", "١"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_THROW(parse_command_line(with(drive_args(), "--iterations", bad)), UsageError);
    EXPECT_THROW(parse_command_line(with(drive_args(), "--request-size", bad)), UsageError);
  }
  EXPECT_THROW(parse_command_line(with(drive_args(), "--iterations", "0")), UsageError);
  EXPECT_THROW(parse_command_line(with(drive_args(), "--seed", "18446744073709551616")),
               UsageError);  // overflows u64
  EXPECT_THROW(parse_command_line(with(drive_args(), "--request-size", "134217729")),
               UsageError);  // above MAX_PAYLOAD
  EXPECT_NO_THROW(parse_command_line(with(drive_args(), "--response-size", "134217728")));
  EXPECT_NO_THROW(parse_command_line(with(drive_args(), "--request-size", "0")));
  EXPECT_THROW(parse_command_line(with(with(drive_args(), "--warmup", "18446744073709551615"),
                                       "--iterations", "1")),
               UsageError);  // the END sequence would overflow
}

TEST(Cli, ParsesAndRejectsTimeouts) {
  EXPECT_EQ(parse_seconds_ns("--io-timeout", "30"), 30'000'000'000);
  EXPECT_EQ(parse_seconds_ns("--io-timeout", "0.5"), 500'000'000);
  EXPECT_EQ(parse_seconds_ns("--io-timeout", "1.000000001"), 1'000'000'001);
  for (const char* bad : {"0", "0.0", "", ".5", "5.", "-1", "1e3", "1s", "0.0000000001", "abc"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_THROW(parse_seconds_ns("--io-timeout", bad), UsageError);
  }
}

TEST(Cli, RejectsBadEndpointsOfKnownMechanisms) {
  EXPECT_THROW(parse_command_line(with(drive_args(), "--endpoint", "127.0.0.1")), UsageError);
  EXPECT_THROW(parse_command_line(with(drive_args(), "--endpoint", "127.0.0.1:65536")), UsageError);
  EXPECT_THROW(parse_command_line(with(drive_args(), "--endpoint", ":80")), UsageError);
  auto pipe = with(drive_args(), "--mechanism", "pipe");
  EXPECT_THROW(parse_command_line(with(pipe, "--endpoint", "fd:3")), UsageError);
  EXPECT_THROW(parse_command_line(with(pipe, "--endpoint", "3,4")), UsageError);
  EXPECT_THROW(parse_command_line(with(pipe, "--endpoint", "fd:a,4")), UsageError);
  EXPECT_NO_THROW(parse_command_line(with(pipe, "--endpoint", "fd:3,4")));
  EXPECT_EQ(parse_inet("[::1]:80").host, "::1");
  EXPECT_EQ(parse_inet("localhost:80").port, 80);
  EXPECT_EQ(to_string(parse_inet("[::1]:80")), "[::1]:80");
  auto dgram = with(drive_args(), "--mechanism", "uds-dgram");
  EXPECT_EQ(std::get<PathEndpoint>(std::get<DriveOptions>(parse_command_line(with(dgram, "--endpoint", "/d/s"))).endpoint).path, "/d/s");
  EXPECT_THROW(parse_command_line(with(dgram, "--endpoint", "")), UsageError);
}

TEST(Cli, ParsesTheMessageAndFileMechanisms) {
  for (const char* m : {"sysv-mq", "posix-mq", "sysv-shm", "file", "file-poll", "uds-dgram"}) {
    ASSERT_NE(find_mechanism(m), nullptr) << m;
    EXPECT_EQ(find_mechanism(m)->name, m);
  }
  // Servers of message channels take the word auto, nothing else.
  for (const char* m : {"sysv-mq", "posix-mq", "sysv-shm"}) {
    EXPECT_NO_THROW(parse_command_line({"serve", "--mechanism", m, "--endpoint", "auto"}));
    EXPECT_THROW(parse_command_line({"serve", "--mechanism", m, "--endpoint", "/tmp/x"}),
                 UsageError);
  }
  auto sysv = with(drive_args(), "--mechanism", "sysv-mq");
  EXPECT_NO_THROW(parse_command_line(with(sysv, "--endpoint", "sysv:0x1c1a12ab")));
  EXPECT_NO_THROW(parse_command_line(with(sysv, "--endpoint", "sysv:0x1C1A12AB")));
  EXPECT_EQ(parse_sysv_key("sysv:0x1c1a12ab").key, 0x1c1a12ab);
  for (const char* bad : {"auto", "sysv:1c1a12ab", "sysv:0x", "sysv:0x1c1a12ab0", "sysv:0xg",
                          "sysv:0x0", "posix:/ipclab-1"})
    EXPECT_THROW(parse_command_line(with(sysv, "--endpoint", bad)), UsageError) << bad;
  auto posix = with(drive_args(), "--mechanism", "posix-mq");
  EXPECT_EQ(parse_posix_name("posix:/ipclab-42").prefix, "/ipclab-42");
  for (const char* bad : {"auto", "posix:ipclab-1", "posix:/", "posix:/a/b", "/ipclab-1"})
    EXPECT_THROW(parse_command_line(with(posix, "--endpoint", bad)), UsageError) << bad;
  EXPECT_THROW(parse_command_line(with(with(drive_args(), "--mechanism", "file"), "--endpoint", "")),
               UsageError);
}

TEST(Cli, ParsesThePollInterval) {
  auto d = std::get<DriveOptions>(parse_command_line(with(drive_args(), "--mechanism", "file-poll")));
  EXPECT_EQ(d.poll_interval_us, 2000u);
  d = std::get<DriveOptions>(parse_command_line(with(drive_args(), "--poll-interval-us", "1")));
  EXPECT_EQ(d.poll_interval_us, 1u);
  const auto s = std::get<ServeOptions>(parse_command_line(
      {"serve", "--mechanism", "file-poll", "--endpoint", "/d", "--poll-interval-us", "500"}));
  EXPECT_EQ(s.poll_interval_us, 500u);
  for (const char* bad : {"0", "-1", "1.5", "", "2ms", "99999999999999999999"})
    EXPECT_THROW(parse_command_line(with(drive_args(), "--poll-interval-us", bad)), UsageError)
        << bad;
  EXPECT_THROW(parse_command_line({"serve", "--mechanism", "file", "--endpoint", "/d",
                                   "--poll-interval-us", "0"}),
               UsageError);
}

TEST(Cli, UnknownMechanismOrPatternParsesForUnsupported) {
  // Not a usage error: the peer reports these as unsupported (exit 7) after parsing.
  const auto o = std::get<DriveOptions>(
      parse_command_line(with(with(drive_args(), "--mechanism", "jni"), "--pattern", "flood")));
  EXPECT_EQ(o.mechanism, nullptr);
  EXPECT_EQ(o.mechanism_name, "jni");
  EXPECT_EQ(o.pattern, "flood");
  EXPECT_THROW(parse_command_line({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                                   "--fault", "drop"}),
               UsageError);
}

TEST(Cli, SpinUsAndNativeLibrary) {
  // --spin-us: both roles, default 50; --native-library: drive only, required for direct.
  EXPECT_EQ(std::get<DriveOptions>(parse_command_line(drive_args())).spin_us, 50u);
  const auto serve = std::get<ServeOptions>(parse_command_line(
      {"serve", "--mechanism", "shm", "--endpoint", "auto", "--spin-us", "7"}));
  EXPECT_EQ(serve.mechanism, find_mechanism("shm"));
  EXPECT_EQ(serve.spin_us, 7u);
  EXPECT_EQ(std::get<ServeOptions>(parse_command_line(
                {"serve", "--mechanism", "shm-spin", "--endpoint", "auto"}))
                .spin_us,
            50u);
  EXPECT_THROW(parse_command_line({"serve", "--mechanism", "shm", "--endpoint", "auto",
                                   "--spin-us", "-1"}),
               UsageError);
  EXPECT_THROW(parse_command_line({"serve", "--mechanism", "shm-futex", "--endpoint", "x"}),
               UsageError);
  EXPECT_THROW(parse_command_line({"serve", "--mechanism", "shm", "--endpoint", "auto",
                                   "--native-library", "x.so"}),
               UsageError);
  const auto shm = std::get<DriveOptions>(parse_command_line(
      with(with(with(drive_args(), "--mechanism", "shm"), "--endpoint", "posix:/ipclab-1"),
           "--spin-us", "0")));
  EXPECT_EQ(shm.spin_us, 0u);
  EXPECT_THROW(parse_command_line(with(drive_args(), "--mechanism", "shm-spin")), UsageError);

  const auto inproc = with(with(drive_args(), "--mechanism", "direct"), "--endpoint", "inproc");
  EXPECT_THROW(parse_command_line(inproc), UsageError);  // no --native-library
  const auto direct =
      std::get<DriveOptions>(parse_command_line(with(inproc, "--native-library", "/x/lib.so")));
  EXPECT_EQ(direct.mechanism, find_mechanism("direct"));
  EXPECT_EQ(direct.native_library, "/x/lib.so");
  EXPECT_THROW(parse_command_line(with(inproc, "--native-library", "")), UsageError);
  EXPECT_THROW(parse_command_line(with(with(inproc, "--native-library", "/x/lib.so"),
                                       "--endpoint", "127.0.0.1:9")),
               UsageError);
  const auto none = std::get<DriveOptions>(
      parse_command_line(with(inproc, "--mechanism", "none")));  // no library needed
  EXPECT_EQ(none.mechanism, find_mechanism("none"));
  // Not a usage error for a server: unsupported (exit 7) later.
  EXPECT_EQ(std::get<ServeOptions>(parse_command_line(
                {"serve", "--mechanism", "direct", "--endpoint", "anything"}))
                .mechanism,
            find_mechanism("direct"));
}

}  // namespace
}  // namespace ipclab

namespace ipclab {
namespace {

TEST(Mechanisms, EveryRowIsConsistent) {
  // Names are unique; drive-only rows are the in-process calls; the patterns are rr.
  const auto all = implemented_mechanisms();
  ASSERT_GE(all.size(), 16u);  // the kernel and in-process rows; RPC rows need main's hooks
  for (std::size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(std::string(all[i]->name));
    EXPECT_EQ(find_mechanism(all[i]->name), all[i]);
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(all[i]->name, all[j]->name);
    EXPECT_EQ(all[i]->serve == nullptr, all[i]->family == Family::inproc);
    ASSERT_FALSE(all[i]->patterns.empty());
    EXPECT_EQ(all[i]->patterns[0], "rr");
    EXPECT_GT(all[i]->max_payload(), 0u);
    EXPECT_LE(all[i]->max_payload(), kMaxPayload);
  }
  EXPECT_EQ(find_mechanism("udp")->max_payload(), 65483u);
  EXPECT_EQ(find_mechanism("jni"), nullptr);
  EXPECT_EQ(find_mechanism("grpc"), nullptr);  // no RPC hooks in this test binary
}

}  // namespace
}  // namespace ipclab
