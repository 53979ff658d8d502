#include "server/presence/poller.h"

#include <algorithm>
#include <set>

#include "server/log/json_log.h"
#include "server/presence/document.h"

namespace sluice::presence {

namespace {

using Clock = dispatch::PresenceSnapshot::Clock;

// Reads the answer's body, failing when it outgrows kMaxDocumentBytes.
std::expected<std::string, std::string> readBody(upstream::Response& response) {
  std::string body;
  while (response.readSome(body)) {
    if (body.size() > kMaxDocumentBytes) {
      response.abort();
      return std::unexpected("the presence document is larger than " + std::to_string(kMaxDocumentBytes) + " bytes");
    }
  }
  return body;
}

}  // namespace

PresencePoller::PresencePoller(CatalogSource catalog, upstream::Transport& transport, PresenceBoard& board,
                               metrics::GatewayMetrics& metrics)
    : catalog_(std::move(catalog)), transport_(transport), board_(board), metrics_(metrics),
      task_([this] { return pollOnce(); }) {
  metrics_.setPresenceSource(
      [this] {
        metrics::Samples samples;
        const auto catalog = catalog_();
        if (!catalog) return samples;
        const dispatch::PresenceSnapshot snapshot = board_.snapshot();
        std::set<std::string> seen;
        for (const catalog::Provider& provider : catalog->providers) {
          for (const catalog::Endpoint& endpoint : provider.endpoints) {
            if (!endpoint.presence_node || !seen.insert(*endpoint.presence_node).second) continue;
            const bool up = !dispatch::presenceState(snapshot, *endpoint.presence_node, false, Clock::now());
            samples.push_back({{*endpoint.presence_node}, up ? 1.0 : 0.0});
          }
        }
        return samples;
      },
      [this] {
        metrics::Samples samples;
        const dispatch::PresenceSnapshot snapshot = board_.snapshot();
        if (snapshot.last_success) {
          samples.push_back({{}, std::chrono::duration<double>(Clock::now() - *snapshot.last_success).count()});
        }
        return samples;
      });
}

PresencePoller::~PresencePoller() {
  stop();
  metrics_.setPresenceSource({}, {});  // the callbacks point at this poller
}

void PresencePoller::start() { task_.start(); }

void PresencePoller::stop() { task_.stop(); }

util::BackgroundTask::Duration PresencePoller::pollOnce() {
  const auto catalog = catalog_();
  if (!catalog || !catalog->presence) {
    if (!polled_url_.empty()) {
      board_.publish({});
      polled_url_.clear();
    }
    return std::chrono::seconds(1);  // looks again for a hub a reload may declare
  }
  const catalog::PresenceHub& hub = *catalog->presence;
  dispatch::PresenceSnapshot next = board_.snapshot();
  if (hub.url != polled_url_) next = {};  // another hub: what the last one said no longer holds
  polled_url_ = hub.url;
  next.configured = true;
  next.stale_after = std::chrono::milliseconds(hub.stale_ms);

  upstream::Request request;
  request.method = "GET";
  request.url = hub.url + "/presence";
  request.headers.emplace_back("Accept", "application/json");
  const int bound = std::min(hub.poll_ms, 2000);
  request.timeouts.connect_ms = bound;
  request.timeouts.first_byte_ms = bound;
  request.timeouts.idle_ms = bound;
  std::string failure;
  try {
    auto response = transport_.send(request);
    if (response->status() != 200) {
      failure = "the presence hub answered HTTP " + std::to_string(response->status());
      response->abort();
    } else if (auto body = readBody(*response); !body) {
      failure = body.error();
    } else if (auto nodes = parsePresenceDocument(*body); !nodes) {
      failure = nodes.error();
    } else {
      next.nodes = std::move(*nodes);
      next.last_success = Clock::now();
      next.last_error.clear();
    }
  } catch (const std::exception& error) {
    failure = std::string("the presence hub could not be read: ") + error.what();
  }
  if (!failure.empty()) {
    // Logged when it starts failing, not at every poll.
    if (next.last_error.empty()) log::warn("presence hub poll failed", {{"url", hub.url}, {"error", failure}});
    next.last_error = failure;
  }
  metrics_.presence_polls.with({failure.empty() ? "ok" : "error"}).inc();
  board_.publish(std::move(next));
  return std::chrono::milliseconds(hub.poll_ms);
}

}  // namespace sluice::presence
