#include "server/upstream/pooled_response.h"

#include <algorithm>

#include "server/upstream/pool.h"

namespace sluice::upstream {

namespace {

constexpr size_t kMaxHead = 64u << 10;
constexpr size_t kMaxDirectRead = 64u << 10;  // a Content-Length body read straight into the caller's string

}  // namespace

std::optional<ResponseHead> readResponseHead(Link& link, const Request& request, int& error, bool& any_byte) {
  net::h1::HeadLimits limits;
  limits.max_head_bytes = kMaxHead;
  limits.max_fields = 256;
  for (;;) {
    net::h1::ResponseHead parsed;
    const net::h1::HeadResult result = net::h1::parseResponseHead(link.buffered(), limits, parsed);
    if (result.status == net::h1::HeadStatus::Incomplete) {
      if (link.fill(error) == 0) return std::nullopt;
      any_byte = true;
      continue;
    }
    if (result.status != net::h1::HeadStatus::Complete) {
      throw TransportError(TransportFailure::Protocol, "malformed answer from the provider: " + result.reason);
    }
    if (parsed.status >= 100 && parsed.status < 200 && parsed.status != 101) {
      link.consume(result.consumed);  // 100 Continue, 103 Early Hints: the answer follows
      continue;
    }
    ResponseHead head;
    head.status = parsed.status;
    head.headers.reserve(parsed.fields.size());
    bool close = parsed.version == "HTTP/1.0";
    for (const auto& [name, value] : parsed.fields) {
      head.headers.emplace_back(name, value);
      if (net::h1::equalsNoCase(name, "connection")) {
        if (net::h1::equalsNoCase(value, "close")) close = true;
        else if (net::h1::equalsNoCase(value, "keep-alive")) close = false;
      }
    }
    // RFC 9112 §6.3 rules 1-2: these answers have no body whatever their fields say.
    const bool bodiless = request.method == "HEAD" || parsed.status == 204 || parsed.status == 304;
    if (!bodiless) {
      // The fields are views into the link's buffer: framed before the head is consumed.
      const auto framing = net::h1::bodyFraming(net::h1::Message::Response, parsed.fields);
      if (!framing) {
        throw TransportError(TransportFailure::Protocol, "malformed answer from the provider: " + framing.error());
      }
      head.framing = framing->kind;
      head.length = framing->length;
      if (framing->close) close = true;
    }
    link.consume(result.consumed);
    head.keep_alive = !close;
    return head;
  }
}

PooledResponse::PooledResponse(std::shared_ptr<Pool> pool, std::string origin, std::unique_ptr<Link> link,
                               ResponseHead head, int idle_ms, Cancel* cancel)
    : pool_(std::move(pool)), origin_(std::move(origin)), link_(std::move(link)), head_(std::move(head)),
      remaining_(head_.length), cancel_(cancel) {
  link_->receiveTimeout(idle_ms);
  if (head_.framing == Framing::Chunked) chunked_ = std::make_unique<net::h1::ChunkedDecoder>(net::h1::Message::Response);
  if (head_.framing == Framing::None) finished_ = true;
}

PooledResponse::~PooledResponse() {
  // Detached first: once pooled, the socket belongs to another request.
  if (cancel_) cancel_->detach();
  // Reused only when the answer ended exactly where its framing said.
  if (link_ && finished_ && !aborted_ && head_.keep_alive && link_->buffered().empty() &&
      !(cancel_ && cancel_->cancelled())) {
    pool_->give(origin_, std::move(link_));
  }
}

std::string PooledResponse::header(const std::string& name) const {
  for (const auto& [key, value] : head_.headers) {
    if (net::h1::equalsNoCase(key, name)) return value;
  }
  return {};
}

void PooledResponse::drop() {
  aborted_ = true;
  if (cancel_) cancel_->detach();
  link_.reset();
}

void PooledResponse::fail(int error) {
  drop();
  throw transportError(error, true);
}

void PooledResponse::failMalformed() {
  const std::string why = chunked_->error();
  drop();
  throw TransportError(TransportFailure::Protocol, "malformed chunked answer from the provider: " + why);
}

bool PooledResponse::fill() {
  int error = 0;
  if (link_->fill(error) > 0) return true;
  if (error == kClosed) return false;
  fail(error);
}

bool PooledResponse::readSome(std::string& out) {
  if (finished_ || aborted_ || !link_) return false;
  switch (head_.framing) {
    case Framing::None:
      finished_ = true;
      return false;
    case Framing::Length: return readLength(out);
    case Framing::Chunked: return readChunked(out);
    case Framing::Close: return readUntilClose(out);
  }
  return false;
}

bool PooledResponse::readLength(std::string& out) {
  if (remaining_ == 0) {
    finished_ = true;
    return false;
  }
  if (link_->buffered().empty()) {
    // Straight into `out`: no copy through the connection's buffer.
    const size_t had = out.size();
    const auto want = static_cast<size_t>(std::min<uint64_t>(remaining_, kMaxDirectRead));
    int error = 0;
    size_t got = 0;
    out.resize_and_overwrite(had + want, [&](char* data, size_t) {
      got = link_->read(data + had, want, error);
      return had + got;
    });
    if (got == 0) fail(error);
    remaining_ -= got;
    if (remaining_ == 0) finished_ = true;
    return true;
  }
  const std::string_view in = link_->buffered();
  const auto take = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size()));
  out.append(in.data(), take);
  link_->consume(take);
  remaining_ -= take;
  if (remaining_ == 0) finished_ = true;
  return true;
}

bool PooledResponse::readChunked(std::string& out) {
  bool any = false;
  for (;;) {
    if (chunked_->done()) {
      finished_ = true;
      return any;
    }
    if (link_->buffered().empty()) {
      if (any) return true;
      if (!fill()) fail(kClosed);
      continue;
    }
    std::string_view data;
    const size_t used = chunked_->feed(link_->buffered(), data);
    out.append(data);
    link_->consume(used);
    any = any || !data.empty();
    if (chunked_->failed()) failMalformed();
  }
}

bool PooledResponse::readUntilClose(std::string& out) {
  if (link_->buffered().empty() && !fill()) {
    finished_ = true;
    return false;
  }
  const std::string_view in = link_->buffered();
  out.append(in);
  link_->consume(in.size());
  return true;
}

void PooledResponse::abort() {
  if (aborted_) return;
  drop();
}

}  // namespace sluice::upstream
