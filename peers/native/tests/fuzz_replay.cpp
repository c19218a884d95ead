// Replays a fuzz target's committed corpus (peers/native/fuzz, README.md "Fuzzing") in the
// normal build, without libFuzzer: calls the target's LLVMFuzzerTestOneInput on every file of
// the directories given, in name order. A target that crashes or aborts on an input fails the
// ctest test (the input's name is written first); so does an empty or missing corpus.
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

std::string current;  // the input being replayed, for the crash message

void on_crash(int sig) {
  const char* head = "fuzz replay: crashed on ";
  (void)!::write(2, head, std::strlen(head));
  (void)!::write(2, current.data(), current.size());
  (void)!::write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::vector<fs::path> inputs_in(const std::vector<std::string>& dirs) {
  std::vector<fs::path> files;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<fs::path> files = inputs_in({argv + 1, argv + argc});
  if (files.empty()) {
    std::fprintf(stderr, "fuzz replay: no inputs in the corpus directories given\n");
    return 1;
  }
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_crash);
  for (const auto& path : files) {
    current = path.string();
    const std::vector<std::uint8_t> bytes = read_bytes(path);
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("fuzz replay: %zu inputs, no crash\n", files.size());
  return 0;
}
