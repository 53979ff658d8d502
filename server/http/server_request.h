#pragma once
// The request the handlers see (Poco's HTTPServerRequest interface) over the gateway's own
// HTTP/1.1 framing: the head's parts copied in, the body framed by net::h1::bodyFraming and read
// on demand through stream(). The peer's and our own address are only looked up when asked for.
// Not thread-safe: belongs to the connection's thread.

#include <istream>
#include <memory>
#include <optional>
#include <string>

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SocketAddress.h>

#include "server/http/body_reader.h"
#include "server/http/client_socket.h"
#include "server/net/fiber.h"
#include "server/net/http1.h"

namespace sluice::http {
namespace h1 = net::h1;

class ServerResponse;

class ServerRequest : public Poco::Net::HTTPServerRequest {
 public:
  // Takes the method, target, version and fields of `head` (copied; the views may go after).
  // `socket`, `response` and `params` must outlive the request.
  ServerRequest(ClientSocket& socket, ServerResponse& response, const Poco::Net::HTTPServerParams& params,
                const h1::RequestHead& head);
  ~ServerRequest() override;

  std::istream& stream() override;
  const Poco::Net::SocketAddress& clientAddress() const override;
  const Poco::Net::SocketAddress& serverAddress() const override;
  const Poco::Net::HTTPServerParams& serverParams() const override { return params_; }
  Poco::Net::HTTPServerResponse& response() const override;
  bool secure() const override { return socket_.tls(); }

  int fd() const { return socket_.fd(); }
  // The connection: TLS and the client's verified certificate (identity reads them).
  const ClientSocket& socket() const { return socket_; }
  net::fiber::Registration& registration() { return socket_.registration(); }
  // Malformed or ambiguous framing (net::h1::bodyFraming's reasons, or a transfer coding besides
  // chunked): answer 400 and close. Empty when the body can be read.
  const std::string& framingError() const { return framing_error_; }
  BodyReader& body() { return *reader_; }

 private:
  ClientSocket& socket_;
  ServerResponse& response_;
  const Poco::Net::HTTPServerParams& params_;
  std::string framing_error_;
  std::unique_ptr<BodyReader> reader_;
  std::unique_ptr<std::istream> stream_;
};

}  // namespace sluice::http
