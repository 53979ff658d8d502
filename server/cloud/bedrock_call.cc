#include "server/cloud/bedrock_call.h"

#include <strings.h>

#include <algorithm>

#include "server/upstream/url.h"
#include "server/wire/bedrock/invoke.h"
#include "server/wire/json_parse.h"

namespace sluice::cloud {
namespace {

namespace bedrock = wire::bedrock;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr size_t kMaxErrorBytes = 256u << 10;

bool named(const std::string& field, std::string_view name) {
  return field.size() == name.size() && strncasecmp(field.data(), name.data(), name.size()) == 0;
}

std::string valueOf(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (named(key, name)) return value;
  }
  return "";
}

void drop(Headers& headers, std::string_view name) {
  std::erase_if(headers, [&](const auto& field) { return named(field.first, name); });
}

void put(Headers& headers, std::string name, std::string value) {
  drop(headers, name);
  headers.emplace_back(std::move(name), std::move(value));
}

upstream::aws::SigningKeyCache& signingKeys() {
  static upstream::aws::SigningKeyCache cache;  // shared by every fiber: keys per day and region
  return cache;
}

class BedrockAnswer : public upstream::Response {
 public:
  BedrockAnswer(std::unique_ptr<upstream::Response> inner, bool converse)
      : inner_(std::move(inner)),
        status_(inner_->status()),
        reframer_(converse ? bedrock::Framing::ConverseEvents : bedrock::Framing::AnthropicChunks) {
    if (status_ >= 400) {
      std::string raw;
      while (raw.size() < kMaxErrorBytes && inner_->readSome(raw)) {
      }
      if (raw.size() >= kMaxErrorBytes) inner_->abort();
      becomeError(status_, inner_->header("x-amzn-errortype"), raw);
      return;
    }
    if (inner_->header("Content-Type").find("vnd.amazon.eventstream") == std::string::npos) return;
    stream_ = true;
    content_type_ = "text/event-stream";
    fill();  // the first event decides: an answer, or an exception to retry or fail over on
    if (const auto& thrown = reframer_.exception(); thrown && reframer_.chunksBeforeException() == 0) {
      inner_->abort();
      becomeError(bedrock::exceptionStatus(thrown->name), thrown->name,
                  R"({"message":)" + wire::dumpJsonText(wire::Json(thrown->message)) + "}");
    }
  }

  int status() const override { return status_; }

  std::string header(const std::string& name) const override {
    if (named(name, "content-type") && !content_type_.empty()) return content_type_;
    if (named(name, "content-length") && !content_type_.empty()) return whole_ ? std::to_string(body_.size()) : "";
    if (named(name, "request-id")) return inner_->header("x-amzn-requestid");
    return inner_->header(name);
  }

  std::vector<std::pair<std::string, std::string>> headers() const override {
    auto fields = inner_->headers();
    if (!content_type_.empty()) {
      drop(fields, "content-length");
      put(fields, "Content-Type", content_type_);
    }
    return fields;
  }

  bool readSome(std::string& out) override {
    if (whole_) {
      if (body_.empty()) return false;
      out += body_;
      body_.clear();
      return true;
    }
    if (!stream_) return inner_->readSome(out);
    fill();
    if (pending_.empty()) return false;
    out += pending_;
    pending_.clear();
    return true;
  }

  void abort() override { inner_->abort(); }

 private:
  void becomeError(int status, std::string_view error_type, const std::string& raw) {
    const std::string name = bedrock::exceptionName(error_type);
    status_ = status;
    if (name == "throttlingException") status_ = 429;
    if (name == "serviceUnavailableException") status_ = 503;
    body_ = bedrock::anthropicErrorBody(status_, name, raw);
    content_type_ = "application/json";
    whole_ = true;
    stream_ = false;
  }

  // Reads until an Anthropic event is ready or the stream ends; a framing failure throws, once the
  // events decoded before it have been handed out.
  void fill() {
    while (pending_.empty() && !ended_) {
      if (reframer_.failure()) {
        inner_->abort();
        throw upstream::TransportError(upstream::TransportFailure::Protocol,
                                       "Bedrock event stream: " + *reframer_.failure());
      }
      std::string raw;
      const bool more = inner_->readSome(raw);
      pending_ += reframer_.feed(raw);
      if (!more) {
        reframer_.finish();
        ended_ = !reframer_.failure() || !pending_.empty();
        if (reframer_.failure() && pending_.empty()) continue;  // throws above
      }
      if (reframer_.exception()) {
        ended_ = true;  // Bedrock ends a stream with its exception
        inner_->abort();
      }
    }
    if (pending_.empty() && reframer_.failure()) {
      throw upstream::TransportError(upstream::TransportFailure::Protocol,
                                     "Bedrock event stream: " + *reframer_.failure());
    }
  }

  std::unique_ptr<upstream::Response> inner_;
  int status_;
  bool stream_ = false;
  bool whole_ = false;
  bool ended_ = false;
  std::string content_type_;  // "" = the inner answer's
  std::string body_;          // whole_: the answer's body
  std::string pending_;       // stream_: Anthropic SSE not yet handed out
  bedrock::InvokeStreamReframer reframer_;
};

}  // namespace

bool toBedrockInvoke(upstream::Request& call, std::string_view base_url, std::string_view model_id, bool stream) {
  auto body = bedrock::invokeBody(call.body, valueOf(call.headers, "anthropic-beta"));
  if (!body) return false;
  call.body = std::move(*body);
  call.url = std::string(base_url) + bedrock::invokePath(model_id, stream);
  for (const char* name : {"anthropic-beta", "anthropic-version", "x-api-key", "authorization"}) drop(call.headers, name);
  put(call.headers, "Accept", stream ? std::string(bedrock::kEventStreamContentType) : "application/json");
  return true;
}

bool signBedrockCall(upstream::Request& call, const upstream::aws::Credentials& credentials, std::string_view region,
                     std::chrono::system_clock::time_point now) {
  const auto target = upstream::parseUrl(call.url);
  if (!target) return false;
  const size_t question = target->path.find('?');
  upstream::aws::SigningInput input;
  input.method = call.method;
  input.host = target->host_header;
  input.path = std::string_view(target->path).substr(0, question);
  input.query = question == std::string::npos ? std::string_view() : std::string_view(target->path).substr(question + 1);
  for (const char* name : {"Content-Type", "Accept"}) {
    if (const std::string value = valueOf(call.headers, name); !value.empty()) input.headers.emplace_back(name, value);
  }
  input.payload = call.body;
  input.region = region;
  input.service = "bedrock";
  input.now = now;
  input.sign_content_sha256 = true;
  const auto signature = upstream::aws::sign(input, credentials, signingKeys());
  for (const auto& [name, value] : signature.headers) put(call.headers, name, value);
  return true;
}

void bearerBedrockCall(upstream::Request& call, std::string_view api_key) {
  put(call.headers, "Authorization", "Bearer " + std::string(api_key));
}

std::unique_ptr<upstream::Response> bedrockAnswer(std::unique_ptr<upstream::Response> inner, bool converse) {
  return std::make_unique<BedrockAnswer>(std::move(inner), converse);
}

void toBedrockConverse(upstream::Request& call, bool stream) {
  for (const char* name : {"anthropic-beta", "anthropic-version", "x-api-key", "authorization"}) drop(call.headers, name);
  put(call.headers, "Accept", stream ? std::string(bedrock::kEventStreamContentType) : "application/json");
}

}  // namespace sluice::cloud
