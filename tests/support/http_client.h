#pragma once
// A tiny HTTP/1.1 client for integration tests, on a plain Poco StreamSocket so that tests see
// exactly what the server sent: whether a chunked body really ended (the zero chunk arrived) or
// was cut, each piece as it arrives, and the power to hang up mid-stream.
//
//   auto r = sluice::test::request("POST", base + "/v1/chat/completions",
//                                  {{"Authorization", "Bearer k"}}, R"({"model":"m","messages":[]})");
//   auto s = sluice::test::requestStream("POST", url, headers, body,
//                                        [](std::string_view, const std::string& so_far) {
//                                          return so_far.find("\n\n") == std::string::npos;  // hang up after one event
//                                        });
//
// No TLS, no redirects, no decompression. Not thread-safe per connection.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace Poco::Net {
class StreamSocket;
}

namespace sluice::test {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  int status = 0;
  std::string reason;
  Headers headers;   // in order, names as sent
  std::string body;  // de-chunked

  // The first value of header `name` (case-insensitive), or "".
  std::string header(std::string_view name) const;
  bool hasHeader(std::string_view name) const;
  // The body parsed as JSON; throws nlohmann::json::parse_error when it is not.
  nlohmann::json json() const;
};

struct StreamResult : HttpResponse {
  bool complete = false;  // the body ended as framed: zero chunk, full Content-Length, or close when unframed
  bool hung_up = false;   // the callback returned false and the connection was closed by us
  std::string error;      // why reading stopped early ("timeout", "connection reset", …); empty otherwise
  std::size_t pieces = 0; // how many times the callback was called
};

// Called with each piece of the body as it arrives. Return false to hang up at once.
using OnData = std::function<bool(std::string_view piece, const std::string& body_so_far)>;

// One keep-alive connection to host:port. Reconnects when the previous response closed it.
class HttpConnection {
 public:
  HttpConnection(std::string host, int port, std::chrono::milliseconds timeout = std::chrono::milliseconds(30'000));
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends one request and reads the whole response. Adds Host, and Content-Length when a body is
  // given or the method is POST/PUT/PATCH. Throws std::runtime_error when it cannot connect or
  // the response is cut or times out.
  HttpResponse request(std::string_view method, std::string_view target, const Headers& headers = {},
                       std::string_view body = {});

  // Like request(), but hands each body piece to `on_data` and never throws once the request was
  // sent: a cut, reset or timeout is reported in StreamResult::error. Throws std::runtime_error
  // when it cannot connect or send. After a hang-up or an error the connection is closed.
  StreamResult stream(std::string_view method, std::string_view target, const Headers& headers,
                      std::string_view body, const OnData& on_data);

  // How many TCP connections this object has opened (1 when keep-alive held throughout).
  int connectCount() const { return connects_; }
  bool isOpen() const;
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int connects_ = 0;
};

// One request on a fresh connection to an "http://host:port/path?query" URL.
HttpResponse request(std::string_view method, std::string_view url, const Headers& headers = {},
                     std::string_view body = {},
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(30'000));

StreamResult requestStream(std::string_view method, std::string_view url, const Headers& headers,
                           std::string_view body, const OnData& on_data,
                           std::chrono::milliseconds timeout = std::chrono::milliseconds(30'000));

}  // namespace sluice::test
