#pragma once
// A Transport that answers from scripts instead of the network, so the request path runs
// in-process: each answer says its status, head fields and body chunks (each after a delay), or
// fails before the head, resets mid-body, or stalls. Every request sent is recorded.
//
//   FakeTransport transport;
//   transport.script("/v1/messages", FakeTransport::json(200, R"({"id":"m"})"));
//   transport.script("openai", FakeTransport::failBeforeHead(upstream::TransportFailure::Connect));
//   transport.script("openai", FakeTransport::sse({"data: {}", "data: [DONE]"}, 5ms).repeating());
//
// Time follows the request's timeouts as the socket client's does: a wait before the head longer
// than first_byte_ms throws TransportError{Timeout} once first_byte_ms has passed, a wait before a
// body chunk longer than idle_ms likewise (a timeout of 0 waits without end). Every wait ends at
// once with TransportError{Reset, "cancelled"} when the Cancel given to send() is cancelled.
//
// Thread-safe: one FakeTransport may serve many threads; a response belongs to one thread, and
// may outlive the transport.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/upstream/transport.h"

namespace sluice::fakes {

// One scripted answer. Fields may be set directly; the methods chain.
struct Scripted {
  struct Chunk {
    std::chrono::milliseconds delay{0};  // waited before these bytes
    std::string bytes;                   // an empty chunk is only a delay
  };
  enum class Stall {
    None,
    BeforeHead,  // send() never gets a head: Timeout after first_byte_ms, or cancelled
    AfterBody,   // the chunks arrive, then nothing: Timeout after idle_ms, or cancelled
  };

  std::chrono::milliseconds head_delay{0};             // before the head, or before the failure
  std::optional<upstream::TransportFailure> failure;   // send() throws this instead of a head
  std::string failure_message;                         // its what(); a default names the failure
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<Chunk> chunks;
  // readSome() throws TransportError{Reset} after this many chunks (at their end when fewer).
  std::optional<size_t> reset_after;
  Stall stall = Stall::None;
  bool repeat = false;  // when last in its script: answers every later request (never popped)

  Scripted& header(std::string name, std::string value);
  Scripted& chunk(std::string bytes, std::chrono::milliseconds delay = {});
  Scripted& delayHead(std::chrono::milliseconds delay);
  Scripted& resetAfter(size_t chunk_count);
  Scripted& stallAfterBody();
  Scripted& repeating();
};

class FakeTransport : public upstream::Transport {
 public:
  FakeTransport();

  // Queues `answer` for requests whose URL contains `url_substring`. Scripts are consulted in the
  // order their substring was first given; the first one whose substring occurs in the URL and
  // still has answers is used, and its front answer popped (unless it is the last and repeats).
  void script(std::string url_substring, Scripted answer);

  // Records the request, then answers as scripted. Throws TransportError{Connect, "no script for
  // <url>"} when no script matches; {Reset, "cancelled"} when `cancel` is or gets cancelled while
  // waiting; otherwise what the script says. `cancel` must outlive the response.
  std::unique_ptr<upstream::Response> send(const upstream::Request& request, upstream::Cancel* cancel = nullptr) override;

  // Every request sent so far (including those that then failed), in order; a streamed body
  // (body_source) is recorded read whole into `body`.
  std::vector<upstream::Request> sent() const;
  size_t sentCount() const;
  // How many responses were aborted (abort() called; a second call on one response not counted).
  int aborted() const;

  // `status` with `body` as one chunk, Content-Type: application/json and its Content-Length,
  // then `headers`.
  static Scripted json(int status, std::string body, std::vector<std::pair<std::string, std::string>> headers = {});
  // 200 text/event-stream, one chunk per event, each after `delay`. An event is its lines
  // ("event: x\ndata: {...}"); the blank line that ends it is added when missing.
  static Scripted sse(std::vector<std::string> events, std::chrono::milliseconds delay = {});
  // send() throws TransportError{failure} (after `delay`, which counts against first_byte_ms).
  static Scripted failBeforeHead(upstream::TransportFailure failure, std::chrono::milliseconds delay = {});
  // send() waits for a head that never comes: Timeout after first_byte_ms, or cancelled.
  static Scripted stall();

 private:
  struct Script {
    std::string url_substring;
    std::deque<Scripted> answers;
  };
  // The answer for `url`, popped as script() says; nullopt when none.
  std::optional<Scripted> take(const std::string& url);

  mutable std::mutex mutex_;
  std::vector<Script> scripts_;
  std::vector<upstream::Request> sent_;
  std::shared_ptr<std::atomic<int>> aborted_;
};

}  // namespace sluice::fakes
