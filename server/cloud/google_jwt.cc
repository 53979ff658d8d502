#include "server/cloud/google_jwt.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cctype>
#include <memory>

#include "server/wire/json_parse.h"

namespace sluice::cloud {
namespace {

constexpr size_t kMaxKeyFileBytes = 64u << 10;

std::string field(const wire::Json& object, const char* name) {
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

namespace {

std::expected<std::string, std::string> tokenUriOf(const wire::Json& parsed) {
  std::string uri = field(parsed, "token_uri");
  if (uri.empty()) uri = kGoogleTokenUri;
  if (!uri.starts_with("https://") && !uri.starts_with("http://")) {
    return std::unexpected("the credentials file's token_uri is not an http(s) URL");
  }
  return uri;
}

std::expected<AuthorizedUser, std::string> authorizedUserOf(const wire::Json& parsed) {
  AuthorizedUser user{field(parsed, "client_id"), field(parsed, "client_secret"), field(parsed, "refresh_token"), ""};
  if (user.client_id.empty() || user.client_secret.empty() || user.refresh_token.empty()) {
    return std::unexpected("the authorized_user file lacks client_id, client_secret or refresh_token");
  }
  auto uri = tokenUriOf(parsed);
  if (!uri) return std::unexpected(uri.error());
  user.token_uri = std::move(*uri);
  return user;
}

}  // namespace

std::expected<GoogleCredentialsFile, std::string> parseGoogleCredentialsFile(std::string_view json) {
  if (json.size() > kMaxKeyFileBytes) return std::unexpected("the credentials file is larger than 64 KiB");
  const wire::Json parsed = wire::parseBounded(json);
  if (!parsed.is_object()) return std::unexpected("the credentials file is not a JSON object");
  GoogleCredentialsFile file;
  const std::string type = field(parsed, "type");
  if (type == "authorized_user") {
    auto user = authorizedUserOf(parsed);
    if (!user) return std::unexpected(user.error());
    file.authorized_user = std::move(*user);
    return file;
  }
  auto account = parseServiceAccount(json);
  if (!account) return std::unexpected(account.error());
  file.service_account = std::move(*account);
  return file;
}

std::string refreshTokenGrantForm(const AuthorizedUser& user) {
  return "grant_type=refresh_token&client_id=" + formEncode(user.client_id) + "&client_secret=" +
         formEncode(user.client_secret) + "&refresh_token=" + formEncode(user.refresh_token);
}

std::expected<ServiceAccount, std::string> parseServiceAccount(std::string_view json) {
  if (json.size() > kMaxKeyFileBytes) return std::unexpected("the service-account key file is larger than 64 KiB");
  const wire::Json parsed = wire::parseBounded(json);
  if (!parsed.is_object()) return std::unexpected("the service-account key file is not a JSON object");
  if (field(parsed, "type") != "service_account") {
    return std::unexpected("the key file's type is not service_account or authorized_user (external_account "
                           "files, workload identity federation, are not supported)");
  }
  ServiceAccount account{field(parsed, "client_email"), field(parsed, "private_key"), field(parsed, "private_key_id"),
                         field(parsed, "token_uri")};
  if (account.client_email.empty() || account.private_key.empty()) {
    return std::unexpected("the service-account key file lacks client_email or private_key");
  }
  if (account.token_uri.empty()) account.token_uri = kGoogleTokenUri;
  if (!account.token_uri.starts_with("https://") && !account.token_uri.starts_with("http://")) {
    return std::unexpected("the service-account key file's token_uri is not an http(s) URL");
  }
  return account;
}

std::string base64Url(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  uint32_t bits = 0;
  int count = 0;
  for (const unsigned char c : bytes) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += kAlphabet[(bits >> count) & 0x3F];
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 0x3F];
  return out;
}

std::string percentEncode(std::string_view text, std::string_view also_keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        also_keep.find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::expected<std::string, std::string> serviceAccountAssertion(const ServiceAccount& account,
                                                                std::chrono::system_clock::time_point now) {
  const int64_t iat = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  wire::Json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!account.private_key_id.empty()) header["kid"] = account.private_key_id;
  const wire::Json claims = {{"iss", account.client_email}, {"scope", kCloudPlatformScope},
                             {"aud", account.token_uri},    {"iat", iat},
                             {"exp", iat + 3600}};
  const std::string signing_input =
      base64Url(wire::dumpJsonText(header)) + "." + base64Url(wire::dumpJsonText(claims));

  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(account.private_key.data(), static_cast<int>(account.private_key.size())), BIO_free);
  if (!bio) return std::unexpected("out of memory reading the service account's key");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  if (!key || EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) {
    return std::unexpected("the service account's private_key is not a PEM RSA key");
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t length = 0;
  if (!context || EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(context.get(), nullptr, &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1) {
    return std::unexpected("the service account's key could not sign");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1) {
    return std::unexpected("the service account's key could not sign");
  }
  signature.resize(length);
  return signing_input + "." + base64Url(signature);
}

std::string jwtGrantForm(std::string_view assertion) {
  return "grant_type=" + formEncode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" +
         formEncode(assertion);
}

}  // namespace sluice::cloud
