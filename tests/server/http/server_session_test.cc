// The connection layer over a real socket pair: what the client side of the pair receives is
// exactly what a client would.
#define BOOST_TEST_MODULE http_tests
#include <boost/test/unit_test.hpp>

#include <string>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

#include <Poco/Net/HTTPServerParams.h>

#include "server/net/http1.h"
#include "server/http/server_session.h"

namespace sluice::http {
namespace {

struct Pair {
  int server = -1;
  int client = -1;
  Pair() {
    int fds[2];
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    server = fds[0];
    client = fds[1];
  }
  ~Pair() {
    if (server >= 0) ::close(server);
    if (client >= 0) ::close(client);
  }
  void send(std::string_view bytes) const {
    while (!bytes.empty()) {
      const ssize_t n = ::write(client, bytes.data(), bytes.size());
      BOOST_REQUIRE(n > 0);
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }
  void closeClient() {
    ::close(client);
    client = -1;
  }
  // Everything the server side wrote, once it closed its end.
  std::string received() {
    ::shutdown(server, SHUT_WR);
    std::string out;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(client, buffer, sizeof buffer);
      if (n <= 0) break;
      out.append(buffer, static_cast<size_t>(n));
    }
    return out;
  }
};

// Reads a head from the socket and builds the request the handlers would get.
struct Exchange {
  ClientSocket socket;
  h1::RequestHead head;
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  std::unique_ptr<ServerResponse> response;
  std::unique_ptr<ServerRequest> request;

