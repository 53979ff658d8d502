#include "tools/mock-provider/mcp_handler.h"

#include <atomic>
#include <string>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include "tools/mock-provider/provider_handler.h"
#include "tools/mock-provider/received_request.h"

namespace sluice::mock {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kSessionPrefix = "mock-mcp-session-";

void send(Poco::Net::HTTPServerResponse& response, int status, const std::string& body,
          const std::string& session = {}) {
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  if (!session.empty()) response.set("Mcp-Session-Id", session);
  if (body.empty()) {
    response.setContentLength(0);
    response.send();
    return;
  }
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

Json error(const Json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Json tool(const std::string& name, const std::string& description, Json properties) {
  Json required = Json::array();
  for (const auto& [key, value] : properties.items()) required.push_back(key);
  return {{"name", name},
          {"description", description},
          {"inputSchema", {{"type", "object"}, {"properties", std::move(properties)}, {"required", required}}}};
}

Json text(const std::string& value) { return {{"content", {{{"type", "text"}, {"text", value}}}}}; }

// The answer to one request (nullopt: a notification or a response, taken with 202).
Json answer(const Json& message) {
  const Json id = message.value("id", Json());
  const std::string method = message.value("method", "");
  const Json params = message.value("params", Json::object());
  if (method == "initialize") {
    const std::string version =
        params.is_object() && params.contains("protocolVersion") && params["protocolVersion"].is_string()
            ? params["protocolVersion"].get<std::string>()
            : "2025-06-18";
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"result",
             {{"protocolVersion", version},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", "sluice-mock-mcp"}, {"version", "1.0.0"}}}}}};
  }
  if (method == "ping") return {{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}};
  if (method == "tools/list") {
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"result",
             {{"tools",
               {tool("echo", "Returns the text it was given", {{"text", {{"type", "string"}}}}),
                tool("add", "Adds two numbers", {{"a", {{"type", "number"}}}, {"b", {{"type", "number"}}}}),
                tool("delete_repository", "Deletes a repository (destructive)", {{"name", {{"type", "string"}}}})}}}}};
  }
  if (method == "tools/call") {
    const std::string name = params.is_object() ? params.value("name", "") : "";
    const Json arguments = params.is_object() ? params.value("arguments", Json::object()) : Json::object();
    if (name == "echo" && arguments.contains("text") && arguments["text"].is_string()) {
      return {{"jsonrpc", "2.0"}, {"id", id}, {"result", text("echo: " + arguments["text"].get<std::string>())}};
    }
    if (name == "add" && arguments.contains("a") && arguments["a"].is_number() && arguments.contains("b") &&
        arguments["b"].is_number()) {
      const double sum = arguments["a"].get<double>() + arguments["b"].get<double>();
      Json number = sum;
      if (sum == static_cast<double>(static_cast<long long>(sum))) number = static_cast<long long>(sum);
      return {{"jsonrpc", "2.0"}, {"id", id}, {"result", text(number.dump())}};
    }
    if (name == "delete_repository" && arguments.contains("name") && arguments["name"].is_string()) {
      return {{"jsonrpc", "2.0"}, {"id", id}, {"result", text("deleted " + arguments["name"].get<std::string>())}};
    }
    return error(id, -32602, "unknown tool or bad arguments: " + name);
  }
  return error(id, -32601, "method not found: " + method);
}

}  // namespace

bool isMcpPath(std::string_view path) { return path == "/mcp" || path == "/mcp/" || path.starts_with("/mcp/"); }

void McpHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  const ReceivedRequest received = readRequest(request);
  context_.stats().recordRequest(received, context_.nextSeq(), "mcp");
  if (!findHeader(received.headers, "Authorization")) {
    response.set("WWW-Authenticate", "Bearer");
    send(response, 401, error(nullptr, -32001, "an Authorization header is required").dump());
    return;
  }
  if (received.method == "GET") return send(response, 405, "");
  const auto session = findHeader(received.headers, "Mcp-Session-Id");
  if (received.method == "DELETE") return send(response, 200, "");
  if (received.method != "POST") return send(response, 405, "");
  const Json message = Json::parse(received.body, nullptr, false);
  if (!message.is_object()) return send(response, 400, error(nullptr, -32700, "not one JSON-RPC message").dump());
  const std::string method = message.value("method", "");
  if (method == "initialize") {
    static std::atomic<unsigned long> sessions{0};
    const std::string issued = std::string(kSessionPrefix) + std::to_string(++sessions);
    return send(response, 200, answer(message).dump(), issued);
  }
  if (!session || !session->starts_with(kSessionPrefix)) {
    return send(response, session ? 404 : 400, error(nullptr, -32000, "no session: initialize first").dump());
  }
  if (!message.contains("id") || message.contains("result") || message.contains("error")) {
    return send(response, 202, "");  // a notification, or the client's answer
  }
  send(response, 200, answer(message).dump());
}

}  // namespace sluice::mock
