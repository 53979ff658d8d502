#include "tools/mock-provider/aws_metadata.h"

#include <cctype>
#include <ctime>
#include <map>

#include <nlohmann/json.hpp>

#include "tools/mock-provider/bedrock_auth.h"

namespace sluice::mock {
namespace {

using Clock = std::chrono::system_clock;
constexpr const char* kImdsToken = "mock-imds-session-token";
constexpr const char* kRoleName = "sluice-mock-role";
constexpr const char* kCredentialsPath = "/latest/meta-data/iam/security-credentials/";

std::string iso8601(Clock::time_point when) {
  const std::time_t seconds = Clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string urlDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::map<std::string, std::string> formOf(std::string_view body) {
  std::map<std::string, std::string> form;
  for (size_t at = 0; at < body.size();) {
    const size_t amp = std::min(body.find('&', at), body.size());
    const std::string_view pair = body.substr(at, amp - at);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos) form[urlDecode(pair.substr(0, eq))] = urlDecode(pair.substr(eq + 1));
    at = amp + 1;
  }
  return form;
}

std::string xmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

AwsAnswer stsError(int status, const std::string& code, const std::string& message) {
  return {status, "text/xml",
          "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n  <Error>\n    <Type>Sender</Type>\n"
          "    <Code>" + xmlEscape(code) + "</Code>\n    <Message>" + xmlEscape(message) +
          "</Message>\n  </Error>\n  <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>\n</ErrorResponse>\n"};
}

AwsAnswer stsCredentials(const std::string& action, const AwsKeyring::Issued& issued, const std::string& role_arn,
                         const std::string& session, const std::string& extra) {
  std::string account = "123456789012";
  if (const size_t iam = role_arn.find(":iam::"); iam != std::string::npos) {
    account = role_arn.substr(iam + 6, role_arn.find(':', iam + 6) - iam - 6);
  }
  const std::string role = role_arn.substr(role_arn.rfind('/') + 1);
  return {200, "text/xml",
          "<" + action + "Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n  <" + action + "Result>\n" +
              extra + "    <AssumedRoleUser>\n      <Arn>arn:aws:sts::" + xmlEscape(account) + ":assumed-role/" +
              xmlEscape(role) + "/" + xmlEscape(session) + "</Arn>\n      <AssumedRoleId>AROA3XFRBF535PLBIFPI4:" +
              xmlEscape(session) + "</AssumedRoleId>\n    </AssumedRoleUser>\n    <Credentials>\n      <AccessKeyId>" +
              issued.access_key_id + "</AccessKeyId>\n      <SecretAccessKey>" + issued.secret_access_key +
              "</SecretAccessKey>\n      <SessionToken>" + issued.session_token + "</SessionToken>\n      <Expiration>" +
              iso8601(issued.expiration) + "</Expiration>\n    </Credentials>\n  </" + action +
              "Result>\n  <ResponseMetadata>\n    <RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE</RequestId>\n"
              "  </ResponseMetadata>\n</" + action + "Response>\n"};
}

// STS names its signature refusals differently from Bedrock.
std::string stsCode(const std::string& bedrock_type) {
  if (bedrock_type == "InvalidSignatureException") return "SignatureDoesNotMatch";
  if (bedrock_type == "UnrecognizedClientException") return "InvalidClientTokenId";
  if (bedrock_type == "ExpiredTokenException") return "ExpiredToken";
  if (bedrock_type.ends_with("Exception")) return bedrock_type.substr(0, bedrock_type.size() - 9);
  return bedrock_type;
}

AwsAnswer sts(const ReceivedRequest& request, AwsKeyring& keys, Clock::time_point now) {
  if (request.method != "POST") return stsError(400, "InvalidAction", "STS answers POST");
  const auto form = formOf(request.body);
  auto value = [&](const char* name) {
    auto found = form.find(name);
    return found == form.end() ? std::string() : found->second;
  };
  const std::string action = value("Action");
  const std::string role_arn = value("RoleArn");
  const std::string session = value("RoleSessionName");
  if (value("Version") != "2011-06-15") return stsError(400, "InvalidAction", "Could not find operation " + action + " for version " + value("Version"));
  if (action == "AssumeRoleWithWebIdentity") {
    if (role_arn.empty() || session.empty() || value("WebIdentityToken").empty()) {
      return stsError(400, "MissingParameter", "AssumeRoleWithWebIdentity needs RoleArn, RoleSessionName and WebIdentityToken");
    }
    if (value("WebIdentityToken") == "invalid") return stsError(400, "InvalidIdentityToken", "Couldn't retrieve verification key from your identity provider");
    const auto issued = keys.serve("sts_web_identity", now, false);
    return stsCredentials(action, issued, role_arn, session,
                          "    <SubjectFromWebIdentityToken>system:serviceaccount:ai:sluice</SubjectFromWebIdentityToken>\n"
                          "    <Audience>sts.amazonaws.com</Audience>\n    <Provider>arn:aws:iam::123456789012:oidc-provider/mock</Provider>\n");
  }
  if (action == "AssumeRole") {
    if (auto refused = checkAwsSignature(request, keys, "sts", now)) return stsError(403, stsCode(refused->type), refused->message);
    if (role_arn.empty() || session.empty()) return stsError(400, "MissingParameter", "AssumeRole needs RoleArn and RoleSessionName");
    return stsCredentials(action, keys.serve("sts_assume_role", now, false), role_arn, session, "");
  }
  return stsError(400, "InvalidAction", "Could not find operation " + action + " for version 2011-06-15");
}

AwsAnswer jsonKeys(const AwsKeyring::Issued& issued, bool imds) {
  nlohmann::ordered_json body;
  if (imds) body = {{"Code", "Success"}, {"LastUpdated", iso8601(issued.expiration - std::chrono::seconds(1))}, {"Type", "AWS-HMAC"}};
  body["AccessKeyId"] = issued.access_key_id;
  body["SecretAccessKey"] = issued.secret_access_key;
  body["Token"] = issued.session_token;
  body["Expiration"] = iso8601(issued.expiration);
  if (!imds) body["AccountId"] = "123456789012";
  return {200, "application/json", body.dump()};
}

AwsAnswer imds(const ReceivedRequest& request, AwsKeyring& keys, Clock::time_point now) {
  if (request.path == "/latest/api/token") {
    if (request.method != "PUT") return {405, "text/plain", "Method Not Allowed"};
    const std::string ttl = findHeader(request.headers, "x-aws-ec2-metadata-token-ttl-seconds").value_or("");
    int seconds = 0;
    try {
      seconds = std::stoi(ttl);
    } catch (...) {
    }
    if (seconds < 1 || seconds > 21600) return {400, "text/plain", "Bad Request"};
    return {200, "text/plain", kImdsToken};
  }
  if (findHeader(request.headers, "x-aws-ec2-metadata-token").value_or("") != kImdsToken) {
    return {401, "text/plain", "Unauthorized"};
  }
  if (request.method != "GET") return {405, "text/plain", "Method Not Allowed"};
  if (request.path == kCredentialsPath || request.path + "/" == kCredentialsPath) return {200, "text/plain", kRoleName};
  if (request.path == std::string(kCredentialsPath) + kRoleName) return jsonKeys(keys.serve("imds", now, true), true);
  return {404, "text/html", "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n<title>404 - Not Found</title>\n"};
}

}  // namespace

bool isAwsCredentialPath(const std::string& path) {
  return path == "/sts" || path.starts_with("/sts/") || path.starts_with("/container/") ||
         path.starts_with("/latest/") || path == "/_mock/aws";
}

AwsAnswer answerAwsCredentials(const ReceivedRequest& request, AwsKeyring& keys, Clock::time_point now) {
  if (request.path == "/_mock/aws") {
    nlohmann::ordered_json body = {{"issued", keys.issuedCount()}, {"served", keys.servedBySource()}};
    return {200, "application/json", body.dump()};
  }
  if (request.path == "/sts" || request.path.starts_with("/sts/")) return sts(request, keys, now);
  if (request.path.starts_with("/latest/")) return imds(request, keys, now);
  if (request.path != "/container/credentials") return {404, "application/json", R"({"message":"not found"})"};
  if (request.method != "GET") return {405, "application/json", R"({"message":"method not allowed"})"};
  const std::string token = keys.containerToken();
  if (!token.empty() && findHeader(request.headers, "authorization").value_or("") != token) {
    return {401, "application/json", R"({"code":"AccessDeniedException","message":"Unauthorized: the authorization token is missing or invalid"})"};
  }
  return jsonKeys(keys.serve("container", now, true), false);
}

}  // namespace sluice::mock
