#include "server/upstream/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <stdexcept>

#include "server/text/hex.h"

namespace sluice::upstream::aws {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr size_t kMaxCachedKeys = 32;

std::string hex(const unsigned char* bytes, size_t size) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(digits[bytes[i] >> 4]);
    out.push_back(digits[bytes[i] & 0xf]);
  }
  return out;
}

std::string hexOf(std::string_view bytes) {
  return hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Trimmed, runs of spaces collapsed to one (the canonical header value).
std::string canonicalValue(std::string_view value) {
  std::string out;
  bool space = false;
  for (char c : trim(value)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

}  // namespace

std::string uriEncode(std::string_view text, bool keep_slash) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(digits[c >> 4]);
      out.push_back(digits[c & 0xf]);
    }
  }
  return out;
}

std::string sha256Hex(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return hex(digest, sizeof digest);
}

std::string hmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key.data(), int(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), digest, &length)) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string amzDate(std::chrono::system_clock::time_point now) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[17];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

std::string canonicalUri(std::string_view path) {
  if (path.empty()) return "/";
  // Normalised like every AWS SDK does for non-S3 services: "." and ".." segments resolved.
  std::vector<std::string_view> segments;
  size_t at = path.front() == '/' ? 1 : 0;
  while (at <= path.size()) {
    const size_t end = std::min(path.find('/', at), path.size());
    const std::string_view segment = path.substr(at, end - at);
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (segment != "." && !(segment.empty() && end < path.size())) {
      segments.push_back(segment);
    }
    at = end + 1;
  }
  std::string out;
  for (auto segment : segments) out += "/" + uriEncode(segment);
  return out.empty() ? "/" : out;
}

std::string canonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    pairs.emplace_back(uriEncode(text::percentDecode(item.substr(0, eq), false)),
                       eq == std::string_view::npos ? "" : uriEncode(text::percentDecode(item.substr(eq + 1), false)));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [key, value] : pairs) out += (out.empty() ? "" : "&") + key + "=" + value;
  return out;
}

std::string deriveSigningKey(std::string_view secret, std::string_view day, std::string_view region,
                             std::string_view service) {
  std::string key = hmacSha256("AWS4" + std::string(secret), day);
  key = hmacSha256(key, region);
  key = hmacSha256(key, service);
  return hmacSha256(key, "aws4_request");
}

std::string SigningKeyCache::key(const Credentials& credentials, std::string_view day,
                                 std::string_view region, std::string_view service) {
  const std::string secret_hash = sha256Hex(credentials.secret_access_key);
  std::lock_guard lock(mutex_);
  for (const auto& entry : entries_) {
    if (entry.access_key_id == credentials.access_key_id && entry.secret_hash == secret_hash &&
        entry.day == day && entry.region == region && entry.service == service) {
      return entry.key;
    }
  }
  ++derivations_;
  if (entries_.size() >= kMaxCachedKeys) entries_.erase(entries_.begin());
  entries_.push_back({credentials.access_key_id, secret_hash, std::string(day), std::string(region),
                      std::string(service),
                      deriveSigningKey(credentials.secret_access_key, day, region, service)});
  return entries_.back().key;
}

size_t SigningKeyCache::derivations() const {
  std::lock_guard lock(mutex_);
  return derivations_;
}

Signature sign(const SigningInput& input, const Credentials& credentials, SigningKeyCache& cache) {
  Signature out;
  const std::string date = amzDate(input.now);
  const std::string day = date.substr(0, 8);
  const std::string payload_hash = sha256Hex(input.payload);
  out.headers.emplace_back("x-amz-date", date);
  if (!credentials.session_token.empty()) {
    out.headers.emplace_back("x-amz-security-token", credentials.session_token);
  }
  if (input.sign_content_sha256) out.headers.emplace_back("x-amz-content-sha256", payload_hash);

  std::map<std::string, std::string> canonical;  // sorted by lower-case name
  auto add = [&canonical](std::string_view name, std::string_view value) {
    std::string& slot = canonical[lower(trim(name))];
    slot += (slot.empty() ? "" : ",") + canonicalValue(value);
  };
  add("host", input.host);
  for (const auto& [name, value] : input.headers) {
    const std::string key = lower(trim(name));
    if (key == "host" || key == "authorization" || key == "user-agent" || key == "content-length" ||
        key == "x-amzn-trace-id" || key == "expect") {
      continue;  // set by the transport or never signed by the AWS SDKs
    }
    add(name, value);
  }
  for (const auto& [name, value] : out.headers) add(name, value);

  std::string headers_block;
  for (const auto& [name, value] : canonical) {
    headers_block += name + ":" + value + "\n";
    out.signed_headers += (out.signed_headers.empty() ? "" : ";") + name;
  }
  out.canonical_request = std::string(input.method) + "\n" + canonicalUri(input.path) + "\n" +
                          canonicalQuery(input.query) + "\n" + headers_block + "\n" +
                          out.signed_headers + "\n" + payload_hash;
  const std::string scope =
      day + "/" + std::string(input.region) + "/" + std::string(input.service) + "/aws4_request";
  out.string_to_sign = std::string(kAlgorithm) + "\n" + date + "\n" + scope + "\n" +
                       sha256Hex(out.canonical_request);
  const std::string key = cache.key(credentials, day, input.region, input.service);
  out.signature = hexOf(hmacSha256(key, out.string_to_sign));
  out.headers.emplace_back("authorization", std::string(kAlgorithm) + " Credential=" +
                                                credentials.access_key_id + "/" + scope +
                                                ", SignedHeaders=" + out.signed_headers +
                                                ", Signature=" + out.signature);
  return out;
}

}  // namespace sluice::upstream::aws
