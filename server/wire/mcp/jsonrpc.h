#pragma once
// The Model Context Protocol's messages as the gateway reads them: JSON-RPC 2.0 over MCP's
// Streamable HTTP transport (docs/mcp.md). What a message is (request, notification, response),
// the method, and for the calls the gateway audits the tool, resource or prompt it names; the
// rewrites the gateway makes (tools a member may not call removed from a listing, strings
// restored); and its own errors as JSON-RPC error objects. Pure: values in, values out.

#include <cstddef>
#include <expected>
#include <functional>
#include <string>
#include <string_view>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::mcp {

// The longest tool or prompt name, and resource URI, read from a message; the longest session id
// taken from a server (MCP: visible ASCII).
inline constexpr size_t kMaxNameBytes = 256;
inline constexpr size_t kMaxUriBytes = 2048;
inline constexpr size_t kMaxSessionIdBytes = 512;

enum class Kind { Request, Notification, Response };

struct Message {
  Kind kind = Kind::Request;
  Json id;             // a request's or response's id (string or number); null for a notification
  std::string method;  // "" for a response
  // tools/call: params.name; prompts/get: params.name; resources/read: params.uri. "" otherwise.
  std::string target;

  // The calls that leave an audit row: tools/call, resources/read, prompts/get.
  bool audited() const;
  bool isToolCall() const { return method == "tools/call"; }
};

// Reads one parsed JSON-RPC message. Refused (400): not an object (a batch: MCP since 2025-06-18
// sends one message per POST), no "jsonrpc": "2.0", an id that is not a string or number, a method
// that is not a string, a call without its name or URI (key invalid_params), a name or URI over
// its bound.
std::expected<Message, ApiError> readMessage(const Json& document);

// The JSON-RPC error answering `id` with `error` (the code from jsonRpcCodeFor; status, error key
// and request id in `data`).
Json errorMessage(const Json& id, const ApiError& error, std::string_view request_id);

// In a tools/list result (`result.tools`), removes each tool whose name `allowed` refuses; returns
// how many were removed. A result of another shape is left alone.
size_t keepTools(Json& result, const std::function<bool(std::string_view)>& allowed);

// Calls `rewrite` on every string value of `value`, at any depth (keys untouched), up to
// kMaxJsonDepth levels.
void rewriteStrings(Json& value, const std::function<void(std::string&)>& rewrite);

// An MCP server's SSE stream, for the events the gateway rewrites: the end of the first whole event
// in `buffer` (where its blank line starts: "\n\n" or "\r\n\r\n") and that blank line's length
// in `separator`; npos while no whole event is there. `from`: where to start looking (what an
// earlier call already searched, less 3 bytes): a stream read in pieces is then scanned once,
// whatever the size of its events.
size_t eventEnd(std::string_view buffer, size_t& separator, size_t from = 0);

// `block` (one event without its blank line) with its data lines' JSON-RPC message passed to
// `rewrite`, written back as one `data:` line where the first stood; every other field (id:,
// event:, retry:, comments) kept in order; line ends ("\r\n", "\n", a lone "\r") become "\n"
// and empty lines go. Data
// that is not JSON is kept as it came. Ends with the blank line; "" for an event with no line.
std::string rewriteEvent(std::string_view block, const std::function<void(Json&)>& rewrite);

// True when `id` is a session id MCP allows: 1..kMaxSessionIdBytes visible ASCII (0x21-0x7E).
bool validSessionId(std::string_view id);

}  // namespace sluice::wire::mcp
