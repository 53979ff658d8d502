#pragma once
// Request ids: UUIDv7 (time-ordered, so audit rows written together sit together in the index).
// Thread-safe.

#include <string>

namespace sluice::http {

std::string newRequestId();

}  // namespace sluice::http
