#include "server/identity/vault.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "server/identity/api_keys.h"
#include "server/text/hex.h"

namespace sluice::identity {

namespace {

constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext newContext() {
  CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!context) throw std::runtime_error("OpenSSL could not allocate a cipher context");
  return context;
}

const unsigned char* bytes(std::string_view text) { return reinterpret_cast<const unsigned char*>(text.data()); }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

std::optional<std::string> decodeHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 2) {
    const int high = text::hexValue(text[i]);
    const int low = text::hexValue(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

std::optional<std::string> decodeBase64(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (const char c : text) {
    const int value = base64Value(c);
    if (value < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  if (bits >= 6) return std::nullopt;  // a dangling character
  return out;
}

}  // namespace

std::expected<MasterKey, std::string> MasterKey::parse(std::string_view text, std::string_view source) {
  text = trimmed(text);
  std::optional<std::string> decoded;
  if (text.size() == 64) decoded = decodeHex(text);
  if (!decoded) decoded = decodeBase64(text);
  if (!decoded || decoded->size() != 32) {
    if (decoded) OPENSSL_cleanse(decoded->data(), decoded->size());
    return std::unexpected(std::string(source) +
                           " is not a 32-byte key: write it as 64 hex digits or as base64 (e.g. `openssl rand -hex 32`)");
  }
  std::array<unsigned char, 32> raw{};
  std::copy(decoded->begin(), decoded->end(), raw.begin());
  OPENSSL_cleanse(decoded->data(), decoded->size());
  MasterKey key = fromBytes(raw);
  OPENSSL_cleanse(raw.data(), raw.size());
  return key;
}

MasterKey MasterKey::fromBytes(const std::array<unsigned char, 32>& raw) {
  MasterKey key;
  key.bytes_ = raw;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(raw.data(), raw.size(), digest);
  key.id_ = toHex(std::string_view(reinterpret_cast<const char*>(digest), 4));
  return key;
}

MasterKey::~MasterKey() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }

std::expected<MasterKey, std::string> readMasterKeyFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::unexpected("cannot read the master key file " + path);
  std::ostringstream text;
  text << file.rdbuf();
  std::string content = text.str();
  auto key = MasterKey::parse(content, "the master key file " + path);
  OPENSSL_cleanse(content.data(), content.size());
  return key;
}

std::expected<std::optional<MasterKey>, std::string> masterKeyFromEnvironment(
    const std::map<std::string, std::string>& env, std::string_view key_variable, std::string_view file_variable) {
  const auto value = env.find(std::string(key_variable));
  const auto file = env.find(std::string(file_variable));
  const bool has_value = value != env.end() && !value->second.empty();
  const bool has_file = file != env.end() && !file->second.empty();
  if (has_value && has_file) {
    return std::unexpected("set " + std::string(key_variable) + " or " + std::string(file_variable) + ", not both");
  }
  if (has_value) {
    auto key = MasterKey::parse(value->second, key_variable);
    if (!key) return std::unexpected(key.error());
    return std::optional<MasterKey>(std::move(*key));
  }
  if (has_file) {
    auto key = readMasterKeyFile(file->second);
    if (!key) return std::unexpected(key.error() + " (" + std::string(file_variable) + ")");
    return std::optional<MasterKey>(std::move(*key));
  }
  return std::optional<MasterKey>();
}

std::expected<std::optional<Vault>, std::string> vaultFromEnvironment(const std::map<std::string, std::string>& env) {
  auto current = masterKeyFromEnvironment(env);
  if (!current) return std::unexpected(current.error());
  auto old = masterKeyFromEnvironment(env, kOldMasterKeyVariable, kOldMasterKeyFileVariable);
  if (!old) return std::unexpected(old.error());
  if (!*current) {
    if (*old) return std::unexpected(std::string(kOldMasterKeyVariable) + " is set but " + std::string(kMasterKeyVariable) + " is not");
    return std::optional<Vault>();
  }
  std::vector<MasterKey> older;
  if (*old) older.push_back(**old);
  return std::optional<Vault>(Vault(**current, std::move(older)));
}

Vault::Vault(MasterKey current, std::vector<MasterKey> older) : current_(std::move(current)), older_(std::move(older)) {}

const MasterKey* Vault::keyFor(std::string_view key_id) const {
  if (key_id == current_.id()) return &current_;
  for (const MasterKey& key : older_) {
    if (key_id == key.id()) return &key;
  }
  return nullptr;
}

Sealed Vault::seal(std::string_view plaintext, std::string_view associated_data) const {
  Sealed sealed;
  sealed.key_id = current_.id();
  sealed.nonce.resize(kNonceBytes);
  if (RAND_bytes(reinterpret_cast<unsigned char*>(sealed.nonce.data()), kNonceBytes) != 1) {
    throw std::runtime_error("the random number generator failed (RAND_bytes)");
  }
  CipherContext context = newContext();
  int length = 0;
  sealed.ciphertext.resize(plaintext.size() + kTagBytes);
  auto* out = reinterpret_cast<unsigned char*>(sealed.ciphertext.data());
  if (EVP_EncryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceBytes, nullptr) != 1 ||
      EVP_EncryptInit_ex(context.get(), nullptr, nullptr, current_.data(), bytes(sealed.nonce)) != 1 ||
      EVP_EncryptUpdate(context.get(), nullptr, &length, bytes(associated_data),
                        static_cast<int>(associated_data.size())) != 1 ||
      EVP_EncryptUpdate(context.get(), out, &length, bytes(plaintext), static_cast<int>(plaintext.size())) != 1) {
    throw std::runtime_error("AES-256-GCM encryption failed");
  }
  int total = length;
  if (EVP_EncryptFinal_ex(context.get(), out + total, &length) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes, out + total + length) != 1) {
    throw std::runtime_error("AES-256-GCM encryption failed");
  }
  total += length;
  sealed.ciphertext.resize(static_cast<size_t>(total) + kTagBytes);
  return sealed;
}

