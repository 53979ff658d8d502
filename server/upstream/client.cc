#include "server/upstream/client.h"

#include <cstdio>
#include <optional>
#include <string>

#include "server/net/http1.h"
#include "server/upstream/connect.h"
#include "server/upstream/link.h"
#include "server/upstream/pool.h"
#include "server/upstream/pooled_response.h"
#include "server/upstream/url.h"

namespace sluice::upstream {

namespace {

std::string renderHead(const Request& request, const Target& target) {
  using net::h1::equalsNoCase;
  std::string head;
  head.reserve(256 + request.headers.size() * 48);
  head.append(request.method).append(" ").append(target.path).append(" HTTP/1.1\r\nHost: ");
  head.append(target.host_header).append("\r\n");
  for (const auto& [name, value] : request.headers) {
    if (equalsNoCase(name, "host") || equalsNoCase(name, "content-length") || equalsNoCase(name, "connection") ||
        equalsNoCase(name, "transfer-encoding")) {
      continue;  // framing is the client's business
    }
    head.append(name).append(": ");
    // A value never carries a line break into the head.
    const size_t at = head.size();
    head.append(value);
    for (size_t i = at; i < head.size(); ++i) {
      if (head[i] == '\r' || head[i] == '\n') head[i] = ' ';
    }
    head.append("\r\n");
  }
  if (request.body_source) {
    if (const auto length = request.body_source->length()) {
      head.append("Content-Length: ").append(std::to_string(request.body.size() + *length)).append("\r\n");
    } else {
      head.append("Transfer-Encoding: chunked\r\n");
    }
  } else if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
             request.method == "PATCH") {
    head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  }
  head.append("\r\n");
  return head;
}

TransportError cancelledError() { return TransportError(TransportFailure::Reset, "cancelled: the client is gone"); }

std::string chunkHead(size_t size) {
  char text[24];
  std::snprintf(text, sizeof text, "%zx\r\n", size);
  return text;
}

// The head, `body` and then the source's bytes as they come (chunked when the source's length is
// unknown). False with `error` set when the connection failed; the source's own exceptions pass.
bool writeStreamed(Link& link, const std::string& head, const Request& request, int& error) {
  BodySource& source = *request.body_source;
  const bool chunked = !source.length();
  if (!chunked) {
    if (!link.write(head, request.body, error)) return false;
  } else if (!link.write(head, request.body.empty() ? std::string_view() : chunkHead(request.body.size()), error) ||
             (!request.body.empty() && !link.write(request.body, "\r\n", error))) {
    return false;
  }
  std::string piece;
  for (;;) {
    piece.clear();
    if (!source.next(piece)) break;
    if (piece.empty()) continue;
    if (chunked) {
      if (!link.write(chunkHead(piece.size()), piece, error) || !link.write("\r\n", "", error)) return false;
    } else if (!link.write(piece, "", error)) {
      return false;
    }
  }
  return !chunked || link.write("0\r\n\r\n", "", error);
}

}  // namespace

Client::Client(int max_idle_per_origin) : pool_(std::make_shared<Pool>(max_idle_per_origin)) {}
Client::~Client() = default;

std::unique_ptr<Response> Client::send(const Request& request, Cancel* cancel) {
  const std::optional<Target> target = parseUrl(request.url);
  if (!target) throw TransportError(TransportFailure::Connect, "not an http(s) URL: " + request.url);
  const std::string head = renderHead(request, *target);
  // A pooled connection the provider already closed fails before any answer: retry once on a fresh one.
  for (int round = 0; round < 2; ++round) {
    if (cancel && cancel->cancelled()) throw cancelledError();
    auto link = round == 0 && !request.body_source ? pool_->take(target->origin) : nullptr;
    const bool reused = link != nullptr;
    if (!link) link = connectTo(*target, request.timeouts.connect_ms);
    // This call's own limits, whatever the connection had before.
    link->sendTimeout(request.timeouts.first_byte_ms);
    link->receiveTimeout(request.timeouts.first_byte_ms);
    if (cancel) cancel->attach(link->fd);
    int error = 0;
    bool any_byte = false;
    std::optional<ResponseHead> answer;
    try {
      if (request.body_source ? writeStreamed(*link, head, request, error) : link->write(head, request.body, error)) {
        link->sent = true;
        answer = readResponseHead(*link, request, error, any_byte);
      }
    } catch (...) {
      // A TransportError, or the body source's own failure: either way the exchange is over.
      if (cancel) cancel->detach();
      throw;
    }
    if (answer) {
      return std::make_unique<PooledResponse>(pool_, target->origin, std::move(link), std::move(*answer),
                                              request.timeouts.idle_ms, cancel);
    }
    if (cancel) {
      cancel->detach();
      if (cancel->cancelled()) throw cancelledError();
    }
    if (reused && round == 0 && !any_byte && error != kTimedOut) continue;
    throw transportError(error, false);
  }
  throw TransportError(TransportFailure::Connect, "could not reach " + target->origin);
}

}  // namespace sluice::upstream
