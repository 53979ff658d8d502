#include "tests/support/http_client.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/URI.h>

namespace sluice::test {
namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A read that could not finish: the connection closed, reset or timed out.
struct ReadFailure {
  std::string what;
};

class Reader {
 public:
  explicit Reader(Poco::Net::StreamSocket& socket) : socket_(socket) {}

  // Receives more bytes into the buffer. False at EOF.
  bool fill() {
    char chunk[16384];
    int n = 0;
    try {
      n = socket_.receiveBytes(chunk, sizeof chunk);
    } catch (const Poco::TimeoutException&) {
      throw ReadFailure{"timeout"};
    } catch (const Poco::Net::ConnectionResetException&) {
      throw ReadFailure{"connection reset"};
    } catch (const Poco::Exception& error) {
      throw ReadFailure{error.displayText()};
    }
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  std::string readLine() {
    while (true) {
      const auto end = buffer_.find("\r\n", offset_);
      if (end != std::string::npos) {
        std::string line = buffer_.substr(offset_, end - offset_);
        consume(end + 2 - offset_);
        return line;
      }
      if (!fill()) throw ReadFailure{"connection closed mid-header"};
    }
  }

  std::size_t available() const { return buffer_.size() - offset_; }
  std::string_view peek(std::size_t max) const { return std::string_view(buffer_).substr(offset_, max); }
  void consume(std::size_t n) {
    offset_ += n;
    if (offset_ == buffer_.size()) {
      buffer_.clear();
      offset_ = 0;
    }
  }

 private:
  Poco::Net::StreamSocket& socket_;
  std::string buffer_;
  std::size_t offset_ = 0;
};

struct ParsedUrl {
  std::string host;
  int port = 80;
  std::string target;
};

ParsedUrl parseUrl(std::string_view url) {
  const Poco::URI uri{std::string(url)};
  if (uri.getScheme() != "http") throw std::runtime_error("only http:// URLs are supported: " + std::string(url));
  ParsedUrl parsed{uri.getHost(), uri.getPort(), uri.getPathEtc()};
  if (parsed.target.empty()) parsed.target = "/";
  return parsed;
}

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (equalsIgnoreCase(key, name)) return value;
  return "";
}

bool HttpResponse::hasHeader(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(), [&](const auto& pair) { return equalsIgnoreCase(pair.first, name); });
}

nlohmann::json HttpResponse::json() const { return nlohmann::json::parse(body); }

struct HttpConnection::Impl {
  std::string host;
  int port;
  std::chrono::milliseconds timeout;
  std::optional<Poco::Net::StreamSocket> socket;
  std::optional<Reader> reader;

  void connect(int& connects) {
    if (socket) return;
    try {
      socket.emplace();
      const Poco::Timespan span(static_cast<Poco::Timespan::TimeDiff>(timeout.count()) * 1000);
      socket->connect(Poco::Net::SocketAddress(host, static_cast<Poco::UInt16>(port)), span);
      socket->setReceiveTimeout(span);
      socket->setSendTimeout(span);
      socket->setNoDelay(true);
    } catch (const Poco::Exception& error) {
      socket.reset();
      throw std::runtime_error("cannot connect to " + host + ":" + std::to_string(port) + ": " + error.displayText());
    }
    reader.emplace(*socket);
    ++connects;
  }

  void close() {
    reader.reset();
    if (socket) {
      try {
        socket->close();
      } catch (const Poco::Exception&) {
        // NOTE: closing a socket the peer already reset; nothing is left to release.
      }
      socket.reset();
    }
  }

  void send(std::string_view method, std::string_view target, const Headers& headers, std::string_view body) {
    std::string head = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\n";
    bool has_host = false;
    bool has_length = false;
    for (const auto& [name, value] : headers) {
      has_host = has_host || equalsIgnoreCase(name, "host");
      has_length = has_length || equalsIgnoreCase(name, "content-length") || equalsIgnoreCase(name, "transfer-encoding");
      head += name + ": " + value + "\r\n";
    }
    if (!has_host) head += "Host: " + host + ":" + std::to_string(port) + "\r\n";
    const bool wants_body = !body.empty() || method == "POST" || method == "PUT" || method == "PATCH";
    if (!has_length && wants_body) head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    head += "\r\n";
    head.append(body);
    try {
      std::size_t sent = 0;
      while (sent < head.size()) {
        const int n = socket->sendBytes(head.data() + sent, static_cast<int>(head.size() - sent));
        if (n <= 0) throw std::runtime_error("connection closed while sending");
        sent += static_cast<std::size_t>(n);
      }
    } catch (const Poco::Exception& error) {
      close();
      throw std::runtime_error("cannot send the request: " + error.displayText());
    }
  }

  // Reads the status line and headers into `response`.
  void readHead(HttpResponse& response) {
    while (true) {
      const std::string status_line = reader->readLine();
      // "HTTP/1.1 200 OK"
      const auto first = status_line.find(' ');
      if (first == std::string::npos || !status_line.starts_with("HTTP/"))
        throw ReadFailure{"bad status line: " + status_line};
      const auto second = status_line.find(' ', first + 1);
      response.status = std::stoi(status_line.substr(first + 1, second - first - 1));
      response.reason = second == std::string::npos ? "" : status_line.substr(second + 1);
      response.headers.clear();
      while (true) {
        const std::string line = reader->readLine();
        if (line.empty()) break;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
        response.headers.emplace_back(line.substr(0, colon), value);
      }
      if (response.status >= 200 || response.status == 101) return;  // skip 100 Continue
    }
  }

