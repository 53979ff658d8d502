#include "server/http/server_response.h"

#include <fstream>
#include <iterator>
#include <string_view>

#include <Poco/Exception.h>

namespace sluice::http {

namespace {

// The reason phrase of `status` itself. Poco's response starts with the reason "OK" and
// setStatus() leaves it as it was, so the stored reason would put "405 OK" on the wire.
std::string_view reasonPhrase(Poco::Net::HTTPResponse::HTTPStatus status) {
  if (static_cast<int>(status) == 529) return "Overloaded";  // Anthropic's, unknown to Poco
  const std::string& known = Poco::Net::HTTPResponse::getReasonForStatus(status);
  return known == Poco::Net::HTTPResponse::HTTP_REASON_UNKNOWN ? std::string_view("Unknown") : known;
}

}  // namespace

ServerResponse::~ServerResponse() = default;

std::string ServerResponse::renderHead() const {
  std::string head;
  head.reserve(256);
  head += getVersion();
  head += ' ';
  head += std::to_string(static_cast<int>(getStatus()));
  head += ' ';
  head += reasonPhrase(getStatus());
  head += "\r\n";
  for (const auto& [name, value] : *this) {
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  }
  head += "\r\n";
  return head;
}

void ServerResponse::sendContinue() {
  static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  socket_.write(kContinue);
}

std::ostream& ServerResponse::send() {
  if (sent_) throw Poco::IllegalStateException("response already sent");
  sent_ = true;
  BodyWriter::Framing framing = BodyWriter::Framing::Length;
  uint64_t length = 0;
  const int status = static_cast<int>(getStatus());
  if (status < 200 || status == HTTP_NO_CONTENT || status == HTTP_NOT_MODIFIED) {
    framing = BodyWriter::Framing::Length;
  } else if (getChunkedTransferEncoding()) {
    framing = BodyWriter::Framing::Chunked;
  } else if (hasContentLength()) {
    length = static_cast<uint64_t>(getContentLength64());
  } else {
    framing = BodyWriter::Framing::Close;
    setKeepAlive(false);
  }
  writer_ = std::make_unique<BodyWriter>(socket_, renderHead(), framing, length, head_only_);
  writer_->setTap(tap_);
  stream_ = std::make_unique<std::ostream>(writer_.get());
  return *stream_;
}

void ServerResponse::setBodyTap(util::BodyTap* tap) {
  tap_ = tap;
  if (writer_) writer_->setTap(tap);
}

void ServerResponse::sendBuffer(const void* buffer, std::size_t length) {
  if (sent_) throw Poco::IllegalStateException("response already sent");
  sent_ = true;
  setChunkedTransferEncoding(false);
  setContentLength64(static_cast<Poco::Int64>(length));
  const std::string head = renderHead();
  const std::string_view body = head_only_ || length == 0 ? std::string_view{}
                                                          : std::string_view(static_cast<const char*>(buffer), length);
  if (tap_ != nullptr) tap_->bytes(body);
  ok_ = socket_.write({head, body});
}

void ServerResponse::sendFile(const std::string& path, const std::string& media_type) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Poco::OpenFileException(path);
  const std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  setContentType(media_type);
  sendBuffer(content.data(), content.size());
}

void ServerResponse::redirect(const std::string& uri, HTTPStatus status) {
  setStatusAndReason(status);
  set("Location", uri);
  sendBuffer(nullptr, 0);
}

void ServerResponse::requireAuthentication(const std::string& realm) {
  setStatusAndReason(HTTP_UNAUTHORIZED);
  set("WWW-Authenticate", "Basic realm=\"" + realm + "\"");
  sendBuffer(nullptr, 0);
}

bool ServerResponse::finish() {
  if (!sent_) return false;
  if (writer_) {
    stream_->flush();
    return writer_->finish();
  }
  return ok_;
}

}  // namespace sluice::http
