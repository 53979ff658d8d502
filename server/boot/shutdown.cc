#include "server/boot/shutdown.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <pthread.h>

#include "server/log/json_log.h"

namespace sluice::boot {

sigset_t blockSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return signals;
}

int waitForStop(const sigset_t& signals, CatalogReloader& reloader) {
  for (;;) {
    int received = 0;
    sigwait(&signals, &received);
    if (received == SIGHUP) {
      reloader.reload("sighup");
      continue;
    }
    return received;
  }
}

int drain(const Serving& serving) {
  if (serving.signal == SIGTERM && serving.drain_delay_ms > 0) {
    serving.gateway.draining().store(true);
    log::info("draining: readiness fails, still serving", {{"drain_delay_ms", serving.drain_delay_ms},
                                                           {"in_flight", serving.listener.openConnections()}});
    std::this_thread::sleep_for(std::chrono::milliseconds(serving.drain_delay_ms));
  }
  serving.gateway.draining().store(true);
  serving.reloader.stopWatch();
  if (serving.housekeeping != nullptr) serving.housekeeping->stop();
  log::info("draining", {{"in_flight", serving.listener.openConnections()}, {"drain_seconds", serving.drain_seconds}});
  serving.gateway.stopping().store(true);
  serving.listener.stopAccepting();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(serving.drain_seconds);
  while (serving.listener.openConnections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const size_t left = serving.listener.openConnections();
  serving.gateway.flushRefusalSummaries();  // the counted keyless refusals, before the trail stops
  serving.audit.stop();
  log::flush();  // the lines the connections logged, before the last one
  log::info("stopped", {{"abandoned_connections", left}});
  if (left > 0) {
    std::fflush(nullptr);
    std::_Exit(0);  // NOTE: the drain bound passed; connections still open are cut rather than waited for.
  }
  return 0;
}

}  // namespace sluice::boot
