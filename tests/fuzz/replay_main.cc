// Replay driver for the fuzz targets in the normal (non-libFuzzer) build: runs
// LLVMFuzzerTestOneInput over every file under the given paths (default: tests/fixtures),
// each with every prefix byte 0..7 (the wire / chunk selectors), plus deterministic mutations:
// truncations at every 97th byte and byte flips from a fixed-seed std::mt19937.
// A target built with SLUICE_FUZZ_MAX_NS_PER_BYTE is also held to a cost: each file's body tiled
// to kTiledBytes, with prefix bytes 0..3, must run within that many nanoseconds of CPU per byte
// (plus kSlackNs): a path quadratic in its input hides in small inputs and shows here.
// A crash, a sanitizer report or a slow case fails the test; on success prints the number of
// cases run.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

constexpr int kFlipMutations = 200;
#ifdef SLUICE_FUZZ_MAX_NS_PER_BYTE
constexpr double kMaxNsPerByte = SLUICE_FUZZ_MAX_NS_PER_BYTE;
#else
constexpr double kMaxNsPerByte = 0;  // no cost check
#endif
constexpr size_t kTiledBytes = 256 * 1024;
constexpr double kSlackNs = 20e6;
int slow_cases = 0;

double cpuNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

// `body` repeated to kTiledBytes, run with prefixes 0..3 and timed.
size_t replayTiled(const std::filesystem::path& path, const std::string& body) {
  if (kMaxNsPerByte <= 0) return 0;
  std::string tiled;
  tiled.reserve(kTiledBytes + body.size());
  while (tiled.size() < kTiledBytes) tiled += body.empty() ? std::string(" ") : body;
  for (int prefix = 0; prefix < 4; ++prefix) {
    const std::string input = std::string{static_cast<char>(prefix), static_cast<char>(prefix * 37 % 256)} + tiled;
    const double started = cpuNs();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    const double spent = cpuNs() - started;
    if (spent > kMaxNsPerByte * static_cast<double>(input.size()) + kSlackNs) {
      std::fprintf(stderr, "too slow: %s tiled to %zu bytes, prefix %d: %.0f ns per byte (at most %.0f)\n",
                   path.string().c_str(), input.size(), prefix, spent / static_cast<double>(input.size()),
                   kMaxNsPerByte);
      ++slow_cases;
    }
  }
  return 4;
}

size_t run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  return 1;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t replayFile(const std::filesystem::path& path, std::mt19937& rng) {
  const std::string body = readFile(path);
  std::fprintf(stderr, "replay %s\n", path.string().c_str());
  size_t cases = 0;
  // Prefix bytes: 0..3 pick each wire; 4..7 repeat them with other chunk sizes / flags.
  for (int prefix = 0; prefix < 8; ++prefix) {
    const std::string head{static_cast<char>(prefix), static_cast<char>(prefix * 37 % 256)};
    const std::string input = head + body;
    cases += run(input);
    for (size_t cut = 97; cut < input.size(); cut += 97) cases += run(input.substr(0, cut));
  }
  // Byte flips / replacements on the whole input (prefix included), fixed seed.
  const std::string base = std::string("\x00\x10", 2) + body;
  for (int i = 0; i < kFlipMutations; ++i) {
    std::string input = base;
    input[0] = static_cast<char>(i % 8);
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && input.size() > 2; ++e) {
      const size_t at = 2 + rng() % (input.size() - 2);
      switch (rng() % 3) {
        case 0: input[at] = static_cast<char>(input[at] ^ (1u << (rng() % 8))); break;
        case 1: input[at] = "{}[]\",:\\\n0"[rng() % 10]; break;
        default: input.erase(at, 1 + rng() % 16); break;
      }
    }
    cases += run(input);
  }
  return cases + replayTiled(path, body);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> roots;
  for (int i = 1; i < argc; ++i) roots.emplace_back(argv[i]);
  if (roots.empty()) roots.emplace_back(SLUICE_FUZZ_DEFAULT_CORPUS);

  std::mt19937 rng(0x5eed);
  size_t files = 0, cases = 0;
  // The empty input and a few tiny ones first.
  for (const std::string& tiny : {std::string(), std::string(1, '\0'), std::string("\x01\x00", 2),
                                  std::string("\x02\x00" "data: {\n\n", 11)}) {
    cases += run(tiny);
  }
  for (const auto& root : roots) {
    if (std::filesystem::is_regular_file(root)) {
      cases += replayFile(root, rng);
      ++files;
      continue;
    }
    if (!std::filesystem::is_directory(root)) {
      std::fprintf(stderr, "no such corpus: %s\n", root.string().c_str());
      return 2;
    }
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
      if (entry.is_regular_file()) paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());  // deterministic order, so the rng sequence is too
    for (const auto& path : paths) {
      cases += replayFile(path, rng);
      ++files;
    }
  }
  if (slow_cases > 0) {
    std::printf("replayed %zu files, %zu cases: %d too slow\n", files, cases, slow_cases);
    return 1;
  }
  std::printf("replayed %zu files, %zu cases, no crash\n", files, cases);
  return 0;
}
