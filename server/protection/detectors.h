#pragma once
// Finds the values data protection masks in a piece of text: secrets (API keys, JWTs, private
// keys, passwords, credentials in URLs), personal data (e-mail addresses, phone numbers, payment
// cards, IBANs, IP addresses) and the operator's vault of exact strings. Pure: text in, spans out.
//
// Every detector is a hand-written scanner (no regular expressions): one pass over the bytes stops
// only at trigger bytes ('@', '+', '(', ':', '=', '-', and the first byte of a word) and inspects
// the few bytes around them, so ordinary prose and code cost a table lookup per byte; what a
// scanner would look for further away is searched once per text and shared by every trigger
// (scan_memo.h), so any text, however hostile, costs time linear in its length. The precision
// rules (what each kind accepts and what it refuses) are listed in docs/data-protection.md; the
// false-positive corpus in tests/fixtures/protection/ holds the code and log shapes they must leave
// alone.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "server/protection/exact_matcher.h"
#include "server/protection/scan_budget.h"

namespace sluice::protection {

// The kinds of value, in the catalog's `mask:` spelling (toString) and the placeholder's upper-case
// spelling (placeholderName in placeholder.h). Vault covers every entry of the vault file.
enum class Kind { Email, Phone, PaymentCard, Iban, ApiKey, Jwt, PrivateKey, Password, UrlCredentials, IpAddress, Vault };
inline constexpr int kKindCount = 11;

// "email", "phone", "payment_card", "iban", "api_key", "jwt", "private_key", "password",
// "url_credentials", "ip_address", "vault".
std::string_view toString(Kind kind);
// The kind of a catalog spelling; nullopt for anything else (case-sensitive).
std::optional<Kind> kindFromString(std::string_view name);

// A value to mask: `length` bytes of the scanned text from `offset`.
struct Span {
  Kind kind = Kind::Email;
  size_t offset = 0;
  size_t length = 0;

  size_t end() const { return offset + length; }
  bool operator==(const Span&) const = default;
};

// Sorts `spans` by offset and keeps a non-overlapping subset: of spans that overlap, the one that
// starts first wins, then the longer one, then the kind listed first in Kind (so an API key found
// as a password's value is still an API key).
void resolveOverlaps(std::vector<Span>& spans);

// Limits on a vault, checked by Detector::create.
inline constexpr size_t kMaxVaultEntries = 100'000;
inline constexpr size_t kMaxVaultEntryBytes = 1024;
inline constexpr size_t kMinVaultEntryBytes = 2;
// The entries' bytes together: the vault's automaton takes about 40 bytes of memory per byte.
inline constexpr size_t kMaxVaultBytes = 4u << 20;

// The entries of a vault file's text: one per line, surrounding spaces, tabs and a trailing CR
// removed; blank lines and lines starting with '#' skipped. Duplicates are kept (create ignores
// them). The caller reads the file; this only splits its text.
std::vector<std::string> parseVault(std::string_view file_text);

// The set of enabled detectors and the vault, compiled once (per catalog) and shared read-only by
// every request: find() is const and keeps no state, so concurrent calls are safe.
class Detector {
 public:
  // The detectors for `kinds` (Kind::Vault in `kinds` is ignored: the vault is on when `vault` is
  // not empty). Refuses, with a message naming the entry by its line-free position (never its
  // text), a vault with more than kMaxVaultEntries entries or kMaxVaultBytes bytes, or an entry
  // that is shorter than kMinVaultEntryBytes or longer than kMaxVaultEntryBytes or not well-formed
  // UTF-8.
  static std::expected<Detector, std::string> create(const std::set<Kind>& kinds,
                                                     const std::vector<std::string>& vault);

  // The values to mask in `text`, sorted by offset, non-overlapping (resolveOverlaps). Each span
  // starts and ends on a UTF-8 character boundary of well-formed text. Linear in text.size(): a
  // candidate reads a bounded few hundred bytes around its trigger, and what lies further (a PEM
  // block's END line, up to 64 KiB on) is found by one search per text that every candidate shares.
  std::vector<Span> find(std::string_view text) const;
  // find(), appending to `out` without resolving overlaps (the masker adds its own spans first),
  // charging text.size() to `budget` as it goes. False when the budget ran out (`out` is then
  // partial and must not be used); true otherwise.
  bool collect(std::string_view text, std::vector<Span>& out, ScanBudget* budget = nullptr) const;

  bool enabled(Kind kind) const { return (mask_ & bit(kind)) != 0; }
  // True when nothing is enabled: find() always returns nothing.
  bool empty() const { return mask_ == 0; }

 private:
  static uint32_t bit(Kind kind) { return 1u << static_cast<int>(kind); }

  uint32_t mask_ = 0;
  ExactMatcher vault_;
};

}  // namespace sluice::protection
