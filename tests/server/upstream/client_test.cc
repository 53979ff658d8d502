// The upstream client against small scripted servers on loopback (plain and TLS): framing, reuse,
// retry of a stale pooled connection, timeouts, cancellation, malformed answers, certificates;
// and the same client on a fiber (net/fiber.h), where every wait parks the fiber.
#define BOOST_TEST_MODULE upstream_tests
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <future>

#include "server/net/fiber.h"
#include "server/upstream/client.h"

namespace sluice::upstream {
namespace {

using namespace std::chrono_literals;

// How long any wait of a scripted server lasts at most: a test that goes wrong fails within
// seconds instead of hanging.
constexpr auto kPatience = 5s;

// A gate one thread opens and others wait for, every wait bounded.
class Gate {
 public:
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }
  // True when the gate opened within `patience`.
  bool waitFor(std::chrono::milliseconds patience) {
    std::unique_lock lock(mutex_);
    return opened_.wait_for(lock, patience, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// One accepted connection, as the script sees it. Its reads and writes give up after kPatience.
class Peer {
 public:
  Peer(int fd, SSL* ssl, Gate& released) : fd_(fd), ssl_(ssl), released_(released) {
    timeval patience{};
    patience.tv_sec = std::chrono::duration_cast<std::chrono::seconds>(kPatience).count();
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof patience);
  }
  ~Peer() {
    if (ssl_) {
      SSL_shutdown(ssl_);
      SSL_free(ssl_);
    }
    ::close(fd_);
  }
  // Reads one request (head and Content-Length body); "" when the client closed.
  std::string readRequest() {
    for (;;) {
      const size_t head_end = buffer_.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        size_t length = 0;
        const size_t at = lower(buffer_.substr(0, head_end)).find("content-length: ");
        if (at != std::string::npos) length = std::stoul(buffer_.substr(at + 16));
        const size_t total = head_end + 4 + length;
        if (buffer_.size() >= total) {
          std::string request = buffer_.substr(0, total);
          buffer_.erase(0, total);
          return request;
        }
      }
      char chunk[4096];
      const int n = ssl_ ? SSL_read(ssl_, chunk, sizeof chunk) : static_cast<int>(::read(fd_, chunk, sizeof chunk));
      if (n <= 0) return {};
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }
  // Keeps the connection open and silent until the server goes (or kPatience passes).
  void holdUntilReleased() { released_.waitFor(kPatience); }
  void write(std::string_view bytes) {
    if (ssl_) {
      SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
    } else {
      while (!bytes.empty()) {
        const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) return;
        bytes.remove_prefix(static_cast<size_t>(n));
      }
    }
  }

 private:
  static std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }
  int fd_;
  SSL* ssl_;
  Gate& released_;
  std::string buffer_;
};

// Serves each accepted connection with `script` on its own thread; counts connections.
class Server {
 public:
  using Script = std::function<void(Peer&)>;
  explicit Server(Script script, SSL_CTX* tls = nullptr) : script_(std::move(script)), tls_(tls) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    BOOST_REQUIRE(::listen(listener_, 64) == 0);
    socklen_t length = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] {
      for (;;) {
        const int fd = ::accept(listener_, nullptr, nullptr);
        if (fd < 0) return;
        ++connections_;
        workers_.emplace_back([this, fd] {
          SSL* ssl = nullptr;
          if (tls_) {
            ssl = SSL_new(tls_);
            SSL_set_fd(ssl, fd);
            if (SSL_accept(ssl) != 1) {
              SSL_free(ssl);
              ::close(fd);
              return;
            }
          }
          Peer peer(fd, ssl, released_);
          script_(peer);
        });
      }
    });
  }
  ~Server() {
    released_.open();  // scripts holding a connection let go at once
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    acceptor_.join();
    for (auto& worker : workers_) worker.join();
  }
  std::string url(const std::string& host = "127.0.0.1") const {
    return std::string(tls_ ? "https://" : "http://") + host + ":" + std::to_string(port_);
  }
  int connections() const { return connections_.load(); }

 private:
  Script script_;
  SSL_CTX* tls_;
  Gate released_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::vector<std::thread> workers_;
};

Request post(const std::string& url, std::string body = R"({"model":"m"})") {
  Request request;
  request.url = url;
  request.body = std::move(body);
  request.headers = {{"Content-Type", "application/json"}, {"x-api-key", "secret"}};
  request.timeouts.connect_ms = 2000;
  request.timeouts.first_byte_ms = 2000;
  request.timeouts.idle_ms = 2000;
  return request;
}

const std::string kOk = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}";

