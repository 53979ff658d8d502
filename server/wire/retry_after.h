#pragma once
// The one reader of a Retry-After header value (RFC 9110 section 10.2.3), shared by the codecs'
// decodeError and the dispatch path, so the breaker and the client hear the same wait. Pure: the
// time an HTTP-date is measured from comes in as `now`.

#include <chrono>
#include <optional>
#include <string_view>

namespace sluice::wire {

using SystemTime = std::chrono::system_clock::time_point;

// The longest wait a Retry-After is read as. A larger value (delta or date) is cut to it.
// Why one day: it is far beyond any breaker cooldown (dispatch::kMaxCooldown, 10 minutes) and any
// retry a client makes within one request, so a longer wait changes nothing the gateway does;
// "come back next week" still reads as a wait (the breaker stays open as long as it can) rather
// than as junk; and the bound keeps every sum with a TimePoint far from overflow.
inline constexpr std::chrono::seconds kMaxRetryAfter{86'400};

// The wait a Retry-After value asks for, in whole seconds, at most kMaxRetryAfter:
//   delta-seconds   "30" -> 30s; a fraction, as some providers send, rounds up: "1.5" -> 2s,
//                   "0.001" -> 1s; "0" -> 0s; any number of digits ("99999999999999999999" -> cap).
//   IMF-fixdate     "Wed, 21 Oct 2015 07:28:00 GMT" -> the seconds from `now` to that instant,
//                   rounded up; a date at or before `now` -> 0s (retry at once).
// Spaces and tabs around the value are ignored. nullopt for everything else: empty, a sign
// ("-5", "+5"), an exponent or unit ("1e3", "3s"), "nan"/"inf", an impossible date (31 Feb), the
// obsolete RFC 850 and asctime date forms, and any trailing text.
// `now`: when the answer arrived. nullopt is only for callers that have no clock yet: then an
// HTTP-date also gives nullopt (the caller backs off by its own policy).
std::optional<std::chrono::seconds> parseRetryAfter(std::string_view value, std::optional<SystemTime> now);

}  // namespace sluice::wire
