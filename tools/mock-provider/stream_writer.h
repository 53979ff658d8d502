#pragma once
// Writes a response body frame by frame with the script's pacing and faults: delay between
// frames, stall (stop sending, keep the connection open) and reset (abort the TCP connection).
// Detects a client that hung up: a failed write, or EOF/error on the socket while stalled.

#include <atomic>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <Poco/Net/StreamSocket.h>

#include "tools/mock-provider/stats.h"

namespace sluice::mock {

struct Pacing {
  int chunk_delay_ms = 0;            // before every frame but the first
  std::optional<int> stall_after;    // after this many frames, stop sending until the client leaves
  std::optional<int> reset_after;    // after this many frames, reset the connection (RST)
};

// Sleeps `ms` in short slices. Returns false early when `stopping` becomes true.
bool pause(int ms, const std::atomic<bool>& stopping);

enum class Wait { Done, Stopped, ClientGone };
// Waits `ms` before the first byte while watching the client: a client that closes the connection
// ends the wait at once (within about 10 ms).
Wait pauseWatching(int ms, Poco::Net::StreamSocket& socket, const std::atomic<bool>& stopping);

// Writes `frames` to `out` (the response body stream; each frame flushed on its own), calling
// `on_frame` after each successful write and `on_stall` when a stall begins.
// Returns how the stream ended. After Reset the socket is closed: the caller writes nothing more.
StreamEnd writeFrames(std::ostream& out, Poco::Net::StreamSocket& socket, const std::vector<std::string>& frames,
                      const Pacing& pacing, const std::atomic<bool>& stopping, const std::function<void()>& on_frame,
                      const std::function<void()>& on_stall);

// Aborts the connection: SO_LINGER 0 then close, so the peer gets a RST and no chunked terminator.
void resetConnection(Poco::Net::StreamSocket& socket);

// Waits while sending nothing until the client closes or errors (ClientGone) or the server stops.
StreamEnd stallUntilGone(Poco::Net::StreamSocket& socket, const std::atomic<bool>& stopping);

}  // namespace sluice::mock