  // Reads the body, delivering pieces to `deliver` (false: hang up). Returns true when the body
  // ended as framed, false after a hang-up.
  bool readBody(std::string_view method, HttpResponse& response, const std::function<bool(std::string_view)>& deliver) {
    if (method == "HEAD" || response.status == 204 || response.status == 304 || response.status < 200) return true;
    const bool chunked = lower(response.header("transfer-encoding")).find("chunked") != std::string::npos;
    const std::string length_header = response.header("content-length");
    if (chunked) {
      while (true) {
        std::string size_line = reader->readLine();
        const auto semicolon = size_line.find(';');
        if (semicolon != std::string::npos) size_line.resize(semicolon);
        std::size_t size = 0;
        try {
          size = std::stoul(size_line, nullptr, 16);
        } catch (const std::exception&) {
          throw ReadFailure{"bad chunk size line: " + size_line};
        }
        if (size == 0) {
          while (!reader->readLine().empty()) {
          }
          return true;
        }
        std::size_t left = size;
        while (left > 0) {
          if (reader->available() == 0 && !reader->fill()) throw ReadFailure{"connection closed mid-chunk"};
          const std::string_view piece = reader->peek(left);
          const std::string copy(piece);
          reader->consume(piece.size());
          left -= copy.size();
          if (!deliver(copy)) return false;
        }
        if (!reader->readLine().empty()) throw ReadFailure{"missing CRLF after a chunk"};
      }
    }
    if (!length_header.empty()) {
      std::size_t left = std::stoull(length_header);
      while (left > 0) {
        if (reader->available() == 0 && !reader->fill())
          throw ReadFailure{"connection closed after " + std::to_string(response.body.size()) + " of " + length_header +
                            " body bytes"};
        const std::string copy(reader->peek(left));
        reader->consume(copy.size());
        left -= copy.size();
        if (!deliver(copy)) return false;
      }
      return true;
    }
    // Unframed: the body ends when the server closes.
    while (true) {
      if (reader->available() == 0 && !reader->fill()) return true;
      const std::string copy(reader->peek(reader->available()));
      reader->consume(copy.size());
      if (!deliver(copy)) return false;
    }
  }

  bool keepsAlive(const HttpResponse& response) const {
    const std::string connection = lower(response.header("connection"));
    const bool unframed = response.header("content-length").empty() &&
                          lower(response.header("transfer-encoding")).find("chunked") == std::string::npos &&
                          response.status != 204 && response.status != 304;
    return connection.find("close") == std::string::npos && !unframed;
  }
};

HttpConnection::HttpConnection(std::string host, int port, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>()) {
  impl_->host = std::move(host);
  impl_->port = port;
  impl_->timeout = timeout;
}

HttpConnection::~HttpConnection() { impl_->close(); }

bool HttpConnection::isOpen() const { return impl_->socket.has_value(); }

void HttpConnection::close() { impl_->close(); }

HttpResponse HttpConnection::request(std::string_view method, std::string_view target, const Headers& headers,
                                     std::string_view body) {
  StreamResult result = stream(method, target, headers, body, {});
  if (!result.complete)
    throw std::runtime_error(std::string(method) + " " + std::string(target) + ": response incomplete (" +
                             (result.error.empty() ? "no response" : result.error) + "), status " +
                             std::to_string(result.status) + ", body so far: " + result.body.substr(0, 2000));
  return result;
}

StreamResult HttpConnection::stream(std::string_view method, std::string_view target, const Headers& headers,
                                    std::string_view body, const OnData& on_data) {
  impl_->connect(connects_);
  impl_->send(method, target, headers, body);
  StreamResult result;
  try {
    impl_->readHead(result);
    const bool ended = impl_->readBody(method, result, [&](std::string_view piece) {
      result.body.append(piece);
      ++result.pieces;
      if (on_data && !on_data(piece, result.body)) {
        result.hung_up = true;
        return false;
      }
      return true;
    });
    result.complete = ended;
  } catch (const ReadFailure& failure) {
    result.error = failure.what;
  }
  if (!result.complete || !impl_->keepsAlive(result)) impl_->close();
  return result;
}

HttpResponse request(std::string_view method, std::string_view url, const Headers& headers, std::string_view body,
                     std::chrono::milliseconds timeout) {
  const ParsedUrl parsed = parseUrl(url);
  HttpConnection connection(parsed.host, parsed.port, timeout);
  return connection.request(method, parsed.target, headers, body);
}

StreamResult requestStream(std::string_view method, std::string_view url, const Headers& headers,
                           std::string_view body, const OnData& on_data, std::chrono::milliseconds timeout) {
  const ParsedUrl parsed = parseUrl(url);
  HttpConnection connection(parsed.host, parsed.port, timeout);
  return connection.stream(method, parsed.target, headers, body, on_data);
}

}  // namespace sluice::test
