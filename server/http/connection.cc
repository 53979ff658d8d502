#include "server/http/connection.h"

#include <cerrno>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>
#include <string>

#include <sys/socket.h>

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Timespan.h>

#include "server/net/http1.h"
#include "server/http/connection_limits.h"
#include "server/http/request_id.h"
#include "server/http/server_session.h"
#include "server/log/json_log.h"

namespace sluice::http {

namespace {

constexpr const char* kRequestIdHeader = "x-sluice-request-id";
// A body the handler did not read (an early error answer) is read and dropped up to this much so
// the connection can carry the next request; a larger one closes the connection instead.
constexpr size_t kSkipBodyLimit = 1u << 20;

// The socket's receive timeout: how often a waiting read looks at the drain flag and the clock.
constexpr int kReadTickMs = 200;

std::chrono::milliseconds millis(const Poco::Timespan& span) {
  return std::chrono::milliseconds(span.totalMilliseconds());
}

// Closes gracefully after an answer sent before the request was read: stops sending, then reads
// and drops what the client still sends for a moment, so the kernel does not reset the
// connection (and lose the answer) over unread bytes.
void lingeringClose(ClientSocket& client) {
  client.shutdownWrite();
  client.setReadLimits({std::chrono::milliseconds(100), false, nullptr});
  // A deadline, not only a silence: a client trickling bytes must not hold the close open.
  client.setDeadline(std::chrono::steady_clock::now() + std::chrono::seconds(1));
  size_t dropped = 0;
  while (dropped < (256u << 10)) {
    const size_t n = client.fill();
    if (n == 0) break;
    dropped += n;
    client.consume(client.buffered().size());
  }
}

// Sent when the request head itself is unacceptable, before any handler (and so any wire) is known:
// a body both Anthropic and OpenAI clients parse.
void sendRawError(ClientSocket& client, int status, const std::string& reason, const std::string& key,
                  const std::string& message) {
  const std::string id = newRequestId();
  std::string body = R"({"type":"error","error":{"type":")" + key + R"(","message":")";
  for (const char c : message) {
    if (c == '"' || c == '\\') body += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    body += c;
  }
  body += R"(","code":")" + key + R"("},"request_id":")" + id + R"("})";
  const std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\n" + kRequestIdHeader + ": " + id + "\r\nConnection: close\r\n\r\n";
  if (client.write({head, body})) lingeringClose(client);
}

// Over a connection cap: a 503 the client can read, then close. No request was read, so the
// answer goes out without waiting for one (a client sending meanwhile may see a reset instead).
void refuseConnection(ClientSocket& client, std::string_view reason) {
  const std::string body = R"({"type":"error","error":{"type":"overloaded_error","message":"too many connections )" +
                           std::string(reason) + R"(","code":"overloaded_error"}})";
  const std::string head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";
  client.setSendPatience(std::chrono::milliseconds(100));
  if (client.write({head, body})) ::shutdown(client.fd(), SHUT_WR);
}

// A head not whole by its deadline, or a body below its minimum rate: 408, counted, and close.
void timedOut(ClientSocket& client, Gateway& gateway, Overdue overdue, std::chrono::milliseconds head_timeout) {
  const bool head = overdue == Overdue::Head;
  gateway.metrics().requests_timed_out.with({head ? "head" : "body"}).inc();
  client.clearOverdue();
  sendRawError(client, 408, "Request Timeout", "request_timeout",
               head ? "the request head did not arrive within " + std::to_string(head_timeout.count()) + " ms"
                    : "the request body arrived slower than " +
                          std::to_string(gateway.options().min_body_bytes_per_second) + " bytes per second");
}

// Whether `peer` is a load balancer the operator trusts to name its clients: in
// --trusted-balancers or in gateway.trusted_proxies' `from`.
bool trustedBalancer(Gateway& gateway, const std::optional<catalog::IpAddress>& peer) {
  if (!peer) return false;
  for (const catalog::Cidr& block : gateway.options().trusted_balancers) {
    if (block.contains(*peer)) return true;
  }
  const auto catalog = gateway.catalog();
  return catalog->identity.trusted_proxies && catalog->identity.trusted_proxies->trusts(*peer);
}

// How an admitted connection is held: its head deadline, and for a trusted balancer's connection
// the caps each forwarded request counts against (null otherwise).
struct Admitted {
  std::chrono::milliseconds head_timeout;
  ConnectionLimits* forwarded_limits;
};

