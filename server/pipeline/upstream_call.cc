#include "server/pipeline/upstream_call.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <Poco/String.h>

#include "server/cloud/bedrock_call.h"
#include "server/dispatch/target_check.h"
#include "server/http/request.h"
#include "server/wire/endpoint.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

namespace {

bool hasHeader(const std::vector<std::pair<std::string, std::string>>& headers, const std::string& name) {
  for (const auto& [key, value] : headers) {
    if (Poco::icompare(key, name) == 0) return true;
  }
  return false;
}

}  // namespace

upstream::Request buildUpstreamCall(const dispatch::Attempt& attempt, const Request* client, catalog::Wire client_wire,
                                    std::string body, bool stream, const std::string& path,
                                    const std::string* personal_key, const std::string& base_url,
                                    const std::string& content_type, const std::string& accept,
                                    const upstream::aws::Credentials* aws_keys) {
  const catalog::Wire wire = attempt.endpoint->wire;
  upstream::Request call;
  call.url = (base_url.empty() ? attempt.endpoint->url : base_url) +
             (path.empty() ? wire::upstreamPath(wire, attempt.deployment->upstream_model, stream) : path);
  call.body = std::move(body);
  call.timeouts = attempt.provider->timeouts;
  call.headers.emplace_back("Content-Type", content_type.empty() ? "application/json" : content_type);
  call.headers.emplace_back("Accept", !accept.empty() ? accept : stream ? "text/event-stream" : "application/json");
  for (const auto& [name, value] : attempt.provider->headers) call.headers.emplace_back(name, value);
  if (client && wire == client_wire) {
    for (const std::string_view header : wire::protocolHeaders(client_wire)) {
      const std::string name(header);
      if (client->has(name) && !hasHeader(call.headers, name)) call.headers.emplace_back(name, client->header(name));
    }
  }
  for (const auto& name : client ? attempt.provider->forward_headers : std::vector<std::string>{}) {
    if (client->has(name) && !hasHeader(call.headers, name)) call.headers.emplace_back(name, client->header(name));
  }
  for (const auto& [name, value] : wire::defaultHeaders(wire)) {
    if (!hasHeader(call.headers, std::string(name))) call.headers.emplace_back(name, value);
  }
  if (!attempt.provider->user_agent.empty()) call.headers.emplace_back("User-Agent", attempt.provider->user_agent);
  // An MCP server may name the header its token goes in (sent as is); every other wire its own.
  const auto credential = [&](const std::string& secret) -> std::pair<std::string, std::string> {
    if (wire == catalog::Wire::Mcp && !attempt.endpoint->auth_header.empty()) {
      return {attempt.endpoint->auth_header, secret};
    }
    return wire::credentialHeader(wire, secret);
  };
  if (!dispatch::sendsCredential(*attempt.endpoint, base_url)) {
    // An own machine at the address its presence hub reported: no credential it did not declare.
  } else if (personal_key) {
    call.headers.push_back(credential(*personal_key));
  } else if (attempt.credential && attempt.credential->kind == catalog::CredentialKind::Platform &&
             attempt.credential->secret) {
    call.headers.push_back(credential(*attempt.credential->secret));
  }
  bool bedrock_ready = false;
  if (attempt.provider->platform == catalog::Platform::Bedrock && path.empty()) {
    if (wire == catalog::Wire::BedrockConverse) {
      cloud::toBedrockConverse(call, stream);  // the URL and body are Converse's already
      bedrock_ready = true;
    } else {
      bedrock_ready = cloud::toBedrockInvoke(call, base_url.empty() ? attempt.endpoint->url : base_url,
                                             attempt.deployment->upstream_model, stream);
    }
  }
  if (bedrock_ready) {
    if (aws_keys) {
      cloud::signBedrockCall(call, *aws_keys, attempt.provider->region, std::chrono::system_clock::now());
    } else if (personal_key) {
      cloud::bearerBedrockCall(call, *personal_key);
    } else if (attempt.credential && attempt.credential->secret) {
      cloud::bearerBedrockCall(call, *attempt.credential->secret);  // a Bedrock API key
    }
  }
  return call;
}

}  // namespace sluice::pipeline
