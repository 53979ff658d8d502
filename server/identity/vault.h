#pragma once
// Encryption at rest for members' personal provider keys: AES-256-GCM (OpenSSL EVP) under a
// 32-byte master key, a fresh 96-bit random nonce per value, the 16-byte tag appended to the
// ciphertext, and associated data that binds a value to its row (so a ciphertext copied into
// another member's row does not open). Each sealed value records the id of the master key that
// sealed it, so `sluicectl credentials rotate-master` knows what to re-encrypt.
//
// Thread-safe: a Vault is immutable after construction; seal() and open() may run concurrently.

#include <array>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::identity {

inline constexpr std::string_view kMasterKeyVariable = "SLUICE_MASTER_KEY";
inline constexpr std::string_view kMasterKeyFileVariable = "SLUICE_MASTER_KEY_FILE";
inline constexpr std::string_view kOldMasterKeyVariable = "SLUICE_MASTER_KEY_OLD";
inline constexpr std::string_view kOldMasterKeyFileVariable = "SLUICE_MASTER_KEY_OLD_FILE";

class MasterKey {
 public:
  // 32 bytes written as 64 hex digits or as base64 (standard or URL alphabet, padding optional);
  // surrounding whitespace is ignored. The error names `source` and never repeats the text.
  static std::expected<MasterKey, std::string> parse(std::string_view text, std::string_view source);
  static MasterKey fromBytes(const std::array<unsigned char, 32>& bytes);

  MasterKey(const MasterKey&) = default;
  MasterKey& operator=(const MasterKey&) = default;
  ~MasterKey();  // wipes the key bytes

  // First 8 hex digits of SHA-256 of the key: names the key in rows and messages, reveals nothing.
  const std::string& id() const { return id_; }
  const unsigned char* data() const { return bytes_.data(); }

 private:
  MasterKey() = default;
  std::array<unsigned char, 32> bytes_{};
  std::string id_;
};

// The master key from `env`: SLUICE_MASTER_KEY (the key itself) or SLUICE_MASTER_KEY_FILE (a file
// holding it). nullopt when neither is set; an error when both are, when the file cannot be read,
// or when the text is not a 32-byte key. Pass other variable names to read e.g. the old key.
std::expected<std::optional<MasterKey>, std::string> masterKeyFromEnvironment(
    const std::map<std::string, std::string>& env, std::string_view key_variable = kMasterKeyVariable,
    std::string_view file_variable = kMasterKeyFileVariable);
// The key in the file at `path` (whitespace around it ignored).
std::expected<MasterKey, std::string> readMasterKeyFile(const std::string& path);

struct Sealed {
  std::string ciphertext;  // the encrypted bytes followed by the 16-byte GCM tag
  std::string nonce;       // 12 bytes
  std::string key_id;      // MasterKey::id() of the key that sealed it
};

class Vault {
 public:
  // Seals with `current`; opens values sealed by `current` or any of `older`.
  explicit Vault(MasterKey current, std::vector<MasterKey> older = {});

  const std::string& keyId() const { return current_.id(); }
  bool canOpen(std::string_view key_id) const { return keyFor(key_id) != nullptr; }

  // Throws std::runtime_error when OpenSSL fails (never for any input).
  Sealed seal(std::string_view plaintext, std::string_view associated_data) const;
  // The plaintext; an error when the value was sealed by a key this vault does not hold, or when
  // it does not authenticate (tampered ciphertext, nonce or tag, wrong key, other associated data).
  // The error never contains plaintext or key material.
  std::expected<std::string, std::string> open(const Sealed& sealed, std::string_view associated_data) const;

 private:
  const MasterKey* keyFor(std::string_view key_id) const;

  MasterKey current_;
  std::vector<MasterKey> older_;
};

// The gateway's vault from `env`: SLUICE_MASTER_KEY (or _FILE) seals and opens; the old key in
// SLUICE_MASTER_KEY_OLD (or _OLD_FILE), when set, also opens, so replicas keep serving personal
// credentials while `sluicectl credentials rotate-master` runs. nullopt when no master key is
// configured (personal credentials are then unavailable); an error for a malformed key, or an old
// key without a current one.
std::expected<std::optional<Vault>, std::string> vaultFromEnvironment(const std::map<std::string, std::string>& env);

// A vault for values this gateway hands out and reads back (MCP session ids, the console's
// sign-in cookie): keyed by SLUICE_MASTER_KEY (or _FILE) read from the process environment, so
// every replica of a fleet opens what another sealed; without one (or with an unusable one, which
// is logged through `warn`), a random key of this process. Throws std::runtime_error when OpenSSL
// cannot draw random bytes.
Vault processVault(const std::function<void(const std::string& why)>& warn);

}  // namespace sluice::identity