void serveAdmitted(ClientSocket& client, const Poco::Net::HTTPServerParams& params, Router& router, Gateway& gateway,
                   const ServerTls* tls, const Admitted& admitted);

}  // namespace

Connection::Connection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params, Router& router,
                       Gateway& gateway, const ServerTls* tls)
    : TCPServerConnection(socket), params_(std::move(params)), router_(router), gateway_(gateway), tls_(tls) {}

void Connection::run() {
  const int fd = socket().impl()->sockfd();
  socket().setReceiveTimeout(Poco::Timespan(0, kReadTickMs * 1000));
  serveConnection(fd, *params_, router_, gateway_, tls_);
}

void serveConnection(int fd, const Poco::Net::HTTPServerParams& params, Router& router, Gateway& gateway,
                     const ServerTls* tls, const ListenerPolicy& policy) {
  ClientSocket client(fd);
  ConnectionLimits& limits = policy.limits ? *policy.limits : gateway.connectionLimits();
  const auto peer = peerAddress(fd);
  const bool balancer = policy.balancers && trustedBalancer(gateway, peer);
  auto ticket =
      limits.admit(peerKey(peer), balancer ? ConnectionLimits::PerPeer::Exempt : ConnectionLimits::PerPeer::Counted);
  if (!ticket) {
    const bool total = ticket.error() == ConnectionLimits::Refusal::MaxConnections;
    gateway.metrics().connections_refused.with({total ? "max_connections" : "max_per_peer"}).inc();
    // NOTE: over TLS no answer can be sent before a handshake, and a handshake is exactly the
    // work a cap exists to refuse: the connection is closed instead.
    if (tls) return;
    return refuseConnection(client, total ? "open on the gateway" : "open from this address");
  }
  struct Open {
    metrics::Gauge& gauge;
    explicit Open(metrics::Gauge& counted) : gauge(counted) { gauge.inc(); }
    ~Open() { gauge.dec(); }
  } open(gateway.metrics().open_connections);
  const auto head_timeout = policy.head_timeout.count() > 0
                                ? policy.head_timeout
                                : std::chrono::milliseconds(gateway.options().head_timeout_ms);
  serveAdmitted(client, params, router, gateway, tls, {head_timeout, balancer ? &limits : nullptr});
}

