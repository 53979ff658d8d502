#include "server/http/request.h"

#include <algorithm>
#include <istream>

#include "server/http/server_session.h"

namespace sluice::http {

namespace {

// The first step of a body's lease on the body budget (the steps then double): enough for most
// requests whole, small enough that a head promising 32 MiB and sending one byte holds little.
constexpr size_t kFirstBodyChunk = 64u << 10;

}  // namespace

HangUpGuard::~HangUpGuard() = default;

void HangUpGuard::check(void* state) {
  const auto* watched = static_cast<const State*>(state);
  if (watched->tls ? clientHungUp(watched->fd) : clientGone(watched->fd)) watched->cancel->cancel();
}

Request::Request(ServerRequest& head, std::string id, ClientWatch* watch)
    : head_(head), id_(std::move(id)), watch_(watch) {}

const std::string& Request::method() const { return head_.getMethod(); }

const std::string& Request::target() const { return head_.getURI(); }

std::string Request::header(const std::string& name) const { return head_.get(name, ""); }

bool Request::has(const std::string& name) const { return head_.has(name); }

std::expected<std::string, BodyTooLarge> readBody(Poco::Net::HTTPServerRequest& request, size_t limit,
                                                  BodyBudget::Lease* lease) {
  const bool declared = request.hasContentLength();
  const uint64_t length = declared ? static_cast<uint64_t>(std::max<Poco::Int64>(0, request.getContentLength64())) : 0;
  if (declared && length > limit) return std::unexpected(BodyTooLarge{BodyTooLarge::Why::TooLarge});
  std::istream& in = request.stream();
  const size_t want = declared ? static_cast<size_t>(length) : limit + 1;
  // A declared length is reserved whole: address space only, since nothing is written ahead of
  // the bytes that arrive, so a head promising 32 MiB and sending one byte still costs a page.
  // The body then never moves while it grows (a doubling string copied and zero-filled 4 MiB
  // bodies twice over, page faults included, on the event loop). The budget is leased as the
  // bytes arrive, in steps that double from 64 KiB.
  std::string body;
  if (declared) body.reserve(want);
  size_t used = 0;
  size_t leased = 0;
  while (used < want && in) {
    if (used == leased) {
      const size_t step = std::min(std::max(kFirstBodyChunk, leased), want - leased);
      if (lease && !lease->grow(step)) return std::unexpected(BodyTooLarge{BodyTooLarge::Why::Overloaded});
      leased += step;
    }
    // The bytes up to `leased` are about to be read over, so they are not initialised first.
    body.resize_and_overwrite(leased, [](char*, size_t size) { return size; });
    in.read(body.data() + used, static_cast<std::streamsize>(leased - used));
    used += static_cast<size_t>(in.gcount());
    if (in.gcount() == 0) break;
  }
  if (used > limit) return std::unexpected(BodyTooLarge{BodyTooLarge::Why::TooLarge});
  if (declared && used < want) return std::unexpected(BodyTooLarge{BodyTooLarge::Why::Incomplete});
  body.resize(used);
  return body;
}

std::expected<std::string, BodyTooLarge> Request::readBody(size_t limit, BodyBudget::Lease* lease) {
  return http::readBody(head_, limit, lease);
}

HangUpGuard Request::watchHangUp(upstream::Cancel& cancel) {
  HangUpGuard guard;
  const int fd = head_.fd();
  if (fd < 0) return guard;
  guard.state_ = std::make_unique<HangUpGuard::State>(HangUpGuard::State{fd, &cancel, head_.secure()});
  guard.edge_ = net::fiber::watchEdge(fd, head_.registration(), &HangUpGuard::check, guard.state_.get());
  if (!guard.edge_.active() && watch_) guard.polled_ = watch_->watch(fd, cancel, head_.secure());
  return guard;
}

}  // namespace sluice::http