// Answers every request on the connection with `answer`, as long as the client sends requests.
Server::Script answerAll(std::string answer) {
  return [answer](Peer& peer) {
    while (!peer.readRequest().empty()) peer.write(answer);
  };
}

BOOST_AUTO_TEST_SUITE(plain)

BOOST_AUTO_TEST_CASE(a_request_goes_out_framed_and_the_answer_comes_back) {
  std::string seen;
  Server server([&](Peer& peer) {
    seen = peer.readRequest();
    peer.write(kOk);
  });
  Client client;
  auto answer = client.send(post(server.url() + "/v1/messages?beta=true", "{\"a\":1}"));
  BOOST_TEST(answer->status() == 200);
  BOOST_TEST(answer->header("content-type") == "application/json");
  BOOST_TEST(answer->readAll() == "{\"ok\":true}");
  answer.reset();
  BOOST_TEST(seen.starts_with("POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:"));
  BOOST_TEST(seen.find("\r\nx-api-key: secret\r\n") != std::string::npos);
  BOOST_TEST(seen.find("\r\nContent-Length: 7\r\n") != std::string::npos);
  BOOST_TEST(seen.ends_with("\r\n\r\n{\"a\":1}"));
}

BOOST_AUTO_TEST_CASE(a_header_value_never_carries_a_line_break_into_the_head) {
  std::string seen;
  Server server([&](Peer& peer) {
    seen = peer.readRequest();
    peer.write(kOk);
  });
  Client client;
  Request request = post(server.url() + "/v1/messages", "{}");
  request.headers.emplace_back("x-note", "one\r\nx-injected: yes\ntwo\r");
  client.send(request)->readAll();
  BOOST_TEST(seen.find("\r\nx-note: one  x-injected: yes two \r\n") != std::string::npos);
  BOOST_TEST(seen.find("\r\nx-injected") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_kept_alive_connection_is_reused_after_a_whole_answer) {
  Server server(answerAll(kOk));
  Client client;
  for (int i = 0; i < 5; ++i) BOOST_TEST(client.send(post(server.url()))->readAll() == "{\"ok\":true}");
  BOOST_TEST(server.connections() == 1);
}

BOOST_AUTO_TEST_CASE(an_answer_left_unread_is_not_reused) {
  Server server(answerAll(kOk));
  Client client;
  client.send(post(server.url()));  // dropped before its body was read
  BOOST_TEST(client.send(post(server.url()))->readAll() == "{\"ok\":true}");
  BOOST_TEST(server.connections() == 2);
}

BOOST_AUTO_TEST_CASE(a_chunked_answer_is_decoded_piece_by_piece) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata:");
    std::this_thread::sleep_for(20ms);
    peer.write(" 1\n\n\r\n7;ext=1\r\ndata: 2\r\n0\r\n\r\n");
    peer.readRequest();
  });
  Client client;
  auto answer = client.send(post(server.url()));
  BOOST_TEST(answer->status() == 200);
  std::string body;
  int reads = 0;
  while (answer->readSome(body)) ++reads;
  BOOST_TEST(body == "data: 1\n\ndata: 2");
  BOOST_TEST(reads >= 2);
}

BOOST_AUTO_TEST_CASE(an_answer_without_length_ends_at_close_and_is_not_reused) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end");
  });
  Client client;
  BOOST_TEST(client.send(post(server.url()))->readAll() == "until the end");
  BOOST_TEST(client.send(post(server.url()))->readAll() == "until the end");
  BOOST_TEST(server.connections() == 2);
}

BOOST_AUTO_TEST_CASE(bodies_are_framed_by_the_shared_rules) {
  {
    // Repeated identical lengths are one length: the answer ends there and the connection is kept.
    Server server(answerAll("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok"));
    Client client;
    for (int i = 0; i < 2; ++i) BOOST_TEST(client.send(post(server.url()))->readAll() == "ok");
    BOOST_TEST(server.connections() == 1);
  }
  {
    // chunked not the final coding: the answer runs until the provider closes.
    Server server([](Peer& peer) {
      peer.readRequest();
      peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n3\r\nraw");
    });
    Client client;
    BOOST_TEST(client.send(post(server.url()))->readAll() == "3\r\nraw");
  }
  {
    // A coding before chunked: decoded as chunked, the coded bytes handed on as they are.
    Server server(answerAll("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nzz\r\n0\r\n\r\n"));
    Client client;
    BOOST_TEST(client.send(post(server.url()))->readAll() == "zz");
  }
  {
    Server server(answerAll("HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nok"));
    Client client;
    try {
      client.send(post(server.url()));
      BOOST_FAIL("no error");
    } catch (const TransportError& error) {
      BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Protocol));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_pooled_connection_the_provider_closed_is_retried_once_on_a_fresh_one) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.write(kOk);
    peer.readRequest();  // reads the second request and closes without answering
  });
  Client client;
  BOOST_TEST(client.send(post(server.url()))->readAll() == "{\"ok\":true}");
  BOOST_TEST(client.send(post(server.url()))->readAll() == "{\"ok\":true}");
  BOOST_TEST(server.connections() == 2);
}

