#include "server/identity/api_keys.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

namespace sluice::identity {

namespace {

constexpr std::string_view kBase62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

bool isBase62(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

void randomBytes(unsigned char* out, size_t size) {
  if (RAND_bytes(out, static_cast<int>(size)) != 1) {
    throw std::runtime_error("the random number generator failed (RAND_bytes)");
  }
}

// The 32 bytes as one big-endian number in exactly kKeySecretLength base62 digits.
std::string base62(std::array<unsigned char, 32> number) {
  std::string digits;
  for (size_t i = 0; i < kKeySecretLength; ++i) {
    unsigned remainder = 0;
    for (unsigned char& byte : number) {
      const unsigned value = (remainder << 8) | byte;
      byte = static_cast<unsigned char>(value / 62);
      remainder = value % 62;
    }
    digits.push_back(kBase62[remainder]);
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

bool startsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    const char a = text[i] >= 'A' && text[i] <= 'Z' ? static_cast<char>(text[i] - 'A' + 'a') : text[i];
    if (a != prefix[i]) return false;
  }
  return true;
}

}  // namespace

std::string generateKeyId() {
  std::string id;
  while (id.size() < kKeyIdLength) {
    std::array<unsigned char, 16> bytes{};
    randomBytes(bytes.data(), bytes.size());
    for (const unsigned char byte : bytes) {
      // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && id.size() < kKeyIdLength) id.push_back(kBase62[byte % 62]);
    }
  }
  return id;
}

GeneratedKey generateApiKey() {
  std::array<unsigned char, 32> secret{};
  randomBytes(secret.data(), secret.size());
  GeneratedKey generated;
  generated.id = generateKeyId();
  generated.key = std::string(kKeyPrefix) + generated.id + base62(secret);
  OPENSSL_cleanse(secret.data(), secret.size());
  generated.hash = hashApiKey(generated.key);
  return generated;
}

KeyHash hashApiKey(std::string_view key) {
  // Every authenticated request hashes its key. OpenSSL 3's one-shot SHA256() looks the algorithm
  // up again on each call (a lock and a search); the algorithm is fetched once here instead, and
  // each thread keeps its digest context.
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                                      &EVP_MD_CTX_free);
  KeyHash hash{};
  unsigned int length = 0;
  if (!sha256 || !context || EVP_DigestInit_ex(context.get(), sha256, nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), key.data(), key.size()) != 1 ||
      EVP_DigestFinal_ex(context.get(), hash.data(), &length) != 1 || length != hash.size()) {
    SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), hash.data());
  }
  return hash;
}

bool sameHash(const KeyHash& a, const KeyHash& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

std::string visiblePrefix(std::string_view id) { return std::string(kKeyPrefix) + std::string(id); }

std::optional<ParsedKey> parseApiKey(std::string_view presented) {
  if (presented.size() != kKeyLength || !presented.starts_with(kKeyPrefix)) return std::nullopt;
  const std::string_view rest = presented.substr(kKeyPrefix.size());
  if (!std::all_of(rest.begin(), rest.end(), isBase62)) return std::nullopt;
  ParsedKey parsed;
  parsed.id = rest.substr(0, kKeyIdLength);
  parsed.secret = rest.substr(kKeyIdLength);
  return parsed;
}

std::string_view presentedKey(std::string_view authorization, std::string_view x_api_key) {
  authorization = trim(authorization);
  if (!authorization.empty()) {
    if (startsWithIgnoringCase(authorization, "bearer ")) return trim(authorization.substr(7));
    return authorization;
  }
  return trim(x_api_key);
}

std::string toHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 15]);
  }
  return hex;
}

}  // namespace sluice::identity
