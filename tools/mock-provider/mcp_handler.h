#pragma once
// A small MCP server (Streamable HTTP, JSON answers) at /mcp, for the demo and the shipped
// catalog's example server: initialize (a session id), ping, tools/list and tools/call of three
// tools (echo, add, delete_repository), notifications taken (202), DELETE ends nothing, GET 405.
// It needs an Authorization header (any token) and, after initialize, a session id it issued.
// The tests judge the gateway with the official MCP SDK instead (tests/e2e/mcp.test.mjs).

#include <Poco/Net/HTTPRequestHandler.h>

#include "tools/mock-provider/server_context.h"

namespace sluice::mock {

// True for the paths this handler answers: /mcp and anything under /mcp/.
bool isMcpPath(std::string_view path);

class McpHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit McpHandler(ServerContext& context) : context_(context) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  ServerContext& context_;
};

}  // namespace sluice::mock
