#include "server/admin/console_http.h"

#include <Poco/String.h>

#include "server/admin/assets.h"

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

Reply adminOnlyPage(const std::string& user) {
  return htmlReply(403, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>For admins · Sluice</title>"
                        "<link rel=\"stylesheet\" href=\"/admin/assets/console.css?v=" + std::string(assetsVersion()) +
                        "\"></head><body><main id=\"main\" class=\"narrow\"><h1>For admins</h1><p id=\"admin-only\">This page is "
                        "for admins; " + htmlEscape(user) + " is a member.</p><p><a href=\"/admin/account\">Your account"
                        "</a> · <a href=\"/admin/requests\">Your requests</a></p></main></body></html>");
}

const char* homeOf(bool admin) { return admin ? "/admin/gateway" : "/admin/account"; }

}  // namespace sluice::admin
