#include "server/cloud/aws_chain.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "server/net/fiber.h"
#include "server/upstream/url.h"

namespace sluice::cloud {
namespace {

using Clock = std::chrono::system_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;
namespace aws = upstream::aws;

constexpr size_t kMaxFileBytes = 16u << 10;
constexpr std::string_view kImdsDefault = "http://169.254.169.254";
constexpr std::string_view kContainerHost = "http://169.254.170.2";

struct Answer {
  int status = 0;
  std::string body;
};

catalog::Timeouts bounded(int connect_ms, int read_ms) { return {connect_ms, read_ms, read_ms}; }

// One bounded exchange: the status and at most kMaxAnswerBytes (+1, so a longer one is seen) of
// the body, or why the source could not be heard.
std::expected<Answer, std::string> call(upstream::Transport& transport, std::string_view what, std::string method,
                                        std::string url, Headers headers, std::string body,
                                        catalog::Timeouts timeouts) {
  upstream::Request request;
  request.method = std::move(method);
  request.url = std::move(url);
  request.headers = std::move(headers);
  request.body = std::move(body);
  request.timeouts = timeouts;
  try {
    auto response = transport.send(request);
    Answer answer{response->status(), {}};
    while (answer.body.size() <= kMaxAnswerBytes && response->readSome(answer.body)) {
    }
    if (answer.body.size() > kMaxAnswerBytes) response->abort();
    return answer;
  } catch (const upstream::TransportError& error) {
    return std::unexpected(std::string(what) + " could not be reached (" +
                           std::string(upstream::toString(error.failure())) + ")");
  }
}

// A token file, read on a helper thread (it may sit on a slow volume), at most 16 KiB, trimmed.
std::expected<std::string, std::string> readTokenFile(const std::string& variable, const std::string& path) {
  return net::fiber::blocking([&]() -> std::expected<std::string, std::string> {
    std::ifstream file(path, std::ios::binary);
    if (!file) return std::unexpected("cannot read " + variable + " (" + path + "): " + std::strerror(errno));
    std::string text(kMaxFileBytes + 1, '\0');
    file.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(file.gcount()));
    if (text.size() > kMaxFileBytes) return std::unexpected(variable + " (" + path + ") is larger than 16 KiB");
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(0, 1);
    const bool printable = std::ranges::all_of(text, [](unsigned char c) { return c > 0x20 && c < 0x7f; });
    if (text.empty() || !printable) return std::unexpected(variable + " (" + path + ") holds no token");
    return text;
  });
}

// IAM's names: a role session name is 2-64 of [\w+=,.@-], a role name 1-64 of the same.
bool validName(std::string_view name, size_t shortest) {
  return name.size() >= shortest && name.size() <= 64 && std::ranges::all_of(name, [](unsigned char c) {
           return std::isalnum(c) || std::strchr("_+=,.@-", c) != nullptr;
         });
}

bool validSessionName(std::string_view name) { return validName(name, 2); }

std::string sessionName(const Environment& env, Clock::time_point now) {
  if (auto name = env("AWS_ROLE_SESSION_NAME"); name && validSessionName(*name)) return *name;
  return "sluice-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
}

std::string region(const Environment& env) {
  if (auto value = env("AWS_REGION")) return *value;
  if (auto value = env("AWS_DEFAULT_REGION")) return *value;
  return "us-east-1";
}

std::string withPath(std::string url) {
  const auto target = upstream::parseUrl(url);
  if (target && target->path == "/" && !url.ends_with("/")) url += "/";
  return url;
}

std::string stsUrl(const Environment& env) {
  if (auto url = env("AWS_ENDPOINT_URL_STS")) return withPath(*url);
  if (auto url = env("AWS_ENDPOINT_URL")) return withPath(*url);
  if (auto value = env("AWS_REGION").has_value() ? env("AWS_REGION") : env("AWS_DEFAULT_REGION")) {
    return "https://sts." + *value + ".amazonaws.com/";
  }
  return "https://sts.amazonaws.com/";
}

const Headers kForm = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};

std::expected<ChainKeys, std::string> webIdentity(upstream::Transport& transport, const Environment& env,
                                                  Clock::time_point now) {
  const auto role_arn = env("AWS_ROLE_ARN");
  if (!role_arn) return std::unexpected("web identity: AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not");
  auto token = readTokenFile("AWS_WEB_IDENTITY_TOKEN_FILE", *env("AWS_WEB_IDENTITY_TOKEN_FILE"));
  if (!token) return std::unexpected("web identity: " + token.error());
  auto answer = call(transport, "STS", "POST", stsUrl(env), kForm,
                     assumeRoleWithWebIdentityBody(*role_arn, sessionName(env, now), *token), bounded(3000, 10000));
  if (!answer) return std::unexpected("web identity: " + answer.error());
  auto keys = readStsAnswer("AssumeRoleWithWebIdentity", answer->status, answer->body);
  if (!keys) return std::unexpected("web identity: " + keys.error());
  return ChainKeys{std::move(*keys), "web identity"};
}

