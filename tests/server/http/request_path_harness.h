#pragma once
// The request path in-process: a Gateway over a small catalog, a FakeTransport in place of the
// network, the audit rows kept in memory, and each request sent over a real socket pair so the
// client side reads exactly what a client would (and can hang up).

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>
#include <Poco/Net/HTTPServerParams.h>

#include "catalog/compiler.h"
#include "server/config/catalog_loader.h"
#include "server/audit/sink.h"
#include "server/http/gateway.h"
#include "server/http/handlers.h"
#include "server/http/request.h"
#include "server/routes/route_table.h"
#include "server/http/server_session.h"
#include "server/net/http1.h"
#include "tests/fakes/fake_transport.h"

namespace sluice::testing {

// Two chained deployments of one model on the Anthropic wire (primary, then second), a third on
// OpenAI Chat, and a member-paid one.
inline std::shared_ptr<const catalog::Catalog> requestPathCatalog() {
  catalog::CatalogSources sources;
  sources.credentials = catalog::SourceText{"ai/credentials.yaml", R"(
credentials:
  primary: { kind: platform, secret: env:PRIMARY_KEY }
  second: { kind: platform, secret: env:SECOND_KEY }
  chat: { kind: platform, secret: env:CHAT_KEY }
  mine: { kind: personal }
)"};
  sources.providers = catalog::SourceText{"ai/providers.yaml", R"(
providers:
  primary:
    credential: primary
    retry: { attempts: 2, backoff_ms: 1 }
    breaker: { failures: 2, cooldown_s: 60 }
    endpoints:
      api: { wire: anthropic, url: "https://primary.example" }
  second:
    credential: second
    endpoints:
      api: { wire: anthropic, url: "https://second.example" }
  chat:
    credential: chat
    endpoints:
      api: { wire: openai-chat, url: "https://chat.example/v1" }
  mine:
    credential: mine
    endpoints:
      api: { wire: anthropic, url: "https://mine.example" }
)"};
  sources.models = catalog::SourceText{"ai/models.yaml", R"(
models:
  chain-model:
    pricing: { input_per_million: 1.00, output_per_million: 2.00, cache_read_per_million: 0.10 }
  chat-model:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
  member-model:
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
)"};
  sources.deployments = catalog::SourceText{"ai/deployments.yaml", R"(
deployments:
  chain-model: [primary/api, second/api]
  chat-model: [chat/api]
  member-model: [mine/api, second/api]
)"};
  sources.gateway = catalog::SourceText{"ai/gateway.yaml", R"(
gateway:
  default_model: chain-model
)"};
  sources.env = {{"PRIMARY_KEY", "sk-primary"}, {"SECOND_KEY", "sk-second"}, {"CHAT_KEY", "sk-chat"}};
  auto result = catalog::compileCatalog(sources);
  if (!result.ok()) {
    std::string text;
    for (const auto& diagnostic : result.diagnostics) text += diagnostic.format() + "\n";
    throw std::runtime_error("request path test catalog is invalid:\n" + text);
  }
  return result.catalog;
}

// Audit rows, kept in memory.
class RecordingSink : public audit::Sink {
 public:
  void submit(audit::Record record) noexcept override {
    std::lock_guard lock(mutex_);
    rows_.push_back(std::move(record));
  }
  std::vector<audit::Record> rows() const {
    std::lock_guard lock(mutex_);
    return rows_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<audit::Record> rows_;
};

struct Reply {
  int status = 0;
  std::string head;
  std::string body;
  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
};

// A header of a request the gateway sent upstream; "" when absent. Names compare without case.
inline std::string sentHeader(const upstream::Request& request, const std::string& name) {
  for (const auto& [key, value] : request.headers) {
    if (strcasecmp(key.c_str(), name.c_str()) == 0) return value;
  }
  return "";
}

// `sources` compiled with the gateway's data-protection detector attached, as boot does; fails
// the test when the catalog is invalid.
inline std::shared_ptr<const catalog::Catalog> compileProtected(const catalog::CatalogSources& sources) {
  auto result = catalog::compileCatalog(sources);
  config::attachDataProtection(result);
  BOOST_TEST_REQUIRE(result.ok());
  return result.catalog;
}

inline std::string anthropicAnswer(const std::string& text = "hello") {
  return nlohmann::json{{"id", "msg_1"},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"model", "upstream"},
                        {"content", {{{"type", "text"}, {"text", text}}}},
                        {"stop_reason", "end_turn"},
                        {"usage", {{"input_tokens", 10}, {"output_tokens", 3}}}}
      .dump();
}

inline std::string messagesBody(const std::string& model, bool stream = false) {
  return nlohmann::json{{"model", model},
                        {"max_tokens", 50},
                        {"stream", stream},
                        {"messages", {{{"role", "user"}, {"content", "hi"}}}}}
      .dump();
}

// `wiring` (identity, the Responses store: tests/server/pipeline/keyed_request_path.h) with the
// fake transport and the in-memory audit sink.
inline http::Wiring fakeWiring(upstream::Transport& transport, audit::Sink& sink, http::Wiring wiring = {}) {
  wiring.transport = &transport;
  wiring.audit_sink = &sink;
  return wiring;
}

class RequestPath {
 public:
  explicit RequestPath(std::shared_ptr<const catalog::Catalog> catalog = requestPathCatalog(), http::Wiring wiring = {})
      : gateway_(http::ServerOptions{}, std::move(catalog), fakeWiring(transport, sink, std::move(wiring))),
        router_(gateway_) {}

