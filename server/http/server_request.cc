#include "server/http/server_request.h"

#include <cstdint>

#include <sys/socket.h>

#include "server/http/server_response.h"

namespace sluice::http {

ServerRequest::ServerRequest(ClientSocket& socket, ServerResponse& response, const Poco::Net::HTTPServerParams& params,
                             const h1::RequestHead& head)
    : socket_(socket), response_(response), params_(params) {
  setMethod(std::string(head.method));
  setURI(std::string(head.target));
  setVersion(std::string(head.version));
  for (const auto& [name, value] : head.fields) add(std::string(name), std::string(value));

  // The framing rules the upstream client also follows (RFC 9112 §6.1, §6.3). A request must be
  // unambiguous: anything a front proxy might frame differently is refused (request smuggling).
  BodyReader::Framing framing = BodyReader::Framing::None;
  uint64_t length = 0;
  if (const auto framed = h1::bodyFraming(h1::Message::Request, head.fields); !framed) {
    framing_error_ = framed.error();
  } else if (framed->coded) {
    // NOTE: RFC 9112 §6.1 would answer 501; the connection answers every framing error with 400.
    framing_error_ = "unsupported Transfer-Encoding: only chunked is accepted";
  } else if (framed->kind == h1::BodyFraming::Kind::Chunked) {
    framing = BodyReader::Framing::Chunked;
  } else if (framed->kind == h1::BodyFraming::Kind::Length) {
    framing = BodyReader::Framing::Length;
    length = framed->length;
  }
  // Content-Length as one parsed value ("89, 89" is 89): whoever reads the field later (the
  // body reader's callers, the upload's declared size) never parses a list.
  if (framing_error_.empty() && has("Content-Length")) {
    erase("Content-Length");
    if (framing != BodyReader::Framing::Chunked) setContentLength64(static_cast<Poco::Int64>(length));
  }
  reader_ = std::make_unique<BodyReader>(socket_, framing, length);
  stream_ = std::make_unique<std::istream>(reader_.get());
}

ServerRequest::~ServerRequest() = default;

std::istream& ServerRequest::stream() { return *stream_; }

Poco::Net::HTTPServerResponse& ServerRequest::response() const { return response_; }

const Poco::Net::SocketAddress& ServerRequest::clientAddress() const { return socket_.peerAddress(); }

const Poco::Net::SocketAddress& ServerRequest::serverAddress() const { return socket_.localAddress(); }

}  // namespace sluice::http
