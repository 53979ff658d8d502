#pragma once
// The response the handlers see (Poco's HTTPServerResponse interface), written by the gateway's
// own HTTP/1.1 framing: a whole answer is one write (head and body together); a streamed one
// goes through a BodyWriter, one write per flush. Not thread-safe: belongs to the connection's
// thread.

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>

#include <Poco/Net/HTTPServerResponse.h>

#include "server/http/body_writer.h"
#include "server/http/client_socket.h"

namespace sluice::http {

class ServerResponse : public Poco::Net::HTTPServerResponse {
 public:
  // `socket` must outlive the response.
  explicit ServerResponse(ClientSocket& socket) : socket_(socket) {}
  ~ServerResponse() override;

  void sendContinue() override;
  std::ostream& send() override;
  void sendFile(const std::string& path, const std::string& media_type) override;
  void sendBuffer(const void* buffer, std::size_t length) override;
  void redirect(const std::string& uri, HTTPStatus status = HTTP_FOUND) override;
  void requireAuthentication(const std::string& realm) override;
  bool sent() const override { return sent_; }

  void setHeadOnly(bool head_only) { head_only_ = head_only; }
  // Shown the body bytes sent from now on (a whole answer, or each run of a streamed one); may
  // be null. Must outlive the response's sending, or be replaced (null) before it ends: a body
  // already being written is told too, so the end of a chunked body, written after the handler
  // returned, never reaches a tap that is gone.
  void setBodyTap(util::BodyTap* tap);
  // Ends the body. False when the connection cannot carry another request.
  bool finish();

 private:
  std::string renderHead() const;

  ClientSocket& socket_;
  bool sent_ = false;
  bool head_only_ = false;
  bool ok_ = true;
  std::unique_ptr<BodyWriter> writer_;
  std::unique_ptr<std::ostream> stream_;
  util::BodyTap* tap_ = nullptr;
};

}  // namespace sluice::http
