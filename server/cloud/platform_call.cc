#include "server/cloud/platform_call.h"

#include <strings.h>

#include <algorithm>
#include <cctype>

#include "server/cloud/google_jwt.h"
#include "server/wire/json_parse.h"

namespace sluice::cloud {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

bool named(const std::string& field, std::string_view name) {
  return field.size() == name.size() && strncasecmp(field.data(), name.data(), name.size()) == 0;
}

std::string take(Headers& headers, std::string_view name) {
  std::string value;
  for (const auto& [key, field] : headers) {
    if (named(key, name)) value = value.empty() ? field : value + "," + field;
  }
  std::erase_if(headers, [&](const auto& field) { return named(field.first, name); });
  return value;
}

// The anthropic-beta header's comma-separated values, merged into the body's own.
void mergeBetas(wire::Json& body, std::string_view header) {
  wire::Json betas = body.contains("anthropic_beta") && body["anthropic_beta"].is_array() ? body["anthropic_beta"]
                                                                                           : wire::Json::array();
  size_t start = 0;
  while (start <= header.size()) {
    const size_t comma = std::min(header.find(',', start), header.size());
    std::string_view value = header.substr(start, comma - start);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    if (!value.empty() && std::ranges::find(betas, wire::Json(std::string(value))) == betas.end()) {
      betas.push_back(std::string(value));
    }
    start = comma + 1;
  }
  if (!betas.empty()) body["anthropic_beta"] = std::move(betas);
}

}  // namespace

std::string pathSegment(std::string_view text) { return percentEncode(text, "@"); }

namespace {

std::string publishersUrl(std::string_view base_url, const catalog::Provider& provider) {
  return std::string(base_url) + "/v1/projects/" + pathSegment(provider.project) + "/locations/" +
         pathSegment(provider.region) + "/publishers/";
}

// Claude's Messages body as Vertex takes it: anthropic_version in it (the client's kept), the
// beta header's values as anthropic_beta, neither header sent; `model` dropped unless kept.
bool toVertexAnthropicBody(upstream::Request& call, bool keep_model) {
  wire::Json body = wire::parseBounded(call.body);
  if (!body.is_object()) return false;
  if (!keep_model) body.erase("model");
  if (!body.contains("anthropic_version")) body["anthropic_version"] = kVertexAnthropicVersion;
  take(call.headers, "anthropic-version");
  mergeBetas(body, take(call.headers, "anthropic-beta"));
  call.body = wire::dumpJsonText(body);
  return true;
}

}  // namespace

bool toVertexCountTokensCall(upstream::Request& call, std::string_view base_url, const catalog::Provider& provider,
                             const Header& auth) {
  if (!toVertexAnthropicBody(call, /*keep_model=*/true)) return false;
  call.url = publishersUrl(base_url, provider) + "anthropic/models/count-tokens:rawPredict";
  authorizeCall(call, auth);
  return true;
}

bool toVertexCall(upstream::Request& call, std::string_view base_url, const catalog::Provider& provider,
                  catalog::Wire wire, std::string_view model, bool stream) {
  const std::string url = publishersUrl(base_url, provider);
  if (wire == catalog::Wire::Anthropic) {
    if (!toVertexAnthropicBody(call, /*keep_model=*/false)) return false;
    call.url = url + "anthropic/models/" + pathSegment(model) + (stream ? ":streamRawPredict" : ":rawPredict");
    return true;
  }
  call.url = url + "google/models/" + pathSegment(model) +
             (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
  return true;
}

void toAzureCall(upstream::Request& call, std::string_view base_url, const catalog::Endpoint& endpoint,
                 std::string_view model) {
  const std::string base(base_url);
  const std::string version = "?api-version=" + endpoint.api_version;  // checked at load: [0-9a-z-]
  switch (endpoint.wire) {
    case catalog::Wire::Anthropic: call.url = base + "/anthropic/v1/messages"; break;
    case catalog::Wire::OpenAIChat:
      call.url = endpoint.api_version.empty()
                     ? base + "/openai/v1/chat/completions"
                     : base + "/openai/deployments/" + pathSegment(model) + "/chat/completions" + version;
      break;
    case catalog::Wire::OpenAIResponses:
      call.url = endpoint.api_version.empty() ? base + "/openai/v1/responses" : base + "/openai/responses" + version;
      break;
    case catalog::Wire::Gemini:
    case catalog::Wire::Mcp:
    case catalog::Wire::BedrockConverse: break;  // refused at load
  }
}

void toPlatformCall(upstream::Request& call, const catalog::Provider& provider, const catalog::Endpoint& endpoint,
                    std::string_view base_url, std::string_view model, bool stream, const Header& auth) {
  if (provider.platform == catalog::Platform::Vertex) {
    toVertexCall(call, base_url, provider, endpoint.wire, model, stream);
  } else if (provider.platform == catalog::Platform::Azure) {
    toAzureCall(call, base_url, endpoint, model);
  }
  authorizeCall(call, auth);
}

void authorizeCall(upstream::Request& call, const Header& auth) {
  for (const char* name : {"x-api-key", "authorization", "api-key", "x-goog-api-key"}) take(call.headers, name);
  call.headers.push_back(auth);
}

}  // namespace sluice::cloud
