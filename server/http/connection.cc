#include "server/http/connection.h"

#include <cerrno>
#include <memory>
#include <string>

#include <poll.h>

#include <Poco/Net/HTTPHeaderStream.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Timestamp.h>

#include "server/http/request_id.h"
#include "server/log/json_log.h"

namespace sluice::http {

namespace {

constexpr const char* kRequestIdHeader = "x-sluice-request-id";

// Sent when the request head itself is unacceptable, before any handler (and so any wire) is known:
// a body both Anthropic and OpenAI clients parse.
void sendRawError(Poco::Net::HTTPServerSession& session, int status, const std::string& reason, const std::string& key,
                  const std::string& message) {
  const std::string id = newRequestId();
  const std::string body = R"({"type":"error","error":{"type":")" + key + R"(","message":")" + message +
                           R"(","code":")" + key + R"("},"request_id":")" + id + R"("})";
  Poco::Net::HTTPResponse response(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status), reason);
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.set(kRequestIdHeader, id);
  response.setKeepAlive(false);
  Poco::Net::HTTPHeaderOutputStream out(session);
  response.write(out);
  out << body;
  out.flush();
}

// Exposes how much the session already read ahead, so an idle wait can poll the socket in short
// steps (and notice a drain) without missing a pipelined request already buffered; and peek(),
// which reads what arrived into that buffer.
class Session : public Poco::Net::HTTPServerSession {
 public:
  using HTTPServerSession::HTTPServerSession;
  using HTTPServerSession::buffered;
  using HTTPServerSession::peek;
};

// Waits up to `timeout_ms` for the socket to become readable: 1 when it is, 0 on timeout, -1 on
// error. One poll(2); Poco's Socket::poll builds and closes an epoll set for every wait.
int waitReadable(int fd, int timeout_ms) {
  pollfd item{};
  item.fd = fd;
  item.events = POLLIN;
  for (;;) {
    const int ready = ::poll(&item, 1, timeout_ms);
    if (ready >= 0) return ready > 0 ? 1 : 0;
    if (errno != EINTR) return -1;
  }
}

size_t headerBytes(const Poco::Net::HTTPServerRequest& request) {
  size_t total = request.getURI().size() + request.getMethod().size();
  for (const auto& [name, value] : request) total += name.size() + value.size() + 4;
  return total;
}

}  // namespace

Connection::Connection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params,
                       Poco::Net::HTTPRequestHandlerFactory::Ptr router, Gateway& gateway)
    : TCPServerConnection(socket), params_(std::move(params)), router_(std::move(router)), gateway_(gateway) {}

void Connection::run() {
  Session session(socket(), params_);
  bool first = true;
  // Waits for the next request on a kept-alive connection in 200 ms steps, so that an idle
  // connection is closed promptly once the gateway starts draining.
  auto nextRequest = [&]() {
    if (first || session.buffered() > 0 || !session.getKeepAlive()) {
      first = false;
      return session.hasMoreRequests();
    }
    const Poco::Timestamp started;
    const Poco::Timespan idle_limit = params_->getKeepAliveTimeout();
    const int fd = socket().impl()->sockfd();
    while (!gateway_.stopping().load()) {
      const int ready = waitReadable(fd, 200);
      if (ready < 0) return false;
      if (ready > 0) {
        // The bytes that arrived go into the session's buffer (the read parsing the request would
        // make anyway), so hasMoreRequests() finds them there instead of waiting a second time.
        try {
          if (session.peek() == std::char_traits<char>::eof()) return false;
        } catch (const Poco::Exception&) {
          return false;  // reset while idle
        }
        return session.hasMoreRequests();
      }
      if (started.isElapsed(idle_limit.totalMicroseconds())) return false;
    }
    return false;
  };
  while (!gateway_.stopping().load() && nextRequest()) {
    try {
      Poco::Net::HTTPServerResponseImpl response(session);
      Poco::Net::HTTPServerRequestImpl request(response, session, params_.get());
      response.setVersion(request.getVersion());
      response.setKeepAlive(params_->getKeepAlive() && request.getKeepAlive() && session.canKeepAlive() &&
                            !gateway_.stopping().load());
      response.set(kRequestIdHeader, newRequestId());
      if (headerBytes(request) > gateway_.options().max_header_bytes) {
        sendRawError(session, 431, "Request Header Fields Too Large", "request_header_fields_too_large",
                     "request headers exceed " + std::to_string(gateway_.options().max_header_bytes) + " bytes");
        break;
      }
      std::unique_ptr<Poco::Net::HTTPRequestHandler> handler(router_->createRequestHandler(request));
      if (request.getExpectContinue() && response.getStatus() == Poco::Net::HTTPResponse::HTTP_OK) {
        response.sendContinue();
      }
      handler->handleRequest(request, response);
      session.setKeepAlive(params_->getKeepAlive() && response.getKeepAlive() && session.canKeepAlive() &&
                           !gateway_.stopping().load());
    } catch (const Poco::Net::NoMessageException&) {
      break;
    } catch (const Poco::Net::MessageException& error) {
      const std::string text = error.message();
      if (text.find("too long") != std::string::npos || text.find("Too many") != std::string::npos) {
        sendRawError(session, 431, "Request Header Fields Too Large", "request_header_fields_too_large",
                     "request header fields too large: " + text);
      } else {
        sendRawError(session, 400, "Bad Request", "invalid_request_error", "malformed HTTP request");
      }
      break;
    } catch (const Poco::Exception& error) {
      // The client went away or the socket failed mid-request; nothing can be answered.
      if (!session.networkException()) log::warn("connection error", {{"error", error.displayText()}});
      break;
    }
  }
}

}  // namespace sluice::http
