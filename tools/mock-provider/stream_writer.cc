#include "tools/mock-provider/stream_writer.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>

namespace sluice::mock {

bool pause(int ms, const std::atomic<bool>& stopping) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < until) {
    if (stopping.load()) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(20)));
  }
  return !stopping.load();
}

Wait pauseWatching(int ms, Poco::Net::StreamSocket& socket, const std::atomic<bool>& stopping) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::milliseconds(ms);
  bool watch = true;
  while (Clock::now() < until) {
    if (stopping.load()) return Wait::Stopped;
    const auto left = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()),
                               std::chrono::milliseconds(10));
    if (!watch) {
      std::this_thread::sleep_for(left);
      continue;
    }
    try {
      if (socket.poll(Poco::Timespan(0, static_cast<long>(left.count()) * 1000),
                      Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR)) {
        char byte = 0;
        if (socket.receiveBytes(&byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) return Wait::ClientGone;
        watch = false;  // pipelined bytes: the client is there; stop polling a readable socket
      }
    } catch (const Poco::TimeoutException&) {
      continue;
    } catch (const Poco::Exception&) {
      return Wait::ClientGone;
    }
  }
  return stopping.load() ? Wait::Stopped : Wait::Done;
}

void resetConnection(Poco::Net::StreamSocket& socket) {
  try {
    socket.setLinger(true, 0);
    socket.close();
  } catch (const Poco::Exception&) {
    // NOTE: the socket may already be gone with the client; a reset of a dead socket is done.
  }
}

StreamEnd stallUntilGone(Poco::Net::StreamSocket& socket, const std::atomic<bool>& stopping) {
  while (!stopping.load()) {
    try {
      if (socket.poll(Poco::Timespan(0, 50'000), Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR)) {
        char byte = 0;
        // A readable socket with nothing to peek is an orderly close; an exception is a reset.
        if (socket.receiveBytes(&byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) return StreamEnd::ClientGone;
        // The client sent more bytes (a pipelined request): still connected; keep waiting.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    } catch (const Poco::TimeoutException&) {
      continue;
    } catch (const Poco::Exception&) {
      return StreamEnd::ClientGone;
    }
  }
  return StreamEnd::Stopped;
}

StreamEnd writeFrames(std::ostream& out, Poco::Net::StreamSocket& socket, const std::vector<std::string>& frames,
                      const Pacing& pacing, const std::atomic<bool>& stopping, const std::function<void()>& on_frame,
                      const std::function<void()>& on_stall) {
  for (std::size_t i = 0; i <= frames.size(); ++i) {
    const auto sent = static_cast<int>(i);
    if (pacing.reset_after && sent == *pacing.reset_after) {
      resetConnection(socket);
      return StreamEnd::Reset;
    }
    if (pacing.stall_after && sent == *pacing.stall_after) {
      on_stall();
      return stallUntilGone(socket, stopping);
    }
    if (i == frames.size()) break;
    if (i > 0 && pacing.chunk_delay_ms > 0 && !pause(pacing.chunk_delay_ms, stopping)) return StreamEnd::Stopped;
    if (stopping.load()) return StreamEnd::Stopped;
    try {
      out.write(frames[i].data(), static_cast<std::streamsize>(frames[i].size()));
      out.flush();
    } catch (const Poco::Exception&) {
      return StreamEnd::ClientGone;
    } catch (const std::ios_base::failure&) {
      return StreamEnd::ClientGone;
    }
    if (!out) return StreamEnd::ClientGone;
    on_frame();
  }
  return StreamEnd::Completed;
}

}  // namespace sluice::mock