std::expected<std::string, std::string> Vault::open(const Sealed& sealed, std::string_view associated_data) const {
  const MasterKey* key = keyFor(sealed.key_id);
  if (key == nullptr) {
    return std::unexpected("sealed with master key " + sealed.key_id + ", which is not loaded (current key " +
                           current_.id() + ")");
  }
  if (sealed.nonce.size() != kNonceBytes || sealed.ciphertext.size() < kTagBytes) {
    return std::unexpected(std::string("the stored value is truncated"));
  }
  const size_t body = sealed.ciphertext.size() - kTagBytes;
  std::string tag = sealed.ciphertext.substr(body);
  std::string plaintext(body, '\0');
  CipherContext context = newContext();
  int length = 0;
  auto* out = reinterpret_cast<unsigned char*>(plaintext.data());
  bool ok = EVP_DecryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
            EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceBytes, nullptr) == 1 &&
            EVP_DecryptInit_ex(context.get(), nullptr, nullptr, key->data(), bytes(sealed.nonce)) == 1 &&
            EVP_DecryptUpdate(context.get(), nullptr, &length, bytes(associated_data),
                              static_cast<int>(associated_data.size())) == 1 &&
            EVP_DecryptUpdate(context.get(), out, &length, bytes(sealed.ciphertext), static_cast<int>(body)) == 1 &&
            EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes, tag.data()) == 1;
  int total = length;
  ok = ok && EVP_DecryptFinal_ex(context.get(), out + total, &length) == 1;
  if (!ok) {
    OPENSSL_cleanse(plaintext.data(), plaintext.size());
    return std::unexpected(std::string("the stored value does not authenticate under master key ") + key->id() +
                           " (tampered, or sealed for another row)");
  }
  total += length;
  plaintext.resize(static_cast<size_t>(total));
  return plaintext;
}

Vault processVault(const std::function<void(const std::string& why)>& warn) {
  std::map<std::string, std::string> env;
  for (const std::string_view name : {kMasterKeyVariable, kMasterKeyFileVariable}) {
    if (const char* value = std::getenv(std::string(name).c_str())) env.emplace(std::string(name), value);
  }
  auto key = masterKeyFromEnvironment(env);
  if (key && *key) return Vault(std::move(**key));
  if (!key && warn) warn(key.error());
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) throw std::runtime_error("RAND_bytes failed");
  Vault vault(MasterKey::fromBytes(bytes));
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return vault;
}

}  // namespace sluice::identity
