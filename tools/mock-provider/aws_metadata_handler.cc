#include "tools/mock-provider/aws_metadata_handler.h"

#include <thread>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include "tools/mock-provider/aws_metadata.h"
#include "tools/mock-provider/error_spec.h"

namespace sluice::mock {

namespace {
constexpr size_t kMaxBody = 64u << 10;
}

void AwsMetadataHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  ReceivedRequest received;
  received.method = request.getMethod();
  const std::string& uri = request.getURI();
  const size_t question = uri.find('?');
  received.path = uri.substr(0, question);
  if (question != std::string::npos) received.query = uri.substr(question + 1);
  for (const auto& [name, value] : request) received.headers.emplace_back(name, value);
  char buffer[8192];
  std::istream& in = request.stream();
  while (in && received.body.size() <= kMaxBody) {
    in.read(buffer, sizeof buffer);
    received.body.append(buffer, static_cast<size_t>(in.gcount()));
  }
  if (received.path != "/_mock/aws") std::this_thread::sleep_for(context_.awsKeys().delay());
  AwsAnswer answer = received.body.size() > kMaxBody
                         ? AwsAnswer{413, "text/plain", "Request Entity Too Large"}
                         : answerAwsCredentials(received, context_.awsKeys(), std::chrono::system_clock::now());
  if (received.body.size() > kMaxBody) response.setKeepAlive(false);
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.status), reasonPhrase(answer.status));
  response.setContentType(answer.content_type);
  response.setContentLength(static_cast<std::streamsize>(answer.body.size()));
  response.sendBuffer(answer.body.data(), answer.body.size());
}

}  // namespace sluice::mock