namespace {

void serveAdmitted(ClientSocket& client, const Poco::Net::HTTPServerParams& params, Router& router, Gateway& gateway,
                   const ServerTls* tls, const Admitted& admitted) {
  const auto accepted = std::chrono::steady_clock::now();
  const auto head_timeout = admitted.head_timeout;
  if (tls) {
    // The handshake shares the first head's deadline: a client that trickles its handshake (or
    // sends nothing) is cut at the same moment as one that trickles its head.
    const bool require_certificate = gateway.catalog()->identity.mode == catalog::IdentityMode::Certificate;
    if (auto started = client.startTls(*tls, require_certificate, accepted + head_timeout); !started) {
      gateway.metrics().tls_handshake_failures.with({std::string(toString(started.error()))}).inc();
      return;
    }
  }
  const BodyRate body_rate{gateway.options().min_body_bytes_per_second,
                           std::chrono::milliseconds(gateway.options().body_grace_ms)};
  // Reads of a request under way (the rest of a head, a body) wait this long for a byte.
  const ReadLimits reading{millis(params.getTimeout()), false, nullptr};
  client.setSendPatience(millis(params.getTimeout()));
  h1::HeadLimits limits;
  limits.max_head_bytes = gateway.options().max_header_bytes;
  const int max_requests = params.getMaxKeepAliveRequests();
  int served = 0;

  // Waiting for the first bytes of the next request: an idle connection is closed after the
  // keep-alive timeout, and within a tick once the gateway starts draining (on a fiber: at once),
  // unless its next request already arrived (it is served). A new connection's first request is
  // waited for even while draining (bounded by the head deadline): the client connected before
  // the gateway stopped accepting, so its request is on its way, and closing would reset it.
  const ReadLimits first_wait{millis(params.getTimeout()), false, nullptr};
  const ReadLimits idle_wait{millis(params.getKeepAliveTimeout()), true, &gateway.stopping()};

  while (served == 0 || !gateway.stopping().load() || !client.buffered().empty()) {
    h1::RequestHead head;
    h1::HeadResult parsed;
    // The head's deadline: from the accept for the first request, from its first byte for the
    // next ones (the keep-alive wait before it is an idle timer, bounded by idle_wait).
    std::optional<std::chrono::steady_clock::time_point> head_started;
    if (served == 0) head_started = accepted;
    for (;;) {
      parsed = h1::parseRequestHead(client.buffered(), limits, head);
      if (parsed.status != h1::HeadStatus::Incomplete) break;
      // Nothing of the next request yet: an idle wait. Part of a head: a read under way.
      const bool idle = client.buffered().find_first_not_of("\r\n") == std::string_view::npos;
      if (!idle && !head_started) head_started = std::chrono::steady_clock::now();
      client.setDeadline(head_started ? *head_started + head_timeout : std::chrono::steady_clock::time_point::max());
      client.setReadLimits(!idle ? reading : served == 0 ? first_wait : idle_wait);
      if (client.fill() == 0) {
        // A connection that never sent a byte is closed quietly; a head cut short is answered.
        if (client.overdue() != Overdue::None && !idle) timedOut(client, gateway, client.overdue(), head_timeout);
        return;
      }
    }
    client.setDeadline(std::chrono::steady_clock::time_point::max());
    client.setReadLimits(reading);
    if (parsed.status == h1::HeadStatus::TooLarge) {
      return sendRawError(client, 431, "Request Header Fields Too Large", "request_header_fields_too_large",
                          parsed.reason);
    }
    if (parsed.status == h1::HeadStatus::Malformed) {
      return sendRawError(client, 400, "Bad Request", "invalid_request_error", "malformed HTTP request: " + parsed.reason);
    }
    // A balancer's request counts against its client's per-peer cap while it is served.
    std::optional<ConnectionLimits::Ticket> forwarded;
    if (admitted.forwarded_limits) {
      if (const auto forwarded_for = forwardedClient(head.fields)) {
        auto place = admitted.forwarded_limits->admitForwarded(peerKey(forwarded_for));
        if (!place) {
          gateway.metrics().connections_refused.with({"max_per_peer"}).inc();
          return sendRawError(client, 503, "Service Unavailable", "overloaded_error",
                              "too many connections open from this address");
        }
        forwarded.emplace(std::move(*place));
      }
    }
    ServerResponse response(client);
    ServerRequest request(client, response, params, head);
    client.consume(parsed.consumed);
    if (!request.framingError().empty()) {
      return sendRawError(client, 400, "Bad Request", "invalid_request_error", request.framingError());
    }
    if (!request.body().complete()) client.startBody(body_rate);
    ++served;
    response.setVersion(request.getVersion());
    response.setKeepAlive(params.getKeepAlive() && request.getKeepAlive() && served < max_requests &&
                          !gateway.stopping().load() && !gateway.draining().load());
    Request routed(request, newRequestId(), &gateway.clientWatch());
    response.set(kRequestIdHeader, routed.id());
    if (request.getMethod() == Poco::Net::HTTPRequest::HTTP_HEAD) response.setHeadOnly(true);
    try {
      std::unique_ptr<Handler> handler = router.route(routed);
      if (request.getExpectContinue() && response.getStatus() == Poco::Net::HTTPResponse::HTTP_OK &&
          client.buffered().empty()) {
        response.sendContinue();
      }
      handler->handle(routed, response);
    } catch (const std::exception& error) {
      // Handlers answer their own failures; this is a bug or the allocator giving up.
      log::warn("connection error", {{"error", error.what()}});
      if (!response.sent()) sendRawError(client, 500, "Internal Server Error", "internal_error", "internal error");
      return;
    }
    // The body fell below its minimum rate while the handler read it: the handler's answer (to
    // a truncated body) was not written; the client is told why instead.
    if (client.overdue() != Overdue::None) return timedOut(client, gateway, client.overdue(), head_timeout);
    if (!response.sent()) {
      return sendRawError(client, 500, "Internal Server Error", "internal_error", "the request was not answered");
    }
    if (!response.finish() || client.broken()) return;
    if (!response.getKeepAlive() || gateway.stopping().load()) return;
    if (!request.body().complete() && !request.body().skipRest(kSkipBodyLimit)) {
      if (client.overdue() != Overdue::None) gateway.metrics().requests_timed_out.with({"body"}).inc();
      return;
    }
    client.endBody();
    client.trim();
  }
}

}  // namespace

}  // namespace sluice::http
