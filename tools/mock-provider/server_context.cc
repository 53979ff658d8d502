#include "tools/mock-provider/server_context.h"

#include <cstdio>

namespace sluice::mock {

void ServerContext::log(const std::string& line) const {
  if (quiet_) return;
  const std::string text = "sluice-mock-provider: " + line + "\n";
  // NOTE: one fwrite per line keeps lines from concurrent handlers whole.
  std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // namespace sluice::mock
