#pragma once
// Sluice API keys: `sk-sluice-<id><secret>`, where <id> is 8 base62 characters that name the key in
// listings, audit rows and logs (the visible prefix is `sk-sluice-<id>`), and <secret> is 256 bits
// from OpenSSL's RAND_bytes in 43 base62 characters. Only SHA-256 of the whole key is stored; the
// key is shown once, when it is created.
//
// Everything here is pure except generateApiKey()/generateKeyId() (the random generator).
// Thread-safe: no shared state.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::identity {

inline constexpr std::string_view kKeyPrefix = "sk-sluice-";
inline constexpr size_t kKeyIdLength = 8;
inline constexpr size_t kKeySecretLength = 43;  // 62^43 > 2^256
inline constexpr size_t kKeyLength = kKeyPrefix.size() + kKeyIdLength + kKeySecretLength;

using KeyHash = std::array<unsigned char, 32>;

struct GeneratedKey {
  std::string id;   // 8 base62 characters
  std::string key;  // the full key: shown once, never stored
  KeyHash hash{};   // hashApiKey(key)
};

// A fresh key. Throws std::runtime_error when the random generator fails (environment failure).
GeneratedKey generateApiKey();
// 8 random base62 characters (for a new id when the first collides).
std::string generateKeyId();

// SHA-256 of the full key text.
KeyHash hashApiKey(std::string_view key);
// Constant-time comparison (CRYPTO_memcmp).
bool sameHash(const KeyHash& a, const KeyHash& b);

// "sk-sluice-<id>".
std::string visiblePrefix(std::string_view id);

struct ParsedKey {
  std::string_view id;
  std::string_view secret;
};
// The parts of a well-formed key (the exact length, the prefix, base62 only); nullopt otherwise.
// The views point into `presented`.
std::optional<ParsedKey> parseApiKey(std::string_view presented);

// The key a request presents: the credentials of `Authorization: Bearer <key>` (scheme matched
// case-insensitively), else the value of `x-api-key`, surrounding spaces removed. An Authorization
// header of another scheme is returned whole, so it fails as malformed rather than as missing.
// Empty when neither header carries anything.
std::string_view presentedKey(std::string_view authorization, std::string_view x_api_key);

// Lower-case hex of `bytes` (for hashes in the database and in tests).
std::string toHex(std::string_view bytes);

}  // namespace sluice::identity