  explicit Exchange(int fd) : socket(fd) {
    h1::HeadResult parsed;
    for (;;) {
      parsed = h1::parseRequestHead(socket.buffered(), {}, head);
      if (parsed.status != h1::HeadStatus::Incomplete) break;
      BOOST_REQUIRE(socket.fill() > 0);
    }
    BOOST_REQUIRE(static_cast<int>(parsed.status) == static_cast<int>(h1::HeadStatus::Complete));
    response = std::make_unique<ServerResponse>(socket);
    request = std::make_unique<ServerRequest>(socket, *response, *params, head);
    socket.consume(parsed.consumed);
    response->setVersion(request->getVersion());
  }
  std::string body() {
    std::string out;
    char buffer[1000];
    std::istream& in = request->stream();
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) out.append(buffer, static_cast<size_t>(in.gcount()));
    return out;
  }
};

BOOST_AUTO_TEST_SUITE(server_session)

BOOST_AUTO_TEST_CASE(a_body_with_a_length_is_read_exactly_and_the_next_request_stays_buffered) {
  Pair pair;
  pair.send("POST /v1/messages HTTP/1.1\r\nContent-Length: 11\r\nx-api-key: k\r\n\r\nhello");
  std::thread later([&] { pair.send(" world" "GET /next HTTP/1.1\r\n\r\n"); });
  Exchange exchange(pair.server);
  BOOST_TEST(exchange.request->getMethod() == "POST");
  BOOST_TEST(exchange.request->get("X-Api-Key") == "k");
  BOOST_TEST(exchange.body() == "hello world");
  later.join();
  BOOST_TEST(exchange.request->body().complete());
  // The rest is the next request, untouched.
  while (exchange.socket.buffered().size() < 22) BOOST_REQUIRE(exchange.socket.fill() > 0);
  BOOST_TEST(exchange.socket.buffered() == "GET /next HTTP/1.1\r\n\r\n");
}

BOOST_AUTO_TEST_CASE(a_large_body_arrives_whole) {
  Pair pair;
  std::string body(300000, 'x');
  for (size_t i = 0; i < body.size(); i += 997) body[i] = static_cast<char>('a' + i % 26);
  std::thread writer([&] { pair.send("POST / HTTP/1.1\r\nContent-Length: 300000\r\n\r\n" + body); });
  Exchange exchange(pair.server);
  std::string read(300000, '\0');
  exchange.request->stream().read(read.data(), static_cast<std::streamsize>(read.size()));
  writer.join();
  BOOST_TEST(exchange.request->stream().gcount() == 300000);
  BOOST_TEST((read == body));
  BOOST_TEST(exchange.request->body().complete());
}

BOOST_AUTO_TEST_CASE(a_chunked_body_is_decoded) {
  Pair pair;
  pair.send("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n");
  std::thread later([&] { pair.send("3\r\n:1}\r\n0\r\n\r\n"); });
  Exchange exchange(pair.server);
  BOOST_TEST(exchange.request->framingError().empty());
  BOOST_TEST(exchange.body() == "{\"a\":1}");
  later.join();
  BOOST_TEST(exchange.request->body().complete());
}

BOOST_AUTO_TEST_CASE(a_body_cut_short_is_a_failure_not_a_hang) {
  Pair pair;
  pair.send("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly this");
  Exchange exchange(pair.server);
  pair.closeClient();
  BOOST_TEST(exchange.body() == "only this");
  BOOST_TEST(exchange.request->body().failed());
  BOOST_TEST(!exchange.request->body().complete());
}

BOOST_AUTO_TEST_CASE(ambiguous_framing_is_refused) {
  const char* heads[] = {
      "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, identity\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n",
  };
  for (const char* head : heads) {
    Pair pair;
    pair.send(head);
    Exchange exchange(pair.server);
    BOOST_TEST(!exchange.request->framingError().empty(), head);
  }
  for (const char* head : {"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
                           "POST / HTTP/1.1\r\nContent-Length: 2, 2\r\n\r\n{}",
                           "POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"}) {
    Pair same;
    same.send(head);
    Exchange exchange(same.server);
    BOOST_TEST(exchange.request->framingError().empty(), head);
    BOOST_TEST(exchange.body() == "{}", head);
  }
}

// Whoever reads Content-Length after the framing (the request's declared size, an upload's)
// reads the one parsed value, never the list a client wrote: a list used to throw there (500).
BOOST_AUTO_TEST_CASE(a_content_length_list_reads_as_its_one_value) {
  for (const char* head : {"POST / HTTP/1.1\r\nContent-Length: 2, 2\r\n\r\n{}",
                           "POST / HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 2,2\r\n\r\n{}"}) {
    Pair pair;
    pair.send(head);
    Exchange exchange(pair.server);
    BOOST_TEST_REQUIRE(exchange.request->framingError().empty(), head);
    BOOST_TEST(exchange.request->hasContentLength(), head);
    BOOST_TEST(exchange.request->getContentLength64() == 2, head);
    BOOST_TEST(exchange.request->get("Content-Length") == "2", head);
    BOOST_TEST(exchange.body() == "{}", head);
  }
  Pair zero;
  zero.send("POST / HTTP/1.1\r\nContent-Length: 0, 0\r\n\r\n");
  Exchange empty(zero.server);
  BOOST_TEST(empty.request->getContentLength64() == 0);
}

BOOST_AUTO_TEST_CASE(a_whole_answer_is_head_and_body_in_one) {
  Pair pair;
  pair.send("GET /healthz HTTP/1.1\r\n\r\n");
  {
    Exchange exchange(pair.server);
    exchange.response->setContentType("application/json");
    exchange.response->set("x-sluice-request-id", "r1");
    exchange.response->sendBuffer("{}", 2);
    BOOST_TEST(exchange.response->sent());
    BOOST_TEST(exchange.response->finish());
  }
  BOOST_TEST(pair.received() ==
             "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-sluice-request-id: r1\r\n"
             "Content-Length: 2\r\n\r\n{}");
}

BOOST_AUTO_TEST_CASE(row11_status_lines_carry_their_own_reason) {
  const std::pair<Poco::Net::HTTPResponse::HTTPStatus, std::string> cases[] = {
      {Poco::Net::HTTPResponse::HTTP_METHOD_NOT_ALLOWED, "HTTP/1.1 405 Method Not Allowed\r\n"},
      {Poco::Net::HTTPResponse::HTTP_TOO_MANY_REQUESTS, "HTTP/1.1 429 Too Many Requests\r\n"},
      {Poco::Net::HTTPResponse::HTTP_UNAUTHORIZED, "HTTP/1.1 401 Unauthorized\r\n"},
      {static_cast<Poco::Net::HTTPResponse::HTTPStatus>(529), "HTTP/1.1 529 Overloaded\r\n"},
      {static_cast<Poco::Net::HTTPResponse::HTTPStatus>(599), "HTTP/1.1 599 Unknown\r\n"},
  };
  for (const auto& [status, line] : cases) {
    Pair pair;
    pair.send("GET /x HTTP/1.1\r\n\r\n");
    {
      Exchange exchange(pair.server);
      exchange.response->setStatus(status);  // as the handlers do: the reason is not set with it
      exchange.response->sendBuffer("", 0);
    }
    const std::string received = pair.received();
    BOOST_TEST(received.substr(0, received.find("\r\n") + 2) == line);
  }
}

BOOST_AUTO_TEST_CASE(a_stream_is_chunked_one_chunk_per_flush_and_ended) {
  Pair pair;
  pair.send("POST /v1/messages HTTP/1.1\r\n\r\n");
  {
    Exchange exchange(pair.server);
    exchange.response->setChunkedTransferEncoding(true);
    exchange.response->setContentType("text/event-stream");
    std::ostream& out = exchange.response->send();
    out << "data: one\n\n";
    out.flush();
    out << "data: " << std::string(20000, 'z') << "\n\n";  // larger than the write buffer
    out.flush();
    BOOST_TEST(out.good());
    BOOST_TEST(exchange.response->finish());
  }
  const std::string text = pair.received();
  const std::string head =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n";
  BOOST_REQUIRE_MESSAGE(text.starts_with(head), text.substr(0, 200));
  std::string rest = text.substr(head.size());
  BOOST_TEST(rest.starts_with("b\r\ndata: one\n\n\r\n"));
  BOOST_TEST(rest.ends_with("\r\n0\r\n\r\n"));
  BOOST_TEST(rest.find("\r\n4e26\r\ndata: zzz") != std::string::npos);  // "data: " and the 20000 bytes, one chunk
}

BOOST_AUTO_TEST_CASE(an_empty_stream_still_sends_its_head_and_end) {
  Pair pair;
  pair.send("POST / HTTP/1.1\r\n\r\n");
  {
    Exchange exchange(pair.server);
    exchange.response->setChunkedTransferEncoding(true);
    exchange.response->send().flush();
    BOOST_TEST(exchange.response->finish());
  }
  BOOST_TEST(pair.received() == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
}

BOOST_AUTO_TEST_CASE(head_requests_get_the_head_alone) {
  Pair pair;
  pair.send("HEAD /healthz HTTP/1.1\r\n\r\n");
  {
    Exchange exchange(pair.server);
    exchange.response->setHeadOnly(true);
    exchange.response->sendBuffer("{\"status\":\"ok\"}", 15);
  }
  BOOST_TEST(pair.received() == "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n");
}

BOOST_AUTO_TEST_CASE(a_body_that_breaks_its_length_closes_the_connection) {
  Pair pair;
  pair.send("GET / HTTP/1.1\r\n\r\n");
  Exchange exchange(pair.server);
  exchange.response->setContentLength(10);
  exchange.response->send() << "short";
  BOOST_TEST(!exchange.response->finish());
}

BOOST_AUTO_TEST_CASE(writing_to_a_client_that_left_fails_without_a_signal) {
  Pair pair;
  pair.send("POST / HTTP/1.1\r\n\r\n");
  Exchange exchange(pair.server);
  pair.closeClient();
  exchange.response->setChunkedTransferEncoding(true);
  std::ostream& out = exchange.response->send();
  for (int i = 0; i < 100 && out.good(); ++i) {
    out << std::string(10000, 'a');
    out.flush();
  }
  BOOST_TEST(!out.good());
  BOOST_TEST(exchange.socket.broken());
  BOOST_TEST(!exchange.response->finish());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::http
