#include "server/protection/detectors.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "server/protection/scan_util.h"
#include "server/protection/scanners.h"
#include "server/text/utf8.h"

namespace sluice::protection {
namespace {

constexpr std::array<std::string_view, kKindCount> kNames = {
    "email", "phone", "payment_card", "iban", "api_key", "jwt", "private_key", "password", "url_credentials", "ip_address",
    "vault"};

// What a byte starts, for the scan loop: nothing (most bytes), a word, or one of the punctuation
// triggers handled by its own case.
enum : uint8_t { kNone = 0, kWord = 1, kPunct = 2 };

constexpr std::array<uint8_t, 256> makeClasses() {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    if (isWordByte(ch)) classes[c] = kWord;
  }
  for (const char c : std::string_view("@+(:=-")) classes[static_cast<unsigned char>(c)] = kPunct;
  return classes;
}
constexpr std::array<uint8_t, 256> kClasses = makeClasses();

bool isWellFormedUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t length = text::utf8SequenceLength(s, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

}  // namespace

std::string_view toString(Kind kind) { return kNames[static_cast<size_t>(kind)]; }

std::optional<Kind> kindFromString(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<Kind>(i);
  }
  return std::nullopt;
}

void resolveOverlaps(std::vector<Span>& spans) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    if (a.offset != b.offset) return a.offset < b.offset;
    if (a.length != b.length) return a.length > b.length;
    return a.kind < b.kind;
  });
  size_t kept = 0;
  size_t covered = 0;
  for (const Span& span : spans) {
    if (span.length == 0 || (kept > 0 && span.offset < covered)) continue;
    spans[kept++] = span;
    covered = span.end();
  }
  spans.resize(kept);
}

std::vector<std::string> parseVault(std::string_view file_text) {
  std::vector<std::string> entries;
  size_t start = 0;
  while (start < file_text.size()) {
    size_t end = file_text.find('\n', start);
    if (end == std::string_view::npos) end = file_text.size();
    std::string_view line = file_text.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    entries.emplace_back(line);
  }
  return entries;
}

std::expected<Detector, std::string> Detector::create(const std::set<Kind>& kinds,
                                                      const std::vector<std::string>& vault) {
  if (vault.size() > kMaxVaultEntries) {
    return std::unexpected("the vault has " + std::to_string(vault.size()) + " entries, more than the " +
                           std::to_string(kMaxVaultEntries) + " allowed");
  }
  Detector detector;
  for (const Kind kind : kinds) {
    if (kind != Kind::Vault) detector.mask_ |= bit(kind);
  }
  std::vector<ExactMatcher::Entry> entries;
  size_t bytes = 0;
  for (size_t i = 0; i < vault.size(); ++i) {
    const std::string& entry = vault[i];
    if (entry.size() < kMinVaultEntryBytes || entry.size() > kMaxVaultEntryBytes || !isWellFormedUtf8(entry)) {
      return std::unexpected("vault entry " + std::to_string(i + 1) + " is " +
                             (isWellFormedUtf8(entry) ? "shorter than " + std::to_string(kMinVaultEntryBytes) +
                                                            " or longer than " + std::to_string(kMaxVaultEntryBytes) +
                                                            " bytes"
                                                      : std::string("not well-formed UTF-8")));
    }
    bytes += entry.size();
    if (bytes > kMaxVaultBytes) {
      return std::unexpected("the vault's entries hold more than the " + std::to_string(kMaxVaultBytes) +
                             " bytes allowed (from entry " + std::to_string(i + 1) + " on)");
    }
    entries.push_back({entry, 0});
  }
  detector.vault_ = ExactMatcher::build(entries);
  if (!detector.vault_.empty()) detector.mask_ |= bit(Kind::Vault);
  return detector;
}

std::vector<Span> Detector::find(std::string_view text) const {
  std::vector<Span> spans;
  collect(text, spans);
  resolveOverlaps(spans);
  return spans;
}

