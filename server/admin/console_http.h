#pragma once
// What the console's handlers share about HTTP: the session cookie, how the browser reached the
// gateway, HTML replies and where a member lands once signed in.

#include <string>

#include <Poco/Net/HTTPServerRequest.h>

#include "server/admin/exchange.h"

namespace sluice::admin {

// The console session's cookie name.
inline constexpr const char* kCookie = "sluice_console";

// True when the request came over HTTPS, directly or as X-Forwarded-Proto says.
bool isHttps(const Poco::Net::HTTPServerRequest& request);
// "http(s)://<Host>" as the browser reached the gateway.
std::string baseUrl(const Poco::Net::HTTPServerRequest& request);
// The session cookie carrying `value` (Path=/admin; HttpOnly; SameSite=Strict; Secure over HTTPS);
// max_age 0 clears it.
std::string sessionCookie(const Poco::Net::HTTPServerRequest& request, const std::string& value, long max_age);
// A text/html page, never cached.
Reply htmlReply(int status, std::string body);
// The page a member who is not an admin gets for an admin's page (403).
Reply adminOnlyPage(const std::string& user);
// Where a member lands once signed in: admins on the gateway, others on their account.
const char* homeOf(bool admin);

}  // namespace sluice::admin
