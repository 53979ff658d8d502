// Secrets: vendor API keys, JWTs, PEM private keys, password values and credentials in URLs. Keys
// are recognised by their vendor prefix and a minimum length of a random-looking body; a password
// by the key name before it, with the value left alone when it is a placeholder or a piece of code.

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "server/protection/scan_util.h"
#include "server/protection/scanners.h"

namespace sluice::protection::scan {
namespace {

constexpr size_t kMaxTokenBytes = 4096;
constexpr size_t kMaxPemBytes = 64 * 1024;
constexpr size_t kMaxPemLabelBytes = 64;
constexpr size_t kMaxPasswordBytes = 1024;

bool allOf(std::string_view s, bool (*pred)(char)) { return std::all_of(s.begin(), s.end(), pred); }
bool isStripeBody(char c) { return isAlnum(c); }
bool isAwsBody(char c) { return isUpper(c) || isDigit(c); }

// A body that looks generated rather than written: a digit, a letter, and one stretch of at least
// 12 bytes between '-'/'_' (so "sk-my-long-hyphenated-name-2" is not a key).
bool looksRandom(std::string_view body) {
  bool digit = false;
  bool letter = false;
  size_t run = 0;
  size_t longest = 0;
  for (const char c : body) {
    digit = digit || isDigit(c);
    letter = letter || isAlpha(c);
    run = (c == '-' || c == '_') ? 0 : run + 1;
    longest = std::max(longest, run);
  }
  return digit && letter && longest >= 12;
}

bool isSpace(char c) { return c == ' ' || c == '\t'; }
bool isLineEnd(char c) { return c == '\n' || c == '\r' || c == '\0'; }

// Key names whose value is a password, compared case-insensitively on the end of the key.
constexpr std::array<std::string_view, 8> kPasswordKeys = {"password",   "passwd",     "passphrase",        "secret",
                                                          "secret_key", "secretkey", "secret_access_key", "pwd"};

// Values that stand for a password rather than being one.
constexpr std::array<std::string_view, 28> kPlaceholderWords = {
    "null",   "none",     "nil",      "undefined", "true",     "false",  "empty",   "redacted", "hidden",    "masked",
    "string", "str",      "int",      "bool",      "any",      "object", "bytes",   "number",   "secretstr", "text",
    "todo",   "required", "optional", "xxx",       "password", "secret", "changeit", "unknown"};

bool isPlaceholderValue(std::string_view v) {
  if (v.empty()) return true;
  // ${VAR}, $VAR, %s, %(pw)s, {{ .Values.x }}, <password>, [..], ****, |, >, &anchor, !vault, !!str.
  if (std::string_view("$%{<[*|>&@(").contains(v.front())) return true;
  if (v.starts_with("!vault") || v.starts_with("!!")) return true;
  // A run of one mask character: "xxxx", "....", "----", "____", "••••" is not ASCII and passes.
  if (std::all_of(v.begin(), v.end(), [&](char c) { return c == v.front(); }) &&
      std::string_view("xX.-_#?").contains(v.front())) {
    return true;
  }
  for (const std::string_view word : kPlaceholderWords) {
    if (equalsFolded(v, word)) return true;
  }
  return v.starts_with("your_") || v.starts_with("your-") || v.starts_with("YOUR_");
}

// An identifier path as code writes one: name(.name)+ ("self.password", "os.environ").
bool isDottedIdentifier(std::string_view v) {
  bool dot = false;
  bool expect_start = true;
  for (const char c : v) {
    if (c == '.') {
      if (expect_start) return false;
      dot = true;
      expect_start = true;
      continue;
    }
    if (expect_start ? !(isAlpha(c) || c == '_') : !isWordByte(c)) return false;
    expect_start = false;
  }
  return dot && !expect_start;
}

bool isIdentifier(std::string_view v) {
  if (v.empty() || !(isAlpha(v.front()) || v.front() == '_')) return false;
  return allOf(v, isWordByte);
}

// An identifier that names another variable: camelCase without digits ("hashedPassword"), or
// snake_case naming a secret itself ("db_password", "SECRET_KEY").
bool isVariableReference(std::string_view v) {
  if (!isIdentifier(v)) return false;
  for (size_t i = 1; i < v.size(); ++i) {
    if (isLower(v[i - 1]) && isUpper(v[i]) && std::none_of(v.begin(), v.end(), isDigit)) return true;
  }
  if (v.find('_') == std::string_view::npos) return false;
  std::string folded;
  for (const char c : v) folded.push_back(lowerAscii(c));
  for (const std::string_view word : {"pass", "secret", "pwd", "key", "token", "cred"}) {
    if (folded.find(word) != std::string::npos) return true;
  }
  return false;
}

// Where an unquoted password value ends: a space, a delimiter of the surrounding syntax, an
// escaped line break or quote ("\\n" in JSON text), and after '=' a query string's '&'.
bool endsUnquotedValue(std::string_view t, size_t i, bool query) {
  const char c = t[i];
  if (c == ' ' || c == '\t' || isLineEnd(c) || std::string_view(",;)[]}\"'(").contains(c)) return true;
  if (query && c == '&') return true;
  return c == '\\' && std::string_view("nrt\"").contains(at(t, i + 1));
}

size_t firstNonSpace(std::string_view t, size_t from) {
  while (from < t.size() && isSpace(t[from])) ++from;
  return from;
}

bool isUserinfoByte(char c) {
  return isAlnum(c) || std::string_view("-._~%!$&'()*+,;=:@").contains(c);
}

}  // namespace

std::optional<Hit> apiKey(std::string_view t, size_t start) {
  if (isTokenByte(before(t, start))) return std::nullopt;
  size_t end = start;
  while (end < t.size() && isTokenByte(t[end]) && end - start <= kMaxTokenBytes) ++end;
  if (end - start > kMaxTokenBytes) return std::nullopt;
  const std::string_view token = t.substr(start, end - start);
  const Hit hit{start, token.size()};
  const auto body = [&](std::string_view prefix) { return token.substr(prefix.size()); };
  switch (token.front()) {
    case 's':
      if (token.starts_with("sk_live_") || token.starts_with("sk_test_")) {
        return body("sk_live_").size() >= 16 && allOf(body("sk_live_"), isStripeBody) ? std::optional(hit) : std::nullopt;
      }
      // Anthropic (sk-ant-api03-...), OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-).
      if (token.starts_with("sk-")) {
        return body("sk-").size() >= 20 && looksRandom(body("sk-")) ? std::optional(hit) : std::nullopt;
      }
      return std::nullopt;
    case 'r':
    case 'p':
      if (token.starts_with("rk_live_") || token.starts_with("rk_test_") || token.starts_with("pk_live_")) {
        return body("rk_live_").size() >= 16 && allOf(body("rk_live_"), isStripeBody) ? std::optional(hit) : std::nullopt;
      }
      return std::nullopt;
    case 'A':
      // AWS access key ids: AKIA (long-term) or ASIA (temporary) and 16 upper-case letters or digits.
      if (token.starts_with("AKIA") || token.starts_with("ASIA")) {
        return token.size() == 20 && allOf(token, isAwsBody) ? std::optional(hit) : std::nullopt;
      }
      // Google API keys: AIza and 35 base64url bytes.
      if (token.starts_with("AIza")) return token.size() == 39 ? std::optional(hit) : std::nullopt;
      return std::nullopt;
    case 'g':
      if (token.starts_with("github_pat_")) {
        return body("github_pat_").size() >= 22 && allOf(body("github_pat_"), isWordByte) ? std::optional(hit)
                                                                                          : std::nullopt;
      }
      if (token.size() > 4 && token[0] == 'g' && token[1] == 'h' && token[3] == '_' &&
          std::string_view("pousr").contains(token[2])) {
        return body("ghp_").size() >= 30 && allOf(body("ghp_"), isAlnum) ? std::optional(hit) : std::nullopt;
      }
      if (token.starts_with("glpat-")) {
        return body("glpat-").size() >= 20 && looksRandom(body("glpat-")) ? std::optional(hit) : std::nullopt;
      }
      return std::nullopt;
    case 'x':
      if (token.size() > 5 && token.starts_with("xox") && std::string_view("bpars").contains(token[3]) &&
          token[4] == '-') {
        const std::string_view rest = body("xoxb-");
        const bool digit = std::any_of(rest.begin(), rest.end(), isDigit);
        return rest.size() >= 10 && digit ? std::optional(hit) : std::nullopt;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<Hit> jwt(std::string_view t, size_t start) {
  const char prev = before(t, start);
  if (isTokenByte(prev) || prev == '.') return std::nullopt;
  size_t p = start;
  size_t lengths[3] = {0, 0, 0};
  for (int part = 0; part < 3; ++part) {
    const size_t s = p;
    if (part < 2 && !startsWithAt(t, p, "eyJ")) return std::nullopt;
    while (p < t.size() && isTokenByte(t[p]) && p - s <= kMaxTokenBytes * 4) ++p;
    lengths[part] = p - s;
    if (part < 2) {
      if (at(t, p) != '.') return std::nullopt;
      ++p;
    }
  }
  if (lengths[0] < 10 || lengths[1] < 10) return std::nullopt;
  const char next = at(t, p);
  if (isTokenByte(next) || next == '.' || next == '=' || next == '+' || next == '/') return std::nullopt;
  return Hit{start, p - start};
}

std::optional<Hit> privateKey(std::string_view t, size_t start, Memos& memos) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  constexpr std::string_view kEnd = "-----END ";
  constexpr std::string_view kDashes = "-----";
  if (!startsWithAt(t, start, kBegin)) return std::nullopt;
  // The label ends at the first "-----" within kMaxPemLabelBytes.
  const size_t label_start = start + kBegin.size();
  const size_t label_length = t.substr(label_start, kMaxPemLabelBytes + kDashes.size()).find(kDashes);
  if (label_length == std::string_view::npos) return std::nullopt;
  const std::string_view label = t.substr(label_start, label_length);
  if (label.find("PRIVATE KEY") == std::string_view::npos || label.find('\n') != std::string_view::npos) {
    return std::nullopt;
  }
  const size_t body = label_start + label_length + kDashes.size();
  const size_t window_end = std::min(t.size(), body + kMaxPemBytes);
  // The END line: the first one after the body starts, if it lies within the window. One search
  // per scan serves every candidate before it (text of BEGIN lines alone asked it once per line).
  const size_t end_marker = memos.pem_end.next(body, [&](size_t from) { return t.find(kEnd, from); });
  if (end_marker != kNone && end_marker + kEnd.size() <= window_end) {
    const size_t after = end_marker + kEnd.size();
    const size_t close = t.substr(after, std::min(kMaxPemLabelBytes + kDashes.size(), window_end - after)).find(kDashes);
    if (close != std::string_view::npos) return Hit{start, after + close + kDashes.size() - start};
  }
  // No END line (a key cut short): mask the base64 body that follows, up to a blank line. Escaped
  // newlines ("\n" in JSON text) belong to the body. What is read past the hit is blank, where no
  // other candidate starts, so each byte is read once.
  const std::string_view window = t.substr(body, window_end - body);
  size_t p = 0;
  size_t last = 0;
  while (p < window.size()) {
    const char c = window[p];
    if (c == '\n' && p + 1 < window.size() && (window[p + 1] == '\n' || window[p + 1] == '\r') && last > 0) break;
    if (!(isAlnum(c) || std::string_view("+/=\\\r\n\t :,-").contains(c))) break;
    if (!(c == '\n' || c == '\r' || c == ' ' || c == '\t')) last = p + 1;
    ++p;
  }
  return Hit{start, body + last - start};
}

std::optional<Hit> password(std::string_view t, size_t sep, Memos& memos) {
  const char s = t[sep];
  size_t value = sep + 1;
  size_t key_end = sep;
  if (s == '=') {
    const char prev = before(t, sep);
    if (at(t, sep + 1) == '=') return std::nullopt;  // ==
    if (prev == ':') {
      key_end = sep - 1;  // password := "x"
    } else if (std::string_view("=!<>+-*/|&^%~?").contains(prev)) {
      return std::nullopt;  // !=, <=, +=, ...
    }
    if (at(t, sep + 1) == '>') value = sep + 2;  // 'password' => 'x'
  } else if (at(t, sep + 1) == '=' || at(t, sep + 1) == ':') {
    return std::nullopt;  // ":=" is read at its '=', "::" is a path
  }
  // The key: [A-Za-z0-9_.-]+, maybe quoted (or quoted with escaped quotes, in JSON text), maybe
  // followed by spaces.
  size_t k = key_end;
  while (k > 0 && key_end - k < 4 && isSpace(t[k - 1])) --k;
  const bool key_spaced = k != key_end;
  char key_quote = 0;
  if (k > 0 && (t[k - 1] == '"' || t[k - 1] == '\'')) {
    key_quote = t[k - 1];
    --k;
    if (k > 0 && t[k - 1] == '\\') --k;
  }
  const size_t ke = k;
  while (k > 0 && ke - k < 64 && (isWordByte(t[k - 1]) || t[k - 1] == '.' || t[k - 1] == '-')) --k;
  if (k == ke || (k > 0 && isWordByte(t[k - 1]))) return std::nullopt;
  // "${DB_PASSWORD:-x}", "${DB_PASSWORD:?required}": a shell expansion, not an assignment.
  if (k >= 2 && t[k - 1] == '{' && t[k - 2] == '$') return std::nullopt;
  // "PASSWORD :'var'" (psql) and other spaced colons: YAML and JSON keys touch their ':'.
  if (s == ':' && key_spaced) return std::nullopt;
  const std::string_view key = t.substr(k, ke - k);
  const auto matched = std::find_if(kPasswordKeys.begin(), kPasswordKeys.end(),
                                    [&](std::string_view name) { return endsWithFolded(key, name); });
  if (matched == kPasswordKeys.end()) return std::nullopt;
  // The value.
  size_t v = value;
  while (v < t.size() && v - value < 8 && isSpace(t[v])) ++v;
  const bool value_spaced = v != value;
  const char q = at(t, v);
  size_t vs = v;
  size_t ve = v;
  bool quoted = false;
  if (q == '"' || q == '\'' || (q == '\\' && at(t, v + 1) == '"')) {
    // Quoted: up to the same (unescaped) quote on the same line.
    quoted = true;
    const bool escaped_quotes = q == '\\';
    vs = v + (escaped_quotes ? 2 : 1);
    ve = vs;
    while (true) {
      if (ve >= t.size() || ve - vs > kMaxPasswordBytes || isLineEnd(t[ve])) return std::nullopt;
      if (escaped_quotes) {
        if (t[ve] == '\\' && at(t, ve + 1) == '"') break;
        if (t[ve] == '\\') ++ve;
      } else {
        if (t[ve] == q) break;
        if (t[ve] == '\\') ++ve;
      }
      ++ve;
    }
  } else {
    // Unquoted: up to a space, a delimiter of the surrounding syntax or an escaped newline (one
    // search per scan: "password=password=..." asks it once per '=').
    const bool query = s == '=';
    const size_t stop = (query ? memos.value_equals : memos.value_colon).next(vs, [&](size_t from) {
      for (size_t i = from; i < t.size(); ++i) {
        if (endsUnquotedValue(t, i, query)) return i;
      }
      return kNone;
    });
    ve = stop == kNone ? t.size() : stop;
    if (ve - vs > kMaxPasswordBytes) return std::nullopt;
  }
  const std::string_view v_text = t.substr(vs, ve - vs);
  if (isPlaceholderValue(v_text)) return std::nullopt;
  if (equalsFolded(*matched, "pwd") && (v_text.front() == '/' || v_text.front() == '~')) return std::nullopt;  // $PWD
  if (!quoted) {
    const char after = at(t, ve);
    // Code, not a value: a call, an index, an attribute path, a type annotation.
    if (after == '(' || after == '[' || isDottedIdentifier(v_text)) return std::nullopt;
    if (isVariableReference(v_text)) return std::nullopt;  // { password: hashedPassword }
    // The first byte after the value that is not a space.
    const size_t r = std::min(memos.non_space.next(ve, [&](size_t from) { return firstNonSpace(t, from); }), t.size());
    if (isIdentifier(v_text)) {
      // An identifier followed by ',' or ')' names a variable in code: a keyword argument
      // (f(password=pw, ...)), an object member ({ password: pw, ... }) or one on a line of its own
      // ("  password: pw,"). In a sentence or a log line, with no bracket open on the line and
      // words after the comma ("..., password: hunter2, and ..."), it is the value itself.
      if (after == ')') return std::nullopt;
      if (after == ',') {
        const size_t next = std::min(memos.non_space.next(ve + 1, [&](size_t from) { return firstNonSpace(t, from); }),
                                     t.size());
        const bool words_follow = !isLineEnd(at(t, next)) && !(at(t, next) == '\\' && at(t, next + 1) == 'n');
        if (!words_follow || memos.brackets.depthAt(t, k) > 0) return std::nullopt;
      }
      if (s == '=' && key_spaced && value_spaced) return std::nullopt;  // password = pw
    }
    if (s == ':') {
      // "Password: the one you chose" is prose: an unquoted value after ':' is the last thing on its
      // line (or in its object or list, or its clause: "password: hunter2, and ..."), and not a type
      // ("password: str = None").
      const char tail = at(t, r);
      const bool line_end = isLineEnd(tail) || tail == ',' || tail == '}' || tail == ']' || tail == '#' ||
                            (tail == ';' && (isLineEnd(at(t, r + 1)) || isSpace(at(t, r + 1)))) ||
                            (tail == '\\' && std::string_view("nr").contains(at(t, r + 1)));
      if (!line_end) return std::nullopt;
      if (key_quote == 0 && isUpper(v_text.front()) && isIdentifier(v_text) && v_text.size() <= 12 &&
          std::none_of(v_text.begin(), v_text.end(), isDigit)) {
        // "password: String", "secret: SecretStr" (a schema or a signature), not "Password: Hunter2".
        for (const std::string_view type : {"String", "SecretStr", "Secret", "Text", "Any", "Optional", "Password"}) {
          if (v_text == type) return std::nullopt;
        }
      }
    }
  }
  return Hit{vs, ve - vs};
}

std::optional<Hit> urlCredentials(std::string_view t, size_t at_sign, bool& in_authority) {
  in_authority = false;
  // Only the last '@' of an authority ends its user part ("u:p@ss@host" has a password "p@ss").
  for (size_t p = at_sign + 1; p < t.size() && p - at_sign < 256; ++p) {
    const char c = t[p];
    if (c == '@') return std::nullopt;
    if (!isUserinfoByte(c) && c != '[' && c != ']') break;
  }
  size_t u = at_sign;
  while (u > 0 && at_sign - u < 512 && isUserinfoByte(t[u - 1])) --u;
  if (u < 4 || t[u - 1] != '/' || t[u - 2] != '/' || t[u - 3] != ':') return std::nullopt;
  size_t scheme = u - 3;
  while (scheme > 0 && u - 3 - scheme < 32 &&
         (isAlnum(t[scheme - 1]) || t[scheme - 1] == '+' || t[scheme - 1] == '.' || t[scheme - 1] == '-')) {
    --scheme;
  }
  if (scheme == u - 3 || !isAlpha(t[scheme])) return std::nullopt;
  in_authority = true;
  const std::string_view userinfo = t.substr(u, at_sign - u);
  const size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view pass = userinfo.substr(colon + 1);
  if (pass.empty() || isPlaceholderValue(pass)) return std::nullopt;
  const char host = at(t, at_sign + 1);
  if (!isAlnum(host) && host != '[') return std::nullopt;
  return Hit{u, userinfo.size()};
}

}  // namespace sluice::protection::scan