bool Detector::collect(std::string_view t, std::vector<Span>& out, ScanBudget* budget) const {
  if (mask_ == 0) return true;
  const size_t n = t.size();
  const bool email = enabled(Kind::Email);
  const bool url = enabled(Kind::UrlCredentials);
  const bool phone = enabled(Kind::Phone);
  const bool card = enabled(Kind::PaymentCard);
  const bool iban = enabled(Kind::Iban);
  const bool ip = enabled(Kind::IpAddress);
  const bool key = enabled(Kind::ApiKey);
  const bool jwt = enabled(Kind::Jwt);
  const bool pem = enabled(Kind::PrivateKey);
  const bool password = enabled(Kind::Password);

  // Records a hit and returns where the scan goes on: past the hit, so one value is read once.
  const auto take = [&](Kind kind, const scan::Hit& hit) {
    out.push_back({kind, hit.offset, hit.length});
    return hit.offset + hit.length;
  };

  scan::Memos memos;
  size_t charged = 0;  // bytes charged to the budget so far
  size_t i = 0;
  while (i < n) {
    if (budget != nullptr && i - charged >= ScanBudget::kBytesPerReading) {
      if (!budget->charge(i - charged)) return false;
      charged = i;
    }
    const char c = t[i];
    const uint8_t cls = kClasses[static_cast<unsigned char>(c)];
    if (cls == kNone) {
      ++i;
      continue;
    }
    if (cls == kWord) {
      if (i > 0 && isWordByte(t[i - 1])) {
        ++i;
        continue;
      }
      // The first byte of a word: numbers, keys, tokens, IBANs and IPv6 addresses start here.
      std::optional<scan::Hit> hit;
      Kind kind = Kind::Email;
      if (isDigit(c)) {
        if (ip && (hit = scan::ipv4(t, i))) {
          kind = Kind::IpAddress;
        } else if (ip && (hit = scan::ipv6(t, i))) {
          kind = Kind::IpAddress;
        } else if (card && (hit = scan::paymentCard(t, i))) {
          kind = Kind::PaymentCard;
        } else if (phone && (hit = scan::phone(t, i))) {
          kind = Kind::Phone;
        }
      } else {
        if (key && std::string_view("srpAgx").contains(c) && (hit = scan::apiKey(t, i))) {
          kind = Kind::ApiKey;
        } else if (jwt && c == 'e' && (hit = scan::jwt(t, i))) {
          kind = Kind::Jwt;
        } else if (iban && isUpper(c) && (hit = scan::iban(t, i))) {
          kind = Kind::Iban;
        } else if (ip && isHex(c) && (hit = scan::ipv6(t, i))) {
          kind = Kind::IpAddress;
        }
      }
      if (hit) {
        i = take(kind, *hit);
        continue;
      }
      while (i < n && isWordByte(t[i])) ++i;
      continue;
    }
    switch (c) {
      case '@':
        if (email || url) {
          bool in_authority = false;
          const auto credentials = scan::urlCredentials(t, i, in_authority);
          if (url && credentials) {
            take(Kind::UrlCredentials, *credentials);
          } else if (email && !in_authority) {
            if (const auto hit = scan::email(t, i, memos)) {
              i = take(Kind::Email, *hit);
              continue;
            }
          }
        }
        break;
      case '+':
        if (phone && isDigit(at(t, i + 1))) {
          if (const auto hit = scan::phone(t, i)) {
            i = take(Kind::Phone, *hit);
            continue;
          }
        }
        break;
      case '(':
        if (phone && isDigit(at(t, i + 1))) {
          if (const auto hit = scan::phone(t, i)) {
            i = take(Kind::Phone, *hit);
            continue;
          }
        }
        break;
      case ':':
        if (ip && at(t, i + 1) == ':' && !isHex(before(t, i))) {
          if (const auto hit = scan::ipv6(t, i)) {
            i = take(Kind::IpAddress, *hit);
            continue;
          }
        }
        [[fallthrough]];
      case '=':
        if (password) {
          if (const auto hit = scan::password(t, i, memos)) {
            i = take(Kind::Password, *hit);
            continue;
          }
        }
        break;
      case '-':
        if (pem && at(t, i + 4) == '-' && at(t, i + 5) == 'B') {
          if (const auto hit = scan::privateKey(t, i, memos)) {
            i = take(Kind::PrivateKey, *hit);
            continue;
          }
        }
        break;
      default:
        break;
    }
    ++i;
  }

  if (budget != nullptr && !budget->charge(n - std::min(n, charged))) return false;

  if (!vault_.empty()) {
    std::vector<ExactMatcher::Match> matches;
    if (!vault_.findAll(t, matches, budget)) return false;
    for (const ExactMatcher::Match& match : matches) out.push_back({Kind::Vault, match.offset, match.length});
  }
  return true;
}

}  // namespace sluice::protection
