// Personal data: e-mail addresses. A value must have the shape people write and end in a real
// top-level domain, and the characters around it must not make it part of a longer token (a URL's
// user part, an identifier).

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "server/protection/scan_util.h"
#include "server/protection/scanners.h"

namespace sluice::protection::scan {
namespace {

bool isLocalByte(char c) { return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'; }

// ISO 3166 country-code top-level domains.
constexpr std::string_view kCountryTlds =
    "ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz "
    "ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk "
    "fm fo fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir "
    "is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk "
    "ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl "
    "pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz tc "
    "td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw";

// Generic top-level domains people's addresses use, and the private suffixes of internal mail.
constexpr std::array<std::string_view, 96> kGenericTlds = {
    "com",      "org",       "net",      "edu",       "gov",      "mil",      "int",        "info",
    "biz",      "name",      "pro",      "aero",      "coop",     "museum",   "mobi",       "asia",
    "tel",      "travel",    "jobs",     "cat",       "app",      "dev",      "page",       "cloud",
    "tech",     "online",    "site",     "website",   "store",    "shop",     "blog",       "xyz",
    "top",      "club",      "email",    "mail",      "company",  "agency",   "digital",    "solutions",
    "services", "systems",   "network",  "software",  "consulting", "studio", "design",     "media",
    "news",     "live",      "life",     "world",     "today",    "space",    "fun",        "global",
    "group",    "team",      "work",     "works",     "center",   "link",     "help",       "support",
    "academy",  "school",    "university", "college", "health",   "care",     "bank",       "finance",
    "capital",  "money",     "insurance", "law",      "legal",    "expert",   "guru",       "ninja",
    "rocks",    "wiki",      "host",     "hosting",   "security", "engineering", "tools",   "codes",
    "local",    "localdomain", "internal", "corp",    "lan",      "intranet", "example",    "test"};

bool isKnownTld(std::string_view tld) {
  if (tld.size() == 2) {
    const char a = lowerAscii(tld[0]);
    const char b = lowerAscii(tld[1]);
    for (size_t i = 0; i + 1 < kCountryTlds.size(); i += 3) {
      if (kCountryTlds[i] == a && kCountryTlds[i + 1] == b) return true;
    }
    return false;
  }
  for (const std::string_view known : kGenericTlds) {
    if (equalsFolded(tld, known)) return true;
  }
  return false;
}

// True when the bytes before `start` (back to whitespace or a quote) hold "://" with no '/' after
// it: `start` is inside a URL's authority, so an '@' there separates user and host. Looks back at
// most 512 bytes, through the scan's memo (each byte once per scan).
bool insideUrlAuthority(std::string_view t, size_t start, Memos& memos) {
  const size_t floor = start > 512 ? start - 512 : 0;
  const size_t stop = memos.url_stop.lastBefore(t, start, floor, [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '/';
  });
  if (stop == kNone || t[stop] != '/') return false;
  return stop >= 2 && t[stop - 1] == '/' && t[stop - 2] == ':';
}

}  // namespace

std::optional<Hit> email(std::string_view t, size_t at_sign, Memos& memos) {
  // The local part: the practical subset [A-Za-z0-9._%+-], 1..64 bytes, starting with a letter,
  // digit or '_', not ending with '.', no "..".
  size_t l = at_sign;
  while (l > 0 && at_sign - l <= 64 && isLocalByte(t[l - 1])) --l;
  if (at_sign - l > 64) return std::nullopt;
  while (l < at_sign && !isAlnum(t[l]) && t[l] != '_') ++l;
  if (l == at_sign || t[at_sign - 1] == '.') return std::nullopt;
  for (size_t i = l + 1; i < at_sign; ++i) {
    if (t[i] == '.' && t[i - 1] == '.') return std::nullopt;
  }
  if (insideUrlAuthority(t, l, memos)) return std::nullopt;
  // The domain: at least two labels of [A-Za-z0-9-] (1..63 bytes, no '-' at either end), a known
  // top-level domain of letters.
  size_t p = at_sign + 1;
  int labels = 0;
  size_t last_label = p;
  while (true) {
    const size_t s = p;
    while (p < t.size() && (isAlnum(t[p]) || t[p] == '-') && p - s <= 63) ++p;
    if (p == s || p - s > 63 || t[s] == '-' || t[p - 1] == '-') return std::nullopt;
    ++labels;
    last_label = s;
    if (p - at_sign - 1 > 253) return std::nullopt;
    if (at(t, p) == '.' && isAlnum(at(t, p + 1))) {
      ++p;
      continue;
    }
    break;
  }
  if (labels < 2 || p - at_sign - 1 > 253) return std::nullopt;
  const std::string_view tld = t.substr(last_label, p - last_label);
  for (const char c : tld) {
    if (!isAlpha(c)) return std::nullopt;
  }
  if (!isKnownTld(tld)) return std::nullopt;
  // Retina asset names ("icon@2x.png") have a scale, not a host, after the '@'.
  if (isDigit(at(t, at_sign + 1))) {
    size_t q = at_sign + 1;
    while (isDigit(at(t, q))) ++q;
    if (at(t, q) == 'x' && at(t, q + 1) == '.') return std::nullopt;
  }
  // What follows: "git@github.com:org/repo.git" is an scp-style remote, "a@b.c(" a call.
  const char next = at(t, p);
  if (next == '@' || next == '(' || next == '_') return std::nullopt;
  if (next == ':' && p + 1 < t.size() && !std::string_view(" \t\r\n").contains(t[p + 1])) return std::nullopt;
  return Hit{l, p - l};
}

}  // namespace sluice::protection::scan
