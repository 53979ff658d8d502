#pragma once
// The socket client's Response: reads a provider's answer off a pooled connection, by the
// framing its head announced (Content-Length, chunked, or until close: net/http1.h bodyFraming),
// and gives the connection back to the pool when the body ended exactly where it said. Internal
// to the upstream client; callers see upstream::Response (transport.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/net/http1.h"
#include "server/upstream/link.h"
#include "server/upstream/transport.h"

namespace sluice::upstream {

class Pool;

// A final response head (1xx interim heads skipped) and how its body is framed.
struct ResponseHead {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  net::h1::BodyFraming::Kind framing = net::h1::BodyFraming::Kind::None;
  uint64_t length = 0;      // framing Length
  bool keep_alive = false;  // the connection may carry another exchange after this body
};

// Reads the head of the answer to `request` from `link`, skipping 1xx interim heads. nullopt with
// `error` (an IoError) set when the connection failed first; `any_byte` tells whether anything
// arrived. Throws TransportError{Protocol} on a malformed head or ambiguous framing.
std::optional<ResponseHead> readResponseHead(Link& link, const Request& request, int& error, bool& any_byte);

class PooledResponse final : public Response {
 public:
  // Owns `link` until the body's end; `idle_ms` bounds each wait for body bytes. `cancel` (may be
  // null) has the link's socket attached and must outlive this response.
  PooledResponse(std::shared_ptr<Pool> pool, std::string origin, std::unique_ptr<Link> link, ResponseHead head,
                 int idle_ms, Cancel* cancel);
  ~PooledResponse() override;  // returns the connection to the pool only when the body was read to the end
  PooledResponse(const PooledResponse&) = delete;
  PooledResponse& operator=(const PooledResponse&) = delete;

  int status() const override { return head_.status; }
  std::string header(const std::string& name) const override;
  std::vector<std::pair<std::string, std::string>> headers() const override { return head_.headers; }
  bool readSome(std::string& out) override;
  void abort() override;

 private:
  using Framing = net::h1::BodyFraming::Kind;
  [[noreturn]] void fail(int error);
  [[noreturn]] void failMalformed();
  bool fill();  // reads more into the connection's buffer; false at the provider's orderly close
  void drop();  // the connection is done with: closed, never pooled
  bool readLength(std::string& out);
  bool readChunked(std::string& out);
  bool readUntilClose(std::string& out);

  std::shared_ptr<Pool> pool_;
  std::string origin_;
  std::unique_ptr<Link> link_;
  ResponseHead head_;
  uint64_t remaining_ = 0;
  std::unique_ptr<net::h1::ChunkedDecoder> chunked_;
  Cancel* cancel_;
  bool finished_ = false;
  bool aborted_ = false;
};

}  // namespace sluice::upstream
