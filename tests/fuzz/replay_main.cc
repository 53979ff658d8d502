// Replay driver for the fuzz targets in the normal (non-libFuzzer) build: runs
// LLVMFuzzerTestOneInput over every file under the given paths (default: tests/fixtures),
// each with every prefix byte 0..7 (the wire / chunk selectors), plus deterministic mutations:
// truncations at every 97th byte and byte flips from a fixed-seed std::mt19937.
// A crash or sanitizer report fails the test; on success prints the number of cases run.
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
  return cases;
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
  std::printf("replayed %zu files, %zu cases, no crash\n", files, cases);
  return 0;
}
