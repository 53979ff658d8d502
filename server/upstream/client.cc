#include "server/upstream/client.h"

#include <algorithm>
#include <istream>

#include <sys/socket.h>

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLException.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Timespan.h>
#include <Poco/URI.h>

namespace sluice::upstream {

std::string_view toString(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::Connect: return "connect";
    case TransportFailure::Timeout: return "timeout";
    case TransportFailure::Reset: return "reset";
    case TransportFailure::Tls: return "tls";
    case TransportFailure::Protocol: return "protocol";
  }
  return "transport";
}

// One connection to a provider and the socket timeouts it was last given: a kept-alive connection
// carries them from request to request, and setting a timeout is a system call, so each is set
// only when it changes. Poco sets both again whenever it reconnects, and always to the values the
// request in progress wants, so the remembered values stay true or become merely pessimistic.
struct Link {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  int send_ms = -1;
  int receive_ms = -1;

  void sendTimeout(int ms) {
    if (send_ms == ms) return;
    session->socket().setSendTimeout(Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms) * 1000));
    send_ms = ms;
  }
  void receiveTimeout(int ms) {
    if (receive_ms == ms) return;
    session->socket().setReceiveTimeout(Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms) * 1000));
    receive_ms = ms;
  }
};

// Idle keep-alive connections per origin ("https://host:port").
class Pool {
 public:
  explicit Pool(int max_idle) : max_idle_(max_idle) {}

  std::unique_ptr<Link> take(const std::string& origin) {
    std::lock_guard lock(mutex_);
    auto& idle = idle_[origin];
    if (idle.empty()) return nullptr;
    auto session = std::move(idle.back());
    idle.pop_back();
    return session;
  }

  void give(const std::string& origin, std::unique_ptr<Link> link) {
    std::lock_guard lock(mutex_);
    auto& idle = idle_[origin];
    if (static_cast<int>(idle.size()) < max_idle_) idle.push_back(std::move(link));
  }

 private:
  std::mutex mutex_;
  int max_idle_;
  std::map<std::string, std::vector<std::unique_ptr<Link>>> idle_;
};

namespace {

Poco::Net::Context::Ptr tlsContext() {
  static Poco::Net::Context::Ptr context = [] {
    Poco::Net::initializeSSL();
    return Poco::Net::Context::Ptr(new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                                                          Poco::Net::Context::VERIFY_RELAXED, 9, true));
  }();
  return context;
}

std::unique_ptr<Poco::Net::HTTPClientSession> openSession(const Poco::URI& uri) {
  if (uri.getScheme() == "https") {
    return std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(), tlsContext());
  }
  return std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
}

Poco::Timespan millis(int ms) { return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms) * 1000); }

[[noreturn]] void translate(const Poco::Exception& error, bool connected) {
  if (dynamic_cast<const Poco::TimeoutException*>(&error)) {
    throw TransportError(connected ? TransportFailure::Timeout : TransportFailure::Connect,
                         connected ? "timed out waiting for the provider" : "timed out connecting to the provider");
  }
  if (dynamic_cast<const Poco::Net::SSLException*>(&error)) throw TransportError(TransportFailure::Tls, error.displayText());
  if (dynamic_cast<const Poco::Net::ConnectionRefusedException*>(&error) ||
      dynamic_cast<const Poco::Net::HostNotFoundException*>(&error) ||
      dynamic_cast<const Poco::Net::NoAddressFoundException*>(&error) ||
      dynamic_cast<const Poco::Net::DNSException*>(&error)) {
    throw TransportError(TransportFailure::Connect, error.displayText());
  }
  if (dynamic_cast<const Poco::Net::MessageException*>(&error) ||
      dynamic_cast<const Poco::Net::NoMessageException*>(&error)) {
    throw TransportError(TransportFailure::Protocol, error.displayText());
  }
  throw TransportError(connected ? TransportFailure::Reset : TransportFailure::Connect, error.displayText());
}

}  // namespace

void Cancel::cancel() {
  std::lock_guard lock(mutex_);
  cancelled_.store(true, std::memory_order_release);
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  woken_.notify_all();
}

bool Cancel::waitFor(std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  return !woken_.wait_for(lock, duration, [this] { return cancelled_.load(std::memory_order_acquire); });
}

