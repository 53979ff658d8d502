// Fuzz target: an MCP server's SSE stream as the gateway rewrites it (wire/mcp/jsonrpc.h), fed in
// pieces: events split at their blank lines, each event's JSON-RPC message rewritten (a listing
// filtered, every string touched) and written back. Every event written must end with its blank
// line, and rewriting what was written must give it back unchanged (a fixed point).
// Input: first byte picks the chunk size (1..256), rest is the stream.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/wire/mcp/jsonrpc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::wire;
  if (size < 1) return 0;
  const size_t chunk = static_cast<size_t>(data[0]) + 1;
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto rewrite = [](Json& message) {
    if (message.is_object() && message.contains("result")) {
      mcp::keepTools(message["result"], [](std::string_view name) { return name.find('x') == std::string_view::npos; });
    }
    mcp::rewriteStrings(message, [](std::string& text) {
      if (text.size() > 3) text.resize(3);
    });
  };
  std::string buffer;
  std::string written;
  size_t scanned = 0;  // as the MCP endpoint searches: what was searched is not searched again
  for (size_t at = 0; at < stream.size(); at += chunk) {
    buffer.append(stream.substr(at, std::min(chunk, stream.size() - at)));
    size_t separator = 0;
    for (size_t end = mcp::eventEnd(buffer, separator, scanned); end != std::string::npos;
         end = mcp::eventEnd(buffer, separator)) {
      if (separator != 2 && separator != 4) std::abort();
      const std::string event = mcp::rewriteEvent(std::string_view(buffer).substr(0, end), rewrite);
      if (!event.empty() && !event.ends_with("\n\n")) std::abort();
      written += event;
      buffer.erase(0, end + separator);
      scanned = 0;
    }
    scanned = buffer.size() < 3 ? 0 : buffer.size() - 3;
  }
  // What the gateway wrote, split and rewritten again, is what it wrote (the rewrite is idempotent
  // on its own output, so a client never sees a half-rewritten event).
  std::string again;
  std::string rest = written;
  size_t separator = 0;
  for (size_t end = mcp::eventEnd(rest, separator); end != std::string::npos; end = mcp::eventEnd(rest, separator)) {
    again += mcp::rewriteEvent(std::string_view(rest).substr(0, end), rewrite);
    rest.erase(0, end + separator);
  }
  if (!rest.empty() || again != written) std::abort();
  return 0;
}
