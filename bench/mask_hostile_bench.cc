// The cost of masking hostile text: one user message holding a shape repeated to SIZE MiB,
// masked with every detector on (no time limit, so the raw cost shows), as the gateway masks a
// request for a masked tier.
//
//   build/bin/mask_hostile_bench [MiB...]      (default: 1 4)
//
// Prints, per shape and size, the CPU seconds of maskRequest and its outcome. Shapes:
//   pem-markers   "-----BEGIN PRIVATE KEY-----!" repeated (issue #27: 5.2 s per MiB before)
//   prose         ordinary English, the baseline
//   at-signs      "a@" repeated (each '@' looked back 512 bytes for a URL)
//   password-eq   "password=" repeated (each '=' read the rest of the value again)
//   known-lengths 600 passwords of distinct lengths, then runs of their first bytes shorter than
//                 most of them (each position hashed a slice per length)

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "server/protection/masker.h"

namespace {

using namespace sluice::protection;

double cpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

std::string repeated(const std::string& unit, size_t bytes) {
  std::string out;
  out.reserve(bytes + unit.size());
  while (out.size() < bytes) out += unit;
  return out;
}

std::string shape(const std::string& name, size_t bytes) {
  if (name == "pem-markers") return repeated("-----BEGIN PRIVATE KEY-----!", bytes);
  if (name == "prose") return repeated("The quick brown fox jumps over the lazy dog near the river bank. ", bytes);
  if (name == "at-signs") return repeated("a@", bytes);
  if (name == "password-eq") return repeated("password=", bytes);
  std::string text;
  for (int length = 4; length < 604; ++length) text += "password=" + repeated("-.", length).substr(0, length) + " \n";
  return text + repeated(repeated("-.", 150) + "|", bytes - text.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {1, 4};
  const Detector detector = *Detector::create({Kind::Email, Kind::Phone, Kind::PaymentCard, Kind::Iban, Kind::ApiKey,
                                               Kind::Jwt, Kind::PrivateKey, Kind::Password, Kind::UrlCredentials,
                                               Kind::IpAddress},
                                              {"Acme Rocket Corp"});
  for (const std::string name : {"pem-markers", "prose", "at-signs", "password-eq", "known-lengths"}) {
    for (const size_t mib : sizes) {
      sluice::wire::Request request;
      sluice::wire::Message message;
      message.content.push_back(sluice::wire::ContentBlock::ofText(shape(name, mib << 20)));
      request.messages.push_back(std::move(message));
      const double started = cpuSeconds();
      const auto result = maskRequest(request, detector);
      const double seconds = cpuSeconds() - started;
      size_t values = 0;
      if (result) {
        for (const auto& [kind, count] : result->counts) values += static_cast<size_t>(count);
      }
      std::printf("%-14s %2zu MiB  %8.3f s CPU  %s\n", name.c_str(), mib, seconds,
                  result ? ("masked " + std::to_string(values) + " values").c_str()
                         : ("failed: " + result.error().reason).c_str());
    }
  }
  return 0;
}
