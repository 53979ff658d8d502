#pragma once
// The catalog's version string: a short, stable hash of its source texts.

#include <string>
#include <string_view>
#include <vector>

namespace sluice::catalog {

// FNV-1a 64 over each part, each preceded by its length so that moving text between parts changes
// the hash. Returns the low 48 bits as 12 lowercase hex digits. Not cryptographic: it tells
// versions apart, it does not authenticate them.
std::string contentHash(const std::vector<std::string_view>& parts);

}  // namespace sluice::catalog