void Cancel::attach(int fd) {
  std::lock_guard lock(mutex_);
  fd_ = fd;
  if (cancelled_.load(std::memory_order_acquire) && fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Cancel::detach() {
  std::lock_guard lock(mutex_);
  fd_ = -1;
}

Response::Response(std::shared_ptr<Pool> pool, std::string origin, std::unique_ptr<Link> link,
                   std::unique_ptr<Poco::Net::HTTPResponse> head, std::istream* body, int idle_ms, Cancel* cancel)
    : pool_(std::move(pool)), origin_(std::move(origin)), link_(std::move(link)), head_(std::move(head)), body_(body),
      cancel_(cancel) {
  // NOTE: HTTPSession::setTimeout only takes effect at the next connect; a kept-alive socket needs
  // its receive timeout set directly, or a reused connection would keep the previous caller's.
  link_->receiveTimeout(idle_ms);
  body_->exceptions(std::ios::badbit);
}

Response::~Response() {
  // Detached first: once pooled, the socket belongs to another request.
  if (cancel_) cancel_->detach();
  if (finished_ && !aborted_ && head_->getKeepAlive() && !(cancel_ && cancel_->cancelled())) {
    pool_->give(origin_, std::move(link_));
  } else if (link_) {
    try {
      link_->session->abort();
    } catch (const Poco::Exception&) {
      // NOTE: the socket is being discarded; a failure to close it cleanly changes nothing.
    }
  }
}

int Response::status() const { return static_cast<int>(head_->getStatus()); }

std::string Response::header(const std::string& name) const { return head_->get(name, ""); }

std::vector<std::pair<std::string, std::string>> Response::headers() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : *head_) out.emplace_back(name, value);
  return out;
}

bool Response::readSome(std::string& out) {
  if (finished_ || aborted_) return false;
  try {
    // peek() makes the stream read once from the socket; readsome() drains what arrived.
    if (body_->peek() == std::char_traits<char>::eof()) {
      finished_ = true;
      return false;
    }
    // Straight into `out` (no buffer on the connection thread's stack).
    constexpr size_t kRead = 16384;
    const size_t had = out.size();
    out.resize(had + kRead);
    const std::streamsize n = body_->readsome(out.data() + had, kRead);
    out.resize(had + static_cast<size_t>(std::max<std::streamsize>(n, 0)));
    return true;
  } catch (const Poco::Exception& error) {
    aborted_ = true;
    translate(error, true);
  }
}

std::string Response::readAll() {
  std::string out;
  while (readSome(out)) {
  }
  return out;
}

void Response::abort() {
  if (aborted_) return;
  aborted_ = true;
  if (cancel_) cancel_->detach();
  try {
    link_->session->abort();
  } catch (const Poco::Exception&) {
    // NOTE: the connection is gone either way.
  }
}

Client::Client(int max_idle_per_origin) : pool_(std::make_shared<Pool>(max_idle_per_origin)) {}
Client::~Client() = default;

std::unique_ptr<Response> Client::send(const Request& request, Cancel* cancel) {
  const Poco::URI uri(request.url);
  const std::string origin = uri.getScheme() + "://" + uri.getHost() + ":" + std::to_string(uri.getPort());
  // A pooled connection the provider already closed fails before any answer: retry once on a fresh one.
  for (int round = 0; round < 2; ++round) {
    auto link = round == 0 ? pool_->take(origin) : nullptr;
    const bool reused = link != nullptr;
    if (!link) {
      link = std::make_unique<Link>();
      link->session = openSession(uri);
    }
    Poco::Net::HTTPClientSession* session = link->session.get();
    session->setKeepAlive(true);
    session->setTimeout(millis(request.timeouts.connect_ms), millis(request.timeouts.first_byte_ms),
                        millis(request.timeouts.first_byte_ms));
    bool sent = false;
    if (cancel && cancel->cancelled()) throw TransportError(TransportFailure::Reset, "cancelled: the client is gone");
    try {
      Poco::Net::HTTPRequest head(request.method, uri.getPathAndQuery(), Poco::Net::HTTPMessage::HTTP_1_1);
      head.setKeepAlive(true);
      for (const auto& [name, value] : request.headers) head.add(name, value);
      head.setContentLength(static_cast<std::streamsize>(request.body.size()));
      std::ostream& out = session->sendRequest(head);
      // Connected now (or reused): this call's own limits, whatever the socket had before.
      link->sendTimeout(request.timeouts.first_byte_ms);
      link->receiveTimeout(request.timeouts.first_byte_ms);
      out.write(request.body.data(), static_cast<std::streamsize>(request.body.size()));
      out.flush();
      sent = true;
      if (cancel) cancel->attach(session->socket().impl()->sockfd());
      auto response = std::make_unique<Poco::Net::HTTPResponse>();
      std::istream& body = session->receiveResponse(*response);
      return std::make_unique<Response>(pool_, origin, std::move(link), std::move(response), &body,
                                        request.timeouts.idle_ms, cancel);
    } catch (const Poco::TimeoutException& error) {
      if (cancel) cancel->detach();
      translate(error, sent);
    } catch (const Poco::Exception& error) {
      if (cancel) {
        cancel->detach();
        if (cancel->cancelled()) throw TransportError(TransportFailure::Reset, "cancelled: the client is gone");
      }
      if (reused && round == 0 && !dynamic_cast<const Poco::TimeoutException*>(&error)) continue;
      translate(error, sent || reused);
    }
  }
  throw TransportError(TransportFailure::Connect, "could not reach " + origin);
}

}  // namespace sluice::upstream