BOOST_AUTO_TEST_CASE(a_fresh_connection_closed_without_an_answer_is_a_reset) {
  Server server([](Peer& peer) { peer.readRequest(); });
  Client client;
  try {
    client.send(post(server.url()));
    BOOST_FAIL("no error");
  } catch (const TransportError& error) {
    BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Reset));
  }
}

BOOST_AUTO_TEST_CASE(a_silent_provider_times_out_after_first_byte_ms) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.holdUntilReleased();
  });
  Client client;
  Request request = post(server.url());
  request.timeouts.first_byte_ms = 300;
  const auto started = std::chrono::steady_clock::now();
  try {
    client.send(request);
    BOOST_FAIL("no error");
  } catch (const TransportError& error) {
    BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Timeout));
  }
  const auto waited_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  BOOST_TEST(waited_ms >= 250);
  BOOST_TEST(waited_ms < 2000);
}

BOOST_AUTO_TEST_CASE(a_stream_that_stalls_times_out_after_idle_ms) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
    peer.holdUntilReleased();
  });
  Client client;
  Request request = post(server.url());
  request.timeouts.idle_ms = 300;
  auto answer = client.send(request);
  std::string body;
  BOOST_TEST(answer->readSome(body));
  BOOST_TEST(body == "abc");
  BOOST_CHECK_THROW(answer->readSome(body), TransportError);
}

BOOST_AUTO_TEST_CASE(nobody_listening_is_a_connect_failure) {
  int port = 0;
  {
    Server server(answerAll(kOk));
    port = std::stoi(server.url().substr(server.url().rfind(':') + 1));
  }
  Client client;
  try {
    client.send(post("http://127.0.0.1:" + std::to_string(port)));
    BOOST_FAIL("no error");
  } catch (const TransportError& error) {
    BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Connect));
  }
  BOOST_CHECK_THROW(client.send(post("ftp://127.0.0.1/")), TransportError);
}

BOOST_AUTO_TEST_CASE(cancelling_stops_a_blocked_read_at_once) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    peer.holdUntilReleased();
  });
  Client client;
  Cancel cancel;
  Request request = post(server.url());
  request.timeouts.idle_ms = 10000;
  auto answer = client.send(request, &cancel);
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    cancel.cancel();
  });
  const auto started = std::chrono::steady_clock::now();
  std::string body;
  BOOST_CHECK_THROW(while (answer->readSome(body)) {}, TransportError);
  const auto waited_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
  BOOST_TEST(waited_ms < 2000);
  canceller.join();
}

