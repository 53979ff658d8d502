#pragma once
// What one SCIM request may hold (docs/http-api.md, /scim/v2): anything past these is refused with
// 400 (or 413 for the body) before it reaches the database. Pure constants.

#include <cstddef>

namespace sluice::scim {

inline constexpr size_t kMaxBodyBytes = 1 << 20;
inline constexpr int kMaxJsonDepth = 32;            // SCIM bodies nest a few levels
inline constexpr size_t kMaxPageSize = 200;         // ServiceProviderConfig filter.maxResults
inline constexpr size_t kDefaultPageSize = 100;
inline constexpr size_t kMaxFilterBytes = 1024;
inline constexpr size_t kMaxOperations = 1000;      // PATCH Operations
inline constexpr size_t kMaxMembersPerRequest = 10000;  // members of one group PUT/POST/PATCH
inline constexpr size_t kMaxTextBytes = 512;        // externalId, displayName, name parts
inline constexpr size_t kMaxEmailBytes = 320;
inline constexpr size_t kMaxGroupNameBytes = 128;
inline constexpr size_t kMaxIdBytes = 64;           // a resource id in a path or a members value

}  // namespace sluice::scim
