#include "server/http/upstream_call.h"

#include <algorithm>
#include <istream>
#include <vector>

#include <Poco/String.h>

#include "server/wire/endpoint.h"

namespace sluice::http {

namespace {

const std::vector<std::string>& protocolHeaders(catalog::Wire wire) {
  static const std::vector<std::string> anthropic = {"anthropic-beta", "anthropic-version"};
  static const std::vector<std::string> openai = {"openai-beta"};
  static const std::vector<std::string> none;
  switch (wire) {
    case catalog::Wire::Anthropic: return anthropic;
    case catalog::Wire::OpenAIChat:
    case catalog::Wire::OpenAIResponses: return openai;
    case catalog::Wire::Gemini: return none;
  }
  return none;
}

bool hasHeader(const std::vector<std::pair<std::string, std::string>>& headers, const std::string& name) {
  for (const auto& [key, value] : headers) {
    if (Poco::icompare(key, name) == 0) return true;
  }
  return false;
}

}  // namespace

std::expected<std::string, BodyTooLarge> readBody(Poco::Net::HTTPServerRequest& request, size_t limit) {
  if (request.hasContentLength() && request.getContentLength64() > static_cast<Poco::Int64>(limit)) {
    return std::unexpected(BodyTooLarge{});
  }
  // Read straight into the string: a 64 KB buffer on the stack would stay resident in every
  // connection thread that ever read a body.
  std::string body;
  std::istream& in = request.stream();
  if (request.hasContentLength()) {
    body.resize(static_cast<size_t>(request.getContentLength64()));
    in.read(body.data(), static_cast<std::streamsize>(body.size()));
    body.resize(static_cast<size_t>(in.gcount()));
    return body;
  }
  size_t used = 0;
  while (in) {
    if (body.size() - used < 16384) body.resize(std::max<size_t>(2 * body.size(), used + 65536));
    in.read(body.data() + used, static_cast<std::streamsize>(body.size() - used));
    used += static_cast<size_t>(in.gcount());
    if (used > limit) return std::unexpected(BodyTooLarge{});
  }
  body.resize(used);
  return body;
}

upstream::Request buildUpstreamCall(const dispatch::Attempt& attempt, const Poco::Net::HTTPServerRequest& client,
                                    catalog::Wire client_wire, std::string body, bool stream, const std::string& path) {
  const catalog::Wire wire = attempt.endpoint->wire;
  upstream::Request call;
  call.url = attempt.endpoint->url +
             (path.empty() ? wire::upstreamPath(wire, attempt.deployment->upstream_model, stream) : path);
  call.body = std::move(body);
  call.timeouts = attempt.provider->timeouts;
  call.headers.emplace_back("Content-Type", "application/json");
  call.headers.emplace_back("Accept", stream ? "text/event-stream" : "application/json");
  for (const auto& [name, value] : attempt.provider->headers) call.headers.emplace_back(name, value);
  if (wire == client_wire) {
    for (const auto& name : protocolHeaders(client_wire)) {
      if (client.has(name) && !hasHeader(call.headers, name)) call.headers.emplace_back(name, client.get(name));
    }
  }
  for (const auto& name : attempt.provider->forward_headers) {
    if (client.has(name) && !hasHeader(call.headers, name)) call.headers.emplace_back(name, client.get(name));
  }
  if (wire == catalog::Wire::Anthropic && !hasHeader(call.headers, "anthropic-version")) {
    call.headers.emplace_back("anthropic-version", "2023-06-01");
  }
  if (!attempt.provider->user_agent.empty()) call.headers.emplace_back("User-Agent", attempt.provider->user_agent);
  if (attempt.credential->secret) call.headers.push_back(wire::credentialHeader(wire, *attempt.credential->secret));
  return call;
}

}  // namespace sluice::http