BOOST_AUTO_TEST_CASE(a_malformed_answer_is_a_protocol_failure) {
  for (const std::string& answer : {std::string("SSH-2.0-OpenSSH_9.2\r\n\r\n"),
                                   std::string("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"),
                                   std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")}) {
    Server server([answer](Peer& peer) {
      peer.readRequest();
      peer.write(answer);
      peer.readRequest();
    });
    Client client;
    try {
      client.send(post(server.url()))->readAll();
      BOOST_FAIL("no error for " << answer);
    } catch (const TransportError& error) {
      BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Protocol), answer);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// A self-signed certificate for "localhost" (no IP address in it), written where OpenSSL's
// default verify paths will look (SSL_CERT_FILE).
struct Certificate {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  std::string path;

  Certificate() {
    key = EVP_EC_gen("P-256");
    cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, cert, cert, nullptr, nullptr, 0);
    for (const auto& [nid, value] : std::vector<std::pair<int, const char*>>{
             {NID_subject_alt_name, "DNS:localhost"}, {NID_basic_constraints, "critical,CA:TRUE"}}) {
      X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
      X509_add_ext(cert, extension, -1);
      X509_EXTENSION_free(extension);
    }
    X509_sign(cert, key, EVP_sha256());
    char pattern[] = "/tmp/sluice-upstream-ca-XXXXXX";
    const int fd = ::mkstemp(pattern);
    ::close(fd);
    path = pattern;
    FILE* file = std::fopen(path.c_str(), "w");
    PEM_write_X509(file, cert);
    std::fclose(file);
  }
  ~Certificate() {
    std::remove(path.c_str());
    X509_free(cert);
    EVP_PKEY_free(key);
  }
  SSL_CTX* serverContext() const {
    SSL_CTX* context = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(context, cert);
    SSL_CTX_use_PrivateKey(context, key);
    return context;
  }
};

// One certificate for the whole run: the client reads the trust store once.
Certificate& testCertificate() {
  static Certificate certificate;
  return certificate;
}

BOOST_AUTO_TEST_SUITE(tls)

BOOST_AUTO_TEST_CASE(https_works_with_a_trusted_certificate_and_refuses_a_name_it_does_not_cover) {
  Certificate& certificate = testCertificate();
  // Before the client's first TLS connection: the trust store is read once.
  ::setenv("SSL_CERT_FILE", certificate.path.c_str(), 1);
  SSL_CTX* context = certificate.serverContext();
  {
    std::string seen;
    Server server(
        [&](Peer& peer) {
          for (std::string request; !(request = peer.readRequest()).empty();) {
            seen = request;
            peer.write(kOk);
          }
        },
        context);
    Client client;
    for (int i = 0; i < 3; ++i) {
      auto answer = client.send(post(server.url("localhost") + "/v1/chat/completions"));
      BOOST_TEST(answer->status() == 200);
      BOOST_TEST(answer->readAll() == "{\"ok\":true}");
    }
    BOOST_TEST(server.connections() == 1);
    BOOST_TEST(seen.starts_with("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost:"));

    // The certificate names localhost, not 127.0.0.1.
    try {
      client.send(post(server.url("127.0.0.1")));
      BOOST_FAIL("no error");
    } catch (const TransportError& error) {
      BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Tls));
      BOOST_TEST(std::string(error.what()).find("certificate") != std::string::npos, error.what());
    }
  }
  SSL_CTX_free(context);
}

BOOST_AUTO_TEST_CASE(a_plain_server_on_an_https_url_is_a_tls_failure) {
  Server server(answerAll(kOk));
  Client client;
  Request request = post("https://localhost:" + server.url().substr(server.url().rfind(':') + 1));
  request.timeouts.connect_ms = 500;
  try {
    client.send(request);
    BOOST_FAIL("no error");
  } catch (const TransportError& error) {
    BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Tls));
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- On a fiber ---------------------------------------------------------------------------------

// Runs `body` on a fiber of `loop` and waits for it; what it throws comes out here.
template <class Body>
void onFiber(net::fiber::Loop& loop, Body body) {
  std::promise<void> done;
  loop.spawn([&] {
    try {
      body();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  auto finished = done.get_future();
  BOOST_REQUIRE(finished.wait_for(20s) == std::future_status::ready);
  finished.get();
}

BOOST_AUTO_TEST_SUITE(on_a_fiber)

BOOST_AUTO_TEST_CASE(exchanges_reuse_the_connection_and_a_large_chunked_answer_arrives_whole) {
  const std::string big(3 << 20, 'q');  // larger than the socket buffers: the reads must wait
  Server server([&](Peer& peer) {
    for (std::string request; !(request = peer.readRequest()).empty();) {
      if (request.find("big") != std::string::npos) {
        peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (size_t at = 0; at < big.size(); at += 65536) {
          char size[16];
          std::snprintf(size, sizeof size, "%zx\r\n", std::min<size_t>(65536, big.size() - at));
          peer.write(std::string(size) + big.substr(at, 65536) + "\r\n");
        }
        peer.write("0\r\n\r\n");
      } else {
        peer.write(kOk);
      }
    }
  });
  net::fiber::Loop loop({1});
  Client client;
  onFiber(loop, [&] {
    BOOST_REQUIRE(net::fiber::active());
    for (int i = 0; i < 5; ++i) BOOST_TEST(client.send(post(server.url()))->readAll() == "{\"ok\":true}");
    const std::string body = client.send(post(server.url(), "{\"big\":true}"))->readAll();
    BOOST_TEST(body.size() == big.size());
    BOOST_TEST((body == big));
  });
  BOOST_TEST(server.connections() == 1);
  // The pooled connection, non-blocking since the fiber used it, serves a thread again.
  BOOST_TEST(client.send(post(server.url()))->readAll() == "{\"ok\":true}");
  BOOST_TEST(server.connections() == 1);
}

BOOST_AUTO_TEST_CASE(a_silent_provider_times_out_while_the_worker_serves_others) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.holdUntilReleased();
  });
  net::fiber::Loop loop({1});
  Client client;
  std::atomic<int> ticks{0};
  std::atomic<bool> waiting{true};
  loop.spawn([&] {  // a second fiber on the same worker, ticking while the first one waits
    const auto until = std::chrono::steady_clock::now() + kPatience;
    while (waiting.load() && std::chrono::steady_clock::now() < until) {
      net::fiber::sleepFor(10ms);
      ++ticks;
    }
  });
  onFiber(loop, [&] {
    Request request = post(server.url());
    request.timeouts.first_byte_ms = 300;
    const auto started = std::chrono::steady_clock::now();
    try {
      client.send(request);
      BOOST_FAIL("no error");
    } catch (const TransportError& error) {
      BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Timeout));
    }
    const auto waited = std::chrono::steady_clock::now() - started;
    BOOST_TEST((waited >= 250ms));
    BOOST_TEST((waited < 2000ms));
  });
  waiting = false;
  BOOST_TEST(ticks.load() >= 5);  // the worker was free while the exchange waited
}

