#include "catalog/interpolate.h"

#include <utility>

namespace sluice::catalog {

namespace {

bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

bool isValidName(std::string_view name) {
  if (name.empty() || !isNameStart(name.front())) return false;
  for (char c : name) {
    if (!isNameChar(c)) return false;
  }
  return true;
}

struct Reference {
  std::string_view name;
  std::optional<std::string_view> fallback;
};

// The reference whose "${" starts at `i`, and the index past its '}'; nullopt when unterminated.
std::optional<std::pair<Reference, size_t>> referenceAt(std::string_view text, size_t i) {
  size_t close = text.find('}', i + 2);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inner = text.substr(i + 2, close - i - 2);
  Reference reference{inner, std::nullopt};
  if (size_t sep = inner.find(":-"); sep != std::string_view::npos) {
    reference.name = inner.substr(0, sep);
    reference.fallback = inner.substr(sep + 2);
  }
  return std::pair{reference, close + 1};
}

}  // namespace

bool isMasterKeyVariable(std::string_view name) { return name.starts_with("SLUICE_MASTER_KEY"); }

std::expected<std::string, std::string> interpolate(std::string_view text, const Environment& env,
                                                    const VariablePolicy& policy,
                                                    std::vector<Substitution>* substituted) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    auto found_reference = referenceAt(text, i);
    if (!found_reference) {
      return std::unexpected("unterminated '${' in '" + std::string(text) + "'");
    }
    const auto& [reference, next] = *found_reference;
    const std::string name(reference.name);
    if (!isValidName(name)) {
      return std::unexpected("invalid variable name '" + name + "' in '" +
                             std::string(text.substr(i, next - i)) + "'; expected letters, digits and '_'");
    }
    // NOTE: refused with or without a default: the text would read the secret wherever it is set.
    if (isMasterKeyVariable(name) || policy.secret.contains(name)) {
      return std::unexpected("secret variable " + name +
                             " used outside a credential (a secret is read only by a credential's "
                             "secret: env:NAME)");
    }
    if (policy.allowed && !policy.allowed->contains(name)) {
      return std::unexpected("variable " + name +
                             " is not used by the catalog files on disk; the console may only use the "
                             "variables they already use");
    }
    auto found = env.find(name);
    const bool from_env = found != env.end() && (!reference.fallback || !found->second.empty());
    if (from_env) {
      out += found->second;
      if (substituted) substituted->push_back({name, found->second});
    } else if (reference.fallback) {
      // POSIX ':-': the default also replaces a variable that is set but empty.
      out += *reference.fallback;
    } else {
      return std::unexpected("environment variable " + name + " is not set (write ${" + name +
                             ":-default} to give a default)");
    }
    i = next;
  }
  return out;
}

std::set<std::string> variablesReferenced(std::string_view text) {
  std::set<std::string> names;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      ++i;
      continue;
    }
    auto found = referenceAt(text, i);
    if (!found) break;
    if (isValidName(found->first.name)) names.emplace(found->first.name);
    i = found->second;
  }
  return names;
}

}  // namespace sluice::catalog
