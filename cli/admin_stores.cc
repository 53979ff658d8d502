#include "cli/admin_stores.h"

#include <cstdlib>

namespace sluice::cli {

std::string cliActor() {
  for (const char* variable : {"SLUICECTL_ACTOR", "SUDO_USER", "USER", "LOGNAME"}) {
    const char* value = std::getenv(variable);
    if (value && *value) return identity::adminActor("cli", value);
  }
  return identity::adminActor("cli", "");
}

}  // namespace sluice::cli
