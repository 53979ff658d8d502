#include "server/identity/certificate_subject.h"

#include <algorithm>

namespace sluice::identity {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Printable: no control characters (bytes of UTF-8 above 0x7f are allowed in a CN).
bool printable(std::string_view value) {
  return std::none_of(value.begin(), value.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

bool usable(std::string_view value) { return !value.empty() && value.size() <= kMaxSubjectValue && printable(value); }

bool oneAddress(std::string_view email) {
  const size_t at = email.find('@');
  return usable(email) && at != std::string_view::npos && at > 0 && at + 1 < email.size() &&
         email.find('@', at + 1) == std::string_view::npos && email.find(' ') == std::string_view::npos;
}

}  // namespace

std::expected<std::string, std::string> parseCertSubject(std::string_view text) {
  const std::string expected =
      "expected cn:NAME (the subject's common name), uri:URI or email:ADDRESS (a subjectAltName)";
  std::string_view kind;
  std::string_view value;
  const size_t colon = text.find(':');
  const size_t equals = text.find('=');
  if (equals != std::string_view::npos && (colon == std::string_view::npos || equals < colon) &&
      lower(text.substr(0, equals)) == "cn") {
    kind = "cn";  // OpenSSL's spelling: CN=alice
    value = text.substr(equals + 1);
  } else if (colon != std::string_view::npos) {
    kind = text.substr(0, colon);
    value = text.substr(colon + 1);
  } else {
    return std::unexpected("'" + std::string(text.substr(0, 64)) + "' is not a certificate subject: " + expected);
  }
  const std::string which = lower(kind);
  if (which != "cn" && which != "uri" && which != "email") {
    return std::unexpected("'" + std::string(text.substr(0, 64)) + "' is not a certificate subject: " + expected);
  }
  if (!usable(value)) {
    return std::unexpected("the " + which + " of a certificate subject must be 1 to " +
                           std::to_string(kMaxSubjectValue) + " characters without control characters");
  }
  if (which == "email") {
    if (!oneAddress(value)) return std::unexpected("'" + std::string(value.substr(0, 64)) + "' is not one e-mail address");
    return "email:" + lower(value);
  }
  return which + ":" + std::string(value);
}

std::vector<std::string> subjectsOf(const CertificateNames& names) {
  std::vector<std::string> out;
  const auto add = [&](std::string subject) {
    if (std::find(out.begin(), out.end(), subject) == out.end()) out.push_back(std::move(subject));
  };
  if (usable(names.common_name)) add("cn:" + names.common_name);
  size_t taken = 0;
  for (const std::string& uri : names.uris) {
    if (taken == kMaxNamesPerKind) break;
    if (usable(uri)) add("uri:" + uri), ++taken;
  }
  taken = 0;
  for (const std::string& email : names.emails) {
    if (taken == kMaxNamesPerKind) break;
    if (oneAddress(email)) add("email:" + lower(email)), ++taken;
  }
  return out;
}

std::string emailSubject(std::string_view email) {
  if (!oneAddress(email)) return "";
  return "email:" + lower(email);
}

}  // namespace sluice::identity
