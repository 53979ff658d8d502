#include "tools/mock-provider/bedrock_auth.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>

#include "server/upstream/sigv4.h"

namespace sluice::mock {
namespace {

namespace aws = upstream::aws;

constexpr std::chrono::minutes kMaxSkew{5};

ErrorSpec refuse(std::string type, std::string message) {
  ErrorSpec error;
  error.status = 403;
  error.type = std::move(type);
  error.message = std::move(message);
  return error;
}

std::string hex(std::string_view bytes) {
  std::string out;
  char pair[3];
  for (unsigned char c : bytes) {
    std::snprintf(pair, sizeof pair, "%02x", c);
    out += pair;
  }
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

// A header value as SigV4 canonicalises it: trimmed, inner runs of spaces made one.
std::string canonicalValue(std::string_view value) {
  std::string out;
  bool space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// The path as received, each segment URI-encoded once more (every AWS service but S3).
std::string canonicalPath(std::string_view path) {
  std::string out;
  size_t at = 1;
  while (at <= path.size()) {
    const size_t end = std::min(path.find('/', at), path.size());
    out += "/" + aws::uriEncode(path.substr(at, end - at));
    at = end + 1;
  }
  return out.empty() ? "/" : out;
}

std::string field(std::string_view header, std::string_view name) {
  const size_t at = header.find(name);
  if (at == std::string_view::npos) return "";
  const size_t start = at + name.size();
  return std::string(header.substr(start, std::min(header.find(',', start), header.size()) - start));
}

std::optional<std::chrono::system_clock::time_point> parseAmzDate(const std::string& text) {
  std::tm tm{};
  if (text.size() != 16 || strptime(text.c_str(), "%Y%m%dT%H%M%SZ", &tm) == nullptr) return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace

std::optional<ErrorSpec> checkBedrockAuth(const ReceivedRequest& request, const AwsKeyring& keys,
                                          const std::optional<std::string>& api_key,
                                          std::chrono::system_clock::time_point now) {
  const std::string authorization = findHeader(request.headers, "authorization").value_or("");
  if (authorization.starts_with("Bearer ")) {
    const std::string key = authorization.substr(7);
    if (key.empty() || (api_key && key != *api_key)) return refuse("AccessDeniedException", "Invalid API Key format: Must start with pre-defined prefix");
    return std::nullopt;
  }
  return checkAwsSignature(request, keys, "bedrock", now);
}

std::optional<ErrorSpec> checkAwsSignature(const ReceivedRequest& request, const AwsKeyring& keys,
                                           const std::string& service, std::chrono::system_clock::time_point now) {
  const std::string authorization = findHeader(request.headers, "authorization").value_or("");
  if (authorization.empty()) return refuse("MissingAuthenticationTokenException", "Missing Authentication Token");
  const std::string credential = field(authorization, "Credential=");
  const std::string signed_headers = field(authorization, "SignedHeaders=");
  const std::string signature = field(authorization, "Signature=");
  if (!authorization.starts_with("AWS4-HMAC-SHA256 ") || credential.empty() || signed_headers.empty() ||
      signature.empty()) {
    return refuse("IncompleteSignatureException",
                  "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters.");
  }
  // Credential=AKID/20260101/us-east-1/bedrock/aws4_request
  std::vector<std::string> scope;
  for (size_t at = 0; at <= credential.size();) {
    const size_t slash = std::min(credential.find('/', at), credential.size());
    scope.push_back(credential.substr(at, slash - at));
    at = slash + 1;
  }
  if (scope.size() != 5 || scope[3] != service || scope[4] != "aws4_request") {
    return refuse("IncompleteSignatureException", "Credential should be scoped to a valid region and to service '" + service + "'.");
  }
  const std::string date = findHeader(request.headers, "x-amz-date").value_or("");
  const auto when = parseAmzDate(date);
  if (!when || date.substr(0, 8) != scope[1]) {
    return refuse("IncompleteSignatureException", "Date must be in ISO-8601 'basic format' and match the credential scope.");
  }
  if (*when > now + kMaxSkew || *when < now - kMaxSkew) {
    return refuse("InvalidSignatureException", "Signature expired: " + date + " is now earlier or later than the "
                                               "allowed 5 minutes around the server's time.");
  }
  std::string secret;
  const std::string token = findHeader(request.headers, "x-amz-security-token").value_or("");
  switch (keys.find(scope[0], token, now, secret)) {
    case AwsKeyring::Found::Key: break;
    case AwsKeyring::Found::Expired:
      return refuse("ExpiredTokenException", "The security token included in the request is expired");
    case AwsKeyring::Found::Unknown:
    case AwsKeyring::Found::WrongToken:
      return refuse("UnrecognizedClientException", "The security token included in the request is invalid.");
  }
  // The canonical request, from what was received.
  std::map<std::string, std::string> values;
  for (const auto& [name, value] : request.headers) {
    std::string& slot = values[lower(name)];
    slot += (slot.empty() ? "" : ",") + canonicalValue(value);
  }
  std::string headers_block;
  bool host = false, amz_date = false;
  for (size_t at = 0; at <= signed_headers.size();) {
    const size_t semi = std::min(signed_headers.find(';', at), signed_headers.size());
    const std::string name = signed_headers.substr(at, semi - at);
    host = host || name == "host";
    amz_date = amz_date || name == "x-amz-date";
    headers_block += name + ":" + values[name] + "\n";
    at = semi + 1;
  }
  if (!host || !amz_date) return refuse("IncompleteSignatureException", "'Host' and 'X-Amz-Date' must be signed.");
  const std::string payload_hash = aws::sha256Hex(request.body);
  if (auto declared = findHeader(request.headers, "x-amz-content-sha256"); declared && *declared != payload_hash) {
    return refuse("InvalidSignatureException", "The provided 'x-amz-content-sha256' header does not match what was computed.");
  }
  const std::string canonical = request.method + "\n" + canonicalPath(request.path) + "\n" +
                                aws::canonicalQuery(request.query) + "\n" + headers_block + "\n" + signed_headers +
                                "\n" + payload_hash;
  const std::string string_to_sign = "AWS4-HMAC-SHA256\n" + date + "\n" + scope[1] + "/" + scope[2] + "/" + scope[3] +
                                     "/aws4_request\n" + aws::sha256Hex(canonical);
  const std::string key = aws::deriveSigningKey(secret, scope[1], scope[2], scope[3]);
  if (hex(aws::hmacSha256(key, string_to_sign)) != signature) {
    return refuse("InvalidSignatureException",
                  "The request signature we calculated does not match the signature you provided. Check your AWS "
                  "Secret Access Key and signing method. Consult the service documentation for details.");
  }
  return std::nullopt;
}

}  // namespace sluice::mock
