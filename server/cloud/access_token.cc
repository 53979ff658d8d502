#include "server/cloud/access_token.h"

#include <cctype>

#include "server/wire/json_parse.h"

namespace sluice::cloud {
namespace {

constexpr size_t kMaxTokenAnswerBytes = 64u << 10;
constexpr size_t kMaxTokenBytes = 16u << 10;
constexpr auto kWaitForFetch = std::chrono::seconds(30);
constexpr auto kRememberFailure = std::chrono::seconds(1);

// An error code fit for a log and an audit row: printable, short.
std::string errorCode(const wire::Json& answer) {
  const auto found = answer.find("error");
  std::string code;
  if (found != answer.end() && found->is_string()) code = found->get<std::string>();
  if (found != answer.end() && found->is_object()) {
    const auto status = found->find("status");
    if (status != found->end() && status->is_string()) code = status->get<std::string>();
  }
  if (code.size() > 64) code.resize(64);
  for (char& c : code) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  }
  return code;
}

}  // namespace

std::expected<AccessToken, std::string> readTokenAnswer(int status, std::string_view body,
                                                        std::chrono::system_clock::time_point now) {
  const wire::Json answer = body.size() <= kMaxTokenAnswerBytes ? wire::parseBounded(body) : wire::Json();
  if (status != 200) {
    const std::string code = answer.is_object() ? errorCode(answer) : "";
    return std::unexpected("the token endpoint answered " + std::to_string(status) + (code.empty() ? "" : " " + code));
  }
  if (!answer.is_object()) return std::unexpected("the token endpoint's answer is not a JSON object");
  const auto token = answer.find("access_token");
  if (token == answer.end() || !token->is_string() || token->get<std::string>().empty() ||
      token->get<std::string>().size() > kMaxTokenBytes) {
    return std::unexpected("the token endpoint's answer has no access_token");
  }
  int64_t seconds = 3600;
  if (const auto expires = answer.find("expires_in"); expires != answer.end()) {
    if (expires->is_number_integer()) {
      seconds = expires->get<int64_t>();
    } else if (expires->is_string()) {
      const std::string text = expires->get<std::string>();
      seconds = !text.empty() && text.size() < 10 && std::ranges::all_of(text, ::isdigit) ? std::stoll(text) : -1;
    } else {
      seconds = -1;
    }
  }
  if (seconds <= 0 || seconds > 7 * 24 * 3600) return std::unexpected("the token endpoint's expires_in is not valid");
  const std::string value = token->get<std::string>();
  if (!std::ranges::all_of(value, [](unsigned char c) { return c > 0x20 && c < 0x7F; })) {
    return std::unexpected("the token endpoint's access_token is not printable");
  }
  return AccessToken{value, now + std::chrono::seconds(seconds)};
}

std::expected<SmallAnswer, SmallFetchFailure> fetchSmall(upstream::Transport& transport, const std::string& url,
                                                         const std::string& form,
                                                         const std::vector<std::pair<std::string, std::string>>& headers,
                                                         size_t max_bytes) {
  upstream::Request request;
  request.method = form.empty() ? "GET" : "POST";
  request.url = url;
  request.body = form;
  request.timeouts = catalog::Timeouts{5000, 10000, 10000};
  if (!form.empty()) request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  request.headers.emplace_back("Accept", "application/json");
  for (const auto& header : headers) request.headers.push_back(header);
  try {
    auto response = transport.send(request);
    SmallAnswer answer;
    answer.status = response->status();
    while (answer.body.size() <= max_bytes && response->readSome(answer.body)) {
    }
    if (answer.body.size() > max_bytes) {
      response->abort();
      return std::unexpected(SmallFetchFailure{true, {}});
    }
    return answer;
  } catch (const upstream::TransportError& error) {
    return std::unexpected(SmallFetchFailure{false, std::string(upstream::toString(error.failure()))});
  }
}

std::expected<AccessToken, std::string> fetchToken(upstream::Transport& transport, const std::string& url,
                                                   const std::string& form,
                                                   const std::vector<std::pair<std::string, std::string>>& headers) {
  const auto answer = fetchSmall(transport, url, form, headers, kMaxTokenAnswerBytes);
  if (!answer) {
    if (answer.error().too_large) return std::unexpected("the token endpoint's answer is larger than 64 KiB");
    return std::unexpected("the token endpoint could not be reached (" + answer.error().failure + ")");
  }
  return readTokenAnswer(answer->status, answer->body, std::chrono::system_clock::now());
}

std::expected<std::string, std::string> TokenCache::get(const std::string& key, const Fetch& fetch) {
  const auto give_up = net::fiber::Clock::now() + kWaitForFetch;
  for (;;) {
    std::unique_lock lock(mutex_);
    Entry& entry = entries_[key];
    const Clock::time_point now = clock_();
    // Refresh ahead: with five minutes left, or half the life of a short-lived token; while a
    // refresh is under way, the old token serves as long as it holds.
    if (!entry.token.value.empty() && now < entry.token.expires) {
      const Clock::duration margin =
          std::min<Clock::duration>(std::chrono::minutes(5), (entry.token.expires - entry.fetched_at) / 2);
      if (entry.token.expires - now > margin || entry.fetching) return entry.token.value;
    }
    if (!entry.fetching && !entry.error.empty() && now < entry.error_until) return std::unexpected(entry.error);
    if (entry.fetching) {
      if (net::fiber::Clock::now() >= give_up) return std::unexpected("timed out waiting for a token fetch");
      if (net::fiber::active()) {
        entry.waiters.push_back(net::fiber::currentWaker());
        lock.unlock();
        net::fiber::park(std::min(give_up, net::fiber::Clock::now() + std::chrono::milliseconds(200)));
      } else {
        lock.unlock();
        net::fiber::sleepFor(std::chrono::milliseconds(5));
      }
      continue;
    }
    entry.fetching = true;
    lock.unlock();
    std::expected<AccessToken, std::string> fetched;
    try {
      fetched = fetch();
    } catch (const std::exception&) {
      fetched = std::unexpected("the token fetch failed");
    }
    lock.lock();
    Entry& done = entries_[key];
    done.fetching = false;
    std::vector<net::fiber::Waker> waiters = std::move(done.waiters);
    done.waiters.clear();
    std::expected<std::string, std::string> result;
    if (fetched) {
      done.token = std::move(*fetched);
      done.fetched_at = clock_();
      done.error.clear();
      result = done.token.value;
    } else {
      done.error = fetched.error();
      done.error_until = clock_() + kRememberFailure;
      result = std::unexpected(fetched.error());
    }
    lock.unlock();
    for (const auto& waiter : waiters) waiter.wake();
    return result;
  }
}

void TokenCache::forget(const std::string& key, const std::string& value) {
  std::lock_guard lock(mutex_);
  const auto found = entries_.find(key);
  if (found != entries_.end() && found->second.token.value == value) found->second.token = AccessToken{};
}

std::expected<bool, std::string> TokenCache::standing(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto found = entries_.find(key);
  if (found == entries_.end()) return false;
  if (!found->second.token.value.empty() && clock_() < found->second.token.expires) return true;
  if (!found->second.error.empty()) return std::unexpected(found->second.error);
  return false;
}

}  // namespace sluice::cloud
