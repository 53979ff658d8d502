#include "server/cloud/aws_answers.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <strings.h>

#include "server/upstream/url.h"
#include "server/wire/json_parse.h"

namespace sluice::cloud {
namespace {

using Clock = std::chrono::system_clock;

constexpr size_t kMaxMessage = 200;
constexpr size_t kMaxTokenBytes = 16u << 10;

// A key, secret or token goes into a header: printable ASCII without spaces, bounded.
bool headerSafe(std::string_view value, size_t limit) {
  return !value.empty() && value.size() <= limit &&
         std::ranges::all_of(value, [](unsigned char c) { return c > 0x20 && c < 0x7f; });
}

std::string cut(std::string_view text) {
  std::string out;
  for (unsigned char c : text.substr(0, kMaxMessage)) out.push_back(c < 0x20 || c == 0x7f ? ' ' : char(c));
  if (text.size() > kMaxMessage) out += "…";
  return out;
}

std::string unescapeXml(std::string_view text) {
  std::string out;
  for (size_t at = 0; at < text.size(); ++at) {
    if (text[at] != '&') {
      out.push_back(text[at]);
      continue;
    }
    static constexpr std::pair<std::string_view, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool known = false;
    for (const auto& [entity, c] : kEntities) {
      if (text.substr(at).starts_with(entity)) {
        out.push_back(c);
        at += entity.size() - 1;
        known = true;
        break;
      }
    }
    if (!known) out.push_back('&');
  }
  return out;
}

// The text of the first <tag>…</tag> inside `xml` (no attributes, no nested elements): nullopt
// when absent or when it holds markup.
std::optional<std::string> element(std::string_view xml, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  const size_t start = xml.find(open);
  if (start == std::string_view::npos) return std::nullopt;
  const size_t from = start + open.size();
  const size_t end = xml.find(close, from);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view inner = xml.substr(from, end - from);
  if (inner.find('<') != std::string_view::npos) return std::nullopt;
  return unescapeXml(inner);
}

std::optional<std::string_view> section(std::string_view xml, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const size_t start = xml.find(open);
  if (start == std::string_view::npos) return std::nullopt;
  const size_t end = xml.find("</" + std::string(tag) + ">", start);
  if (end == std::string_view::npos) return std::nullopt;
  return xml.substr(start + open.size(), end - start - open.size());
}

std::expected<TemporaryKeys, std::string> checked(std::string_view source, std::string key_id, std::string secret,
                                                  std::string token, std::string_view expiration) {
  if (!headerSafe(key_id, 128) || !std::ranges::all_of(key_id, [](unsigned char c) { return std::isalnum(c); })) {
    return std::unexpected(std::string(source) + ": the answer's AccessKeyId is missing or malformed");
  }
  if (!headerSafe(secret, 256)) return std::unexpected(std::string(source) + ": the answer's SecretAccessKey is missing or malformed");
  if (!token.empty() && !headerSafe(token, kMaxTokenBytes)) {
    return std::unexpected(std::string(source) + ": the answer's session token is malformed");
  }
  TemporaryKeys out{{std::move(key_id), std::move(secret), std::move(token)}, std::nullopt};
  if (!expiration.empty()) {
    out.expiration = parseIso8601(expiration);
    if (!out.expiration) return std::unexpected(std::string(source) + ": the answer's Expiration is not an ISO 8601 time");
  }
  return out;
}

bool digits(std::string_view text, size_t at, size_t count, int& out) {
  if (at + count > text.size()) return false;
  const auto [end, error] = std::from_chars(text.data() + at, text.data() + at + count, out);
  return error == std::errc() && end == text.data() + at + count;
}

}  // namespace

std::optional<Clock::time_point> parseIso8601(std::string_view text) {
  int year, month, day, hour, minute, second;
  if (text.size() < 20 || text.size() > 40 || !digits(text, 0, 4, year) || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) || (text[10] != 'T' && text[10] != 't') ||
      !digits(text, 11, 2, hour) || text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' ||
      !digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
  }
  int offset_minutes = 0;
  const std::string_view zone = text.substr(at);
  if (zone == "Z" || zone == "z") {
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int hours, minutes;
    if (!digits(zone, 1, 2, hours) || !digits(zone, 4, 2, minutes)) return std::nullopt;
    offset_minutes = (zone[0] == '+' ? 1 : -1) * (hours * 60 + minutes);
  } else {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(unsigned(month)),
                                         std::chrono::day(unsigned(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  return std::chrono::sys_days(date) + std::chrono::hours(hour) + std::chrono::minutes(minute - offset_minutes) +
         std::chrono::seconds(second);
}

std::expected<TemporaryKeys, std::string> readStsAnswer(std::string_view action, int status, std::string_view body) {
  const std::string source = "STS " + std::string(action);
  if (body.size() > kMaxAnswerBytes) return std::unexpected(source + ": the answer is larger than 64 KiB");
  if (status != 200) {
    const auto code = element(body, "Code");
    const auto message = element(body, "Message");
    return std::unexpected(source + " answered " + std::to_string(status) + (code ? ": " + cut(*code) : "") +
                           (message ? ": " + cut(*message) : ""));
  }
  const auto credentials = section(body, "Credentials");
  if (!credentials) return std::unexpected(source + ": the answer has no <Credentials>");
  return checked(source, element(*credentials, "AccessKeyId").value_or(""),
                 element(*credentials, "SecretAccessKey").value_or(""),
                 element(*credentials, "SessionToken").value_or(""), element(*credentials, "Expiration").value_or("?"));
}

std::expected<TemporaryKeys, std::string> readJsonKeys(std::string_view source, int status, std::string_view body) {
  const std::string name(source);
  if (body.size() > kMaxAnswerBytes) return std::unexpected(name + ": the answer is larger than 64 KiB");
  const wire::Json json = wire::parseBounded(body);
  if (status != 200) {
    std::string why = name + " answered " + std::to_string(status);
    if (json.is_object()) {
      for (const char* field : {"code", "Code", "message", "Message"}) {
        if (json.contains(field) && json[field].is_string()) why += ": " + cut(json[field].get<std::string>());
      }
    }
    return std::unexpected(why);
  }
  if (!json.is_object()) return std::unexpected(name + ": the answer is not a JSON object");
  auto text = [&](const char* field) {
    return json.contains(field) && json[field].is_string() ? json[field].get<std::string>() : std::string();
  };
  if (json.contains("Code") && text("Code") != "Success") {
    return std::unexpected(name + ": the answer's Code is " + cut(text("Code")) + ": " + cut(text("Message")));
  }
  const std::string expiration = text("Expiration");
  return checked(source, text("AccessKeyId"), text("SecretAccessKey"), text("Token"),
                 json.contains("Expiration") ? std::string_view(expiration) : std::string_view("?"));
}

std::string containerUrlRefusal(std::string_view url) {
  const auto target = upstream::parseUrl(url);
  if (!target) return "AWS_CONTAINER_CREDENTIALS_FULL_URI is not an http:// or https:// URL";
  if (url.size() >= 8 && strncasecmp(url.data(), "https://", 8) == 0) return "";
  const std::string& host = target->host;
  bool allowed = host == "localhost" || host == "::1" || host == "169.254.170.2" || host == "169.254.170.23" ||
                 host == "fd00:ec2::23";
  if (!allowed && host.starts_with("127.")) {
    int dots = 1;
    allowed = std::ranges::all_of(std::string_view(host).substr(4), [&](unsigned char c) {
      dots += c == '.';
      return std::isdigit(c) || c == '.';
    }) && dots == 3;
  }
  if (allowed) return "";
  return "AWS_CONTAINER_CREDENTIALS_FULL_URI over http must name a loopback address or 169.254.170.2, "
         "169.254.170.23 or fd00:ec2::23 (use https for any other host)";
}

Clock::duration refreshLead(Clock::time_point fetched_at, Clock::time_point expiration) {
  const Clock::duration lifetime = std::max(expiration - fetched_at, Clock::duration::zero());
  return std::min<Clock::duration>(std::chrono::minutes(5), lifetime / 4);
}

std::string assumeRoleWithWebIdentityBody(std::string_view role_arn, std::string_view session_name,
                                          std::string_view token) {
  return "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" + upstream::aws::uriEncode(role_arn) +
         "&RoleSessionName=" + upstream::aws::uriEncode(session_name) +
         "&WebIdentityToken=" + upstream::aws::uriEncode(token);
}

std::string assumeRoleBody(std::string_view role_arn, std::string_view session_name) {
  return "Action=AssumeRole&Version=2011-06-15&RoleArn=" + upstream::aws::uriEncode(role_arn) +
         "&RoleSessionName=" + upstream::aws::uriEncode(session_name);
}

}  // namespace sluice::cloud
