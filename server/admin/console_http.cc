#include "server/admin/console_http.h"

#include <Poco/String.h>

namespace sluice::admin {

bool isHttps(const Poco::Net::HTTPServerRequest& request) {
  return request.secure() || Poco::icompare(request.get("X-Forwarded-Proto", ""), "https") == 0;
}

std::string baseUrl(const Poco::Net::HTTPServerRequest& request) {
  return std::string(isHttps(request) ? "https://" : "http://") + request.getHost();
}

std::string sessionCookie(const Poco::Net::HTTPServerRequest& request, const std::string& value, long max_age) {
  std::string text = std::string(kCookie) + "=" + value + "; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=" +
                     std::to_string(max_age);
  if (isHttps(request)) text += "; Secure";
  return text;
}

Reply htmlReply(int status, std::string body) {
  Reply reply;
  reply.status = status;
  reply.content_type = "text/html; charset=utf-8";
  reply.body = std::move(body);
  reply.headers.emplace_back("Cache-Control", "no-store");
  return reply;
}

const char* homeOf(bool admin) { return admin ? "/admin/gateway" : "/admin/account"; }

}  // namespace sluice::admin