  fakes::FakeTransport transport;
  RecordingSink sink;
  // When set, answers every request instead of the route table (a room's own handler).
  http::HandlerFactory handler;
  http::Gateway& gateway() { return gateway_; }

  // Sends one request through the router on a socket pair. `on_client`, when given, runs on its
  // own thread with the client's end of the pair (it may read, or close it to hang up); the reply
  // is then what it left unread.
  Reply send(const std::string& method, const std::string& path, const std::string& body,
             std::vector<std::pair<std::string, std::string>> headers = {},
             std::function<void(int client_fd)> on_client = {}) {
    int fds[2];
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    // Host and Content-Type as a local client sends them, unless the test gives its own.
    const auto given = [&](const char* name) {
      for (const auto& header : headers) {
        if (strcasecmp(header.first.c_str(), name) == 0) return true;
      }
      return false;
    };
    std::string text = method + " " + path + " HTTP/1.1\r\n";
    if (!given("Host")) text += "Host: 127.0.0.1\r\n";
    if (!given("Content-Type")) text += "Content-Type: application/json\r\n";
    for (const auto& [name, value] : headers) text += name + ": " + value + "\r\n";
    text += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    std::thread writer([&] {
      std::string_view rest = text;
      while (!rest.empty()) {
        const ssize_t n = ::send(fds[1], rest.data(), rest.size(), MSG_NOSIGNAL);
        if (n <= 0) break;
        rest.remove_prefix(static_cast<size_t>(n));
      }
    });
    std::thread client;
    bool client_closed = false;
    {
      http::ClientSocket socket(fds[0]);
      net::h1::RequestHead head;
      net::h1::HeadResult parsed;
      for (;;) {
        parsed = net::h1::parseRequestHead(socket.buffered(), {}, head);
        if (parsed.status != net::h1::HeadStatus::Incomplete) break;
        BOOST_REQUIRE(socket.fill() > 0);
      }
      BOOST_REQUIRE(static_cast<int>(parsed.status) == static_cast<int>(net::h1::HeadStatus::Complete));
      Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
      http::ServerResponse response(socket);
      http::ServerRequest request(socket, response, *params, head);
      socket.consume(parsed.consumed);
      response.setVersion(request.getVersion());
      http::Request routed(request, "req-" + std::to_string(++count_), &gateway_.clientWatch());
      response.set("x-sluice-request-id", routed.id());
      writer.join();
      if (on_client) {
        client = std::thread([&] { on_client(fds[1]); });
        client_closed = true;
      }
      (handler ? handler(routed) : router_.route(routed))->handle(routed, response);
      response.finish();
    }
    ::shutdown(fds[0], SHUT_WR);
    if (client.joinable()) client.join();
    Reply reply;
    if (!client_closed) reply = readReply(fds[1]);
    ::close(fds[0]);
    if (!client_closed) ::close(fds[1]);
    return reply;
  }

  // What a client reads off `fd` until the server's side is closed.
  static Reply readReply(int fd) {
    std::string raw;
    char buffer[8192];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      raw.append(buffer, static_cast<size_t>(n));
    }
    Reply reply;
    const size_t end = raw.find("\r\n\r\n");
    if (end == std::string::npos) return reply;
    reply.head = raw.substr(0, end);
    reply.status = std::stoi(raw.substr(9, 3));
    reply.body = raw.substr(end + 4);
    if (reply.head.find("chunked") != std::string::npos) reply.body = unchunk(reply.body);
    return reply;
  }

  static std::string unchunk(const std::string& body) {
    std::string out;
    size_t at = 0;
    while (at < body.size()) {
      const size_t line = body.find("\r\n", at);
      if (line == std::string::npos) break;
      const size_t size = std::stoul(body.substr(at, line - at), nullptr, 16);
      if (size == 0) break;
      out += body.substr(line + 2, size);
      at = line + 2 + size + 2;
    }
    return out;
  }

  // The only row; fails the test when there is not exactly one.
  audit::Record onlyRow() const {
    const auto rows = sink.rows();
    BOOST_REQUIRE_EQUAL(rows.size(), 1u);
    return rows.front();
  }

 private:
  http::Gateway gateway_;
  routes::RouteTable router_;
  int count_ = 0;
};

}  // namespace sluice::testing