std::expected<ChainKeys, std::string> container(upstream::Transport& transport, const Environment& env) {
  std::string url;
  if (auto relative = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    if (!relative->starts_with("/")) return std::unexpected("container credentials: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI must start with /");
    url = std::string(kContainerHost) + *relative;
  } else {
    url = *env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
    if (auto refusal = containerUrlRefusal(url); !refusal.empty()) return std::unexpected("container credentials: " + refusal);
  }
  Headers headers = {{"Accept", "application/json"}};
  std::optional<std::string> token;
  if (auto file = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")) {
    auto read = readTokenFile("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", *file);
    if (!read) return std::unexpected("container credentials: " + read.error());
    token = std::move(*read);
  } else if (auto value = env("AWS_CONTAINER_AUTHORIZATION_TOKEN")) {
    if (!std::ranges::all_of(*value, [](unsigned char c) { return c >= 0x20 && c < 0x7f; })) {
      return std::unexpected("container credentials: AWS_CONTAINER_AUTHORIZATION_TOKEN holds control characters");
    }
    token = *value;
  }
  if (token) headers.emplace_back("Authorization", *token);
  auto answer = call(transport, "the container credentials endpoint", "GET", url, headers, "", bounded(2000, 5000));
  if (!answer) return std::unexpected("container credentials: " + answer.error());
  auto keys = readJsonKeys("container credentials", answer->status, answer->body);
  if (!keys) return std::unexpected(keys.error());
  return ChainKeys{std::move(*keys), "container credentials"};
}

std::expected<ChainKeys, std::string> instanceMetadata(upstream::Transport& transport, const Environment& env) {
  std::string base = env("AWS_EC2_METADATA_SERVICE_ENDPOINT").value_or(std::string(kImdsDefault));
  while (base.ends_with("/")) base.pop_back();
  const std::string what = "instance metadata (IMDSv2)";
  const auto timeouts = bounded(1000, 1000);
  auto token = call(transport, what, "PUT", base + "/latest/api/token", {{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}},
                    "", timeouts);
  if (!token) return std::unexpected(token.error());
  if (token->status != 200 || token->body.empty() || token->body.size() > 4096 ||
      !std::ranges::all_of(token->body, [](unsigned char c) { return c > 0x20 && c < 0x7f; })) {
    return std::unexpected(what + ": the session token request answered " + std::to_string(token->status));
  }
  const Headers headers = {{"X-aws-ec2-metadata-token", token->body}};
  const std::string path = base + "/latest/meta-data/iam/security-credentials/";
  auto role = call(transport, what, "GET", path, headers, "", timeouts);
  if (!role) return std::unexpected(role.error());
  std::string name = role->body.substr(0, role->body.find('\n'));
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  if (role->status == 404) return std::unexpected(what + ": the instance has no IAM role attached");
  if (role->status != 200 || !validName(name, 1)) {
    return std::unexpected(what + ": the role name request answered " + std::to_string(role->status));
  }
  auto answer = call(transport, what, "GET", path + name, headers, "", timeouts);
  if (!answer) return std::unexpected(answer.error());
  auto keys = readJsonKeys(what, answer->status, answer->body);
  if (!keys) return std::unexpected(keys.error());
  return ChainKeys{std::move(*keys), what};
}

aws::SigningKeyCache& stsSigningKeys() {
  static aws::SigningKeyCache cache;
  return cache;
}

}  // namespace

Environment processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

std::expected<ChainKeys, std::string> fetchChainLinks(upstream::Transport& transport, const Environment& env,
                                                      Clock::time_point now) {
  if (env("AWS_WEB_IDENTITY_TOKEN_FILE")) return webIdentity(transport, env, now);
  if (env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") || env("AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    return container(transport, env);
  }
  if (auto disabled = env("AWS_EC2_METADATA_DISABLED"); disabled && strcasecmp(disabled->c_str(), "true") == 0) {
    return std::unexpected("chain: default found no AWS keys: no AWS_ACCESS_KEY_ID, no web identity, no container "
                           "credentials, and AWS_EC2_METADATA_DISABLED=true");
  }
  return instanceMetadata(transport, env);
}

std::expected<TemporaryKeys, std::string> assumeRole(upstream::Transport& transport, const Environment& env,
                                                     const aws::Credentials& base, const std::string& role_arn,
                                                     Clock::time_point now) {
  const std::string url = stsUrl(env);
  const auto target = upstream::parseUrl(url);
  if (!target) return std::unexpected("AssumeRole: the STS endpoint is not an http(s) URL");
  const std::string body = assumeRoleBody(role_arn, sessionName(env, now));
  const std::string signing_region = region(env);
  aws::SigningInput input;
  input.method = "POST";
  input.host = target->host_header;
  const size_t question = target->path.find('?');
  input.path = std::string_view(target->path).substr(0, question);
  if (question != std::string::npos) input.query = std::string_view(target->path).substr(question + 1);
  input.headers = kForm;
  input.payload = body;
  input.region = signing_region;
  input.service = "sts";
  input.now = now;
  Headers headers = kForm;
  for (auto& field : aws::sign(input, base, stsSigningKeys()).headers) headers.push_back(std::move(field));
  auto answer = call(transport, "STS", "POST", url, std::move(headers), body, bounded(3000, 10000));
  if (!answer) return std::unexpected("AssumeRole " + role_arn + ": " + answer.error());
  auto keys = readStsAnswer("AssumeRole", answer->status, answer->body);
  if (!keys) return std::unexpected("AssumeRole " + role_arn + ": " + keys.error());
  return keys;
}

}  // namespace sluice::cloud