BOOST_AUTO_TEST_CASE(cancelling_from_another_thread_ends_a_parked_read_and_a_parked_backoff) {
  Server server([](Peer& peer) {
    peer.readRequest();
    peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    peer.holdUntilReleased();
  });
  net::fiber::Loop loop({1});
  Client client;
  Cancel cancel;
  std::promise<void> reading;
  std::thread canceller([&] {
    reading.get_future().wait_for(kPatience);  // bounded: a send that failed never sets it
    std::this_thread::sleep_for(100ms);
    cancel.cancel();
  });
  onFiber(loop, [&] {
    Request request = post(server.url());
    request.timeouts.idle_ms = 10000;
    auto answer = client.send(request, &cancel);
    reading.set_value();
    const auto started = std::chrono::steady_clock::now();
    std::string body;
    BOOST_CHECK_THROW(while (answer->readSome(body)) {}, TransportError);
    BOOST_TEST((std::chrono::steady_clock::now() - started < 2000ms));
  });
  canceller.join();

  // A backoff between attempts (Cancel::waitFor) parks the fiber and ends early when cancelled.
  Cancel backoff;
  std::promise<void> sleeping;
  std::thread waker([&] {
    sleeping.get_future().wait_for(kPatience);
    std::this_thread::sleep_for(50ms);
    backoff.cancel();
  });
  onFiber(loop, [&] {
    sleeping.set_value();
    const auto started = std::chrono::steady_clock::now();
    BOOST_TEST(!backoff.waitFor(10s));
    BOOST_TEST((std::chrono::steady_clock::now() - started < 2000ms));
    BOOST_TEST(!backoff.waitFor(10s));  // already cancelled: at once
  });
  waker.join();
  onFiber(loop, [&] {
    Cancel untouched;
    BOOST_TEST(untouched.waitFor(20ms));  // the whole wait, not cancelled
  });
}

BOOST_AUTO_TEST_CASE(https_handshakes_without_blocking_and_still_checks_the_name) {
  Certificate& certificate = testCertificate();
  ::setenv("SSL_CERT_FILE", certificate.path.c_str(), 1);
  SSL_CTX* context = certificate.serverContext();
  {
    Server server(answerAll(kOk), context);
    net::fiber::Loop loop({1});
    Client client;
    onFiber(loop, [&] {
      for (int i = 0; i < 3; ++i) {
        auto answer = client.send(post(server.url("localhost") + "/v1/chat/completions"));
        BOOST_TEST(answer->status() == 200);
        BOOST_TEST(answer->readAll() == "{\"ok\":true}");
      }
      try {
        client.send(post(server.url("127.0.0.1")));
        BOOST_FAIL("no error");
      } catch (const TransportError& error) {
        BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Tls));
      }
    });
    BOOST_TEST(server.connections() == 2);
  }
  SSL_CTX_free(context);
}

BOOST_AUTO_TEST_CASE(nobody_listening_is_a_connect_failure_on_a_fiber_too) {
  int port = 0;
  {
    Server server(answerAll(kOk));
    port = std::stoi(server.url().substr(server.url().rfind(':') + 1));
  }
  net::fiber::Loop loop({1});
  Client client;
  onFiber(loop, [&] {
    try {
      client.send(post("http://127.0.0.1:" + std::to_string(port)));
      BOOST_FAIL("no error");
    } catch (const TransportError& error) {
      BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Connect));
    }
    // A name, not an address: resolved on a helper thread.
    try {
      client.send(post("http://localhost:" + std::to_string(port)));
      BOOST_FAIL("no error");
    } catch (const TransportError& error) {
      BOOST_TEST(static_cast<int>(error.failure()) == static_cast<int>(TransportFailure::Connect));
    }
  });
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::upstream
