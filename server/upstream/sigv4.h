#pragma once
// AWS Signature Version 4 (header signing), as Bedrock wants it: the canonical request, the
// string to sign, the signing key (cached per day, region and service) and the Authorization
// header. Pure apart from the key cache; the time is given by the caller.
//
// The path is given as it goes on the wire (each segment already URI-encoded once); the
// canonical URI encodes every segment again, as every AWS service but S3 expects — a Bedrock
// model id `…-v1:0` is sent as `…-v1%3A0` and signed as `…-v1%253A0`.

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::upstream::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // "" for long-term keys
};

struct SigningInput {
  std::string_view method;                                 // "POST"
  std::string_view host;                                   // "bedrock-runtime.us-east-1.amazonaws.com"
  std::string_view path;                                   // as sent: "/model/a%3A0/invoke"
  std::string_view query;                                  // as sent, without '?'; "" for none
  std::vector<std::pair<std::string, std::string>> headers;  // signed too (besides host, x-amz-*)
  std::string_view payload;
  std::string_view region;
  std::string_view service = "bedrock";
  std::chrono::system_clock::time_point now;
  bool sign_content_sha256 = false;  // add and sign x-amz-content-sha256 (S3-style)
};

struct Signature {
  std::vector<std::pair<std::string, std::string>> headers;  // to add: x-amz-date, [x-amz-security-token], [x-amz-content-sha256], authorization
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;x-amz-date"
  std::string signature;       // hex
};

// RFC 3986 percent-encoding of everything but the unreserved characters (A-Z a-z 0-9 - . _ ~);
// '/' is kept when `keep_slash`.
std::string uriEncode(std::string_view text, bool keep_slash = false);
std::string sha256Hex(std::string_view bytes);
std::string hmacSha256(std::string_view key, std::string_view data);
// "20150830T123600Z"
std::string amzDate(std::chrono::system_clock::time_point now);

// The pieces, exposed for the tests and the mock provider's verifier.
std::string canonicalUri(std::string_view path);
std::string canonicalQuery(std::string_view query);
std::string deriveSigningKey(std::string_view secret, std::string_view day, std::string_view region,
                             std::string_view service);

// Caches the derived key per (access key id, secret, day, region, service); shared by every
// fiber, bounded (the oldest entries go when it is full).
class SigningKeyCache {
 public:
  std::string key(const Credentials& credentials, std::string_view day, std::string_view region,
                  std::string_view service);
  size_t derivations() const;  // how many keys were derived (the tests watch the cache work)

 private:
  struct Entry {
    std::string access_key_id, secret_hash, day, region, service, key;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  size_t derivations_ = 0;
};

Signature sign(const SigningInput& input, const Credentials& credentials, SigningKeyCache& cache);

}  // namespace sluice::upstream::aws
