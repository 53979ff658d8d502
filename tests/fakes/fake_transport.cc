#include "tests/fakes/fake_transport.h"

#include <algorithm>

#include "server/net/fiber.h"
#include "server/net/http1.h"

namespace sluice::fakes {

namespace {

using upstream::TransportError;
using upstream::TransportFailure;
using Milliseconds = std::chrono::milliseconds;

// "Without end": long enough for any test, short enough not to overflow a clock's time_point.
constexpr Milliseconds kForever = std::chrono::hours(24);

TransportError cancelledError() { return TransportError(TransportFailure::Reset, "cancelled"); }

// Waits `delay`, or `limit_ms` when that is shorter (and not 0): then throws Timeout. Throws
// Reset "cancelled" at once when `cancel` is (or gets) cancelled.
void pause(Milliseconds delay, int limit_ms, upstream::Cancel* cancel, const char* waiting_for) {
  const bool times_out = limit_ms > 0 && delay > Milliseconds(limit_ms);
  const Milliseconds wait = std::min(times_out ? Milliseconds(limit_ms) : delay, kForever);
  if (cancel) {
    if (!cancel->waitFor(wait)) throw cancelledError();
  } else if (wait > Milliseconds::zero()) {
    net::fiber::sleepFor(wait);  // parks a fiber; sleeps a thread
  }
  if (times_out) throw TransportError(TransportFailure::Timeout, std::string("timed out waiting for ") + waiting_for);
}

class FakeResponse final : public upstream::Response {
 public:
  FakeResponse(Scripted answer, int idle_ms, upstream::Cancel* cancel, std::shared_ptr<std::atomic<int>> aborted)
      : answer_(std::move(answer)), idle_ms_(idle_ms), cancel_(cancel), aborted_count_(std::move(aborted)) {}

  int status() const override { return answer_.status; }

  std::string header(const std::string& name) const override {
    for (const auto& [key, value] : answer_.headers) {
      if (net::h1::equalsNoCase(key, name)) return value;
    }
    return {};
  }

  std::vector<std::pair<std::string, std::string>> headers() const override { return answer_.headers; }

  bool readSome(std::string& out) override {
    for (;;) {
      if (aborted_ || finished_) return false;
      if (cancel_ && cancel_->cancelled()) throw cancelledError();
      const size_t available = std::min(answer_.reset_after.value_or(answer_.chunks.size()), answer_.chunks.size());
      if (next_ < available) {
        const Scripted::Chunk& chunk = answer_.chunks[next_++];
        pause(chunk.delay, idle_ms_, cancel_, "the next body bytes");
        if (chunk.bytes.empty()) continue;
        out += chunk.bytes;
        return true;
      }
      if (answer_.reset_after) {
        finished_ = true;
        throw TransportError(TransportFailure::Reset, "connection reset by the provider (scripted)");
      }
      if (answer_.stall == Scripted::Stall::AfterBody) {
        pause(kForever, idle_ms_, cancel_, "the next body bytes");
      }
      finished_ = true;
      return false;
    }
  }

  void abort() override {
    if (aborted_) return;
    aborted_ = true;
    ++*aborted_count_;
  }

