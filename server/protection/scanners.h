#pragma once
// The scanners behind Detector, one per kind, each called at a trigger position and returning the
// value to mask there, if any. Internal to server/protection (detectors.cc calls them; the tests
// reach them through Detector). Every scanner reads at most a small bounded window around its
// trigger (a few hundred bytes); what would reach further (a PEM block's END line, the end of a
// password value, the start of a URL's authority) is asked of the scan's Memos (scan_memo.h), so
// one scan is linear in the text however many triggers it holds.

#include <cstddef>
#include <optional>
#include <string_view>

#include "server/protection/scan_memo.h"

namespace sluice::protection::scan {

struct Hit {
  size_t offset = 0;
  size_t length = 0;
};

// At an '@' (t[at] == '@'). scan_personal.cc.
std::optional<Hit> email(std::string_view t, size_t at, Memos& memos);
// At a '+', '(' or the first digit of a word.
std::optional<Hit> phone(std::string_view t, size_t start);
// At the first digit of a word.
std::optional<Hit> paymentCard(std::string_view t, size_t start);
// At the first (upper-case) letter of a word.
std::optional<Hit> iban(std::string_view t, size_t start);
// At the first digit of a word.
std::optional<Hit> ipv4(std::string_view t, size_t start);
// At the first hex digit of a word, or at the first ':' of a leading "::".
std::optional<Hit> ipv6(std::string_view t, size_t start);

// At the first byte of a word. scan_secrets.cc.
std::optional<Hit> apiKey(std::string_view t, size_t start);
std::optional<Hit> jwt(std::string_view t, size_t start);
// At the first '-' of "-----BEGIN ".
std::optional<Hit> privateKey(std::string_view t, size_t start, Memos& memos);
// At a '=' or ':' that may follow a password key; the hit is the value alone.
std::optional<Hit> password(std::string_view t, size_t separator, Memos& memos);
// At an '@'. The hit is "user:pass" of scheme://user:pass@host. `in_authority` is set when the '@'
// ends the user part of a URL's authority (with or without a password): that '@' is then no
// e-mail address.
std::optional<Hit> urlCredentials(std::string_view t, size_t at, bool& in_authority);

}  // namespace sluice::protection::scan
