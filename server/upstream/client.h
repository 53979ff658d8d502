#pragma once
// The HTTP(S) client the gateway uses to call providers: a keep-alive pool per origin, streaming
// reads, and an abort that closes the socket at once (that is what stops generation upstream).
// Thread-safe: one Client is shared by every request thread; a Response belongs to one thread.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"

namespace Poco::Net {
class HTTPClientSession;
class HTTPResponse;
}  // namespace Poco::Net

namespace sluice::upstream {

enum class TransportFailure { Connect, Timeout, Reset, Tls, Protocol };
std::string_view toString(TransportFailure failure);

// Thrown when the provider could not be reached or stopped answering; never for an HTTP status.
class TransportError : public std::runtime_error {
 public:
  TransportError(TransportFailure failure, const std::string& message)
      : std::runtime_error(message), failure_(failure) {}
  TransportFailure failure() const { return failure_; }

 private:
  TransportFailure failure_;
};

struct Request {
  std::string method = "POST";
  std::string url;  // absolute http:// or https:// URL, query included
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  catalog::Timeouts timeouts;
};

class Pool;

// A provider's answer whose headers have arrived; the body is read on demand.
class Response {
 public:
  Response(std::shared_ptr<Pool> pool, std::string origin, std::unique_ptr<Poco::Net::HTTPClientSession> session,
           std::unique_ptr<Poco::Net::HTTPResponse> head, std::istream* body, int idle_ms);
  ~Response();  // returns the connection to the pool only when the body was read to the end
  Response(const Response&) = delete;
  Response& operator=(const Response&) = delete;

  int status() const;
  std::string header(const std::string& name) const;  // "" when absent
  std::vector<std::pair<std::string, std::string>> headers() const;

  // Appends the next bytes that arrive (at least one) to `out`. Returns false at the end of the body.
  // Throws TransportError on a reset or when idle_ms pass without a byte.
  bool readSome(std::string& out);
  std::string readAll();

  // Closes the connection now; later reads return false.
  void abort();

 private:
  std::shared_ptr<Pool> pool_;
  std::string origin_;
  std::unique_ptr<Poco::Net::HTTPClientSession> session_;
  std::unique_ptr<Poco::Net::HTTPResponse> head_;
  std::istream* body_;
  bool finished_ = false;
  bool aborted_ = false;
};

class Client {
 public:
  explicit Client(int max_idle_per_origin = 64);
  ~Client();

  // Sends the request and waits for the response head (connect_ms to connect, first_byte_ms for
  // the head). Throws TransportError when the provider cannot be reached or does not answer.
  std::unique_ptr<Response> send(const Request& request);

 private:
  std::shared_ptr<Pool> pool_;
};

}  // namespace sluice::upstream