 private:
  Scripted answer_;
  int idle_ms_;
  upstream::Cancel* cancel_;
  std::shared_ptr<std::atomic<int>> aborted_count_;
  size_t next_ = 0;
  bool finished_ = false;
  bool aborted_ = false;
};

}  // namespace

Scripted& Scripted::header(std::string name, std::string value) {
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

Scripted& Scripted::chunk(std::string bytes, std::chrono::milliseconds delay) {
  chunks.push_back(Chunk{delay, std::move(bytes)});
  return *this;
}

Scripted& Scripted::delayHead(std::chrono::milliseconds delay) {
  head_delay = delay;
  return *this;
}

Scripted& Scripted::resetAfter(size_t chunk_count) {
  reset_after = chunk_count;
  return *this;
}

Scripted& Scripted::stallAfterBody() {
  stall = Stall::AfterBody;
  return *this;
}

Scripted& Scripted::repeating() {
  repeat = true;
  return *this;
}

FakeTransport::FakeTransport() : aborted_(std::make_shared<std::atomic<int>>(0)) {}

void FakeTransport::script(std::string url_substring, Scripted answer) {
  std::lock_guard lock(mutex_);
  for (Script& existing : scripts_) {
    if (existing.url_substring == url_substring) {
      existing.answers.push_back(std::move(answer));
      return;
    }
  }
  scripts_.push_back(Script{std::move(url_substring), {}});
  scripts_.back().answers.push_back(std::move(answer));
}

std::optional<Scripted> FakeTransport::take(const std::string& url) {
  for (Script& candidate : scripts_) {
    if (candidate.answers.empty() || url.find(candidate.url_substring) == std::string::npos) continue;
    Scripted answer = candidate.answers.front();
    if (!(answer.repeat && candidate.answers.size() == 1)) candidate.answers.pop_front();
    return answer;
  }
  return std::nullopt;
}

std::unique_ptr<upstream::Response> FakeTransport::send(const upstream::Request& request, upstream::Cancel* cancel) {
  std::optional<Scripted> answer;
  upstream::Request recorded = request;
  if (recorded.body_source) {
    // A streamed body is read whole before the answer, as a provider reading the upload would
    // (the source's own failures pass to the caller); it is recorded as one body.
    std::string piece;
    while (recorded.body_source->next(piece)) {
    }
    recorded.body += piece;
    recorded.body_source = nullptr;
  }
  {
    std::lock_guard lock(mutex_);
    sent_.push_back(recorded);
    answer = take(request.url);
  }
  if (!answer) throw TransportError(TransportFailure::Connect, "no script for " + request.url);
  if (cancel && cancel->cancelled()) throw cancelledError();
  pause(answer->head_delay, request.timeouts.first_byte_ms, cancel, "the response head");
  if (answer->failure) {
    throw TransportError(*answer->failure, answer->failure_message.empty()
                                               ? "scripted " + std::string(upstream::toString(*answer->failure)) + " failure"
                                               : answer->failure_message);
  }
  if (answer->stall == Scripted::Stall::BeforeHead) pause(kForever, request.timeouts.first_byte_ms, cancel, "the response head");
  return std::make_unique<FakeResponse>(std::move(*answer), request.timeouts.idle_ms, cancel, aborted_);
}

std::vector<upstream::Request> FakeTransport::sent() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

size_t FakeTransport::sentCount() const {
  std::lock_guard lock(mutex_);
  return sent_.size();
}

int FakeTransport::aborted() const { return aborted_->load(); }

Scripted FakeTransport::json(int status, std::string body, std::vector<std::pair<std::string, std::string>> headers) {
  Scripted answer;
  answer.status = status;
  answer.header("Content-Type", "application/json").header("Content-Length", std::to_string(body.size()));
  for (auto& [name, value] : headers) answer.header(std::move(name), std::move(value));
  if (!body.empty()) answer.chunk(std::move(body));
  return answer;
}

Scripted FakeTransport::sse(std::vector<std::string> events, std::chrono::milliseconds delay) {
  Scripted answer;
  answer.header("Content-Type", "text/event-stream").header("Cache-Control", "no-cache");
  for (std::string& event : events) {
    if (!event.ends_with("\n\n")) event += event.ends_with("\n") ? "\n" : "\n\n";
    answer.chunk(std::move(event), delay);
  }
  return answer;
}

Scripted FakeTransport::failBeforeHead(upstream::TransportFailure failure, std::chrono::milliseconds delay) {
  Scripted answer;
  answer.failure = failure;
  answer.head_delay = delay;
  return answer;
}

Scripted FakeTransport::stall() {
  Scripted answer;
  answer.stall = Scripted::Stall::BeforeHead;
  return answer;
}

}  // namespace sluice::fakes
