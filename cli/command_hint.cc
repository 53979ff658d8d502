#include "cli/command_hint.h"

#include "catalog/suggest.h"

namespace sluice::cli {

namespace {

std::string shown(const std::string& word) {
  std::string out;
  for (const char c : word.substr(0, kMaxShownWord)) {
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  }
  return word.size() > kMaxShownWord ? out + "..." : out;
}

// The option named `word` ("--services", "-h") on `app` or, through fallthrough, an ancestor.
const CLI::Option* findOption(const CLI::App* app, const std::string& word) {
  for (; app != nullptr; app = app->get_parent()) {
    if (const CLI::Option* option = app->get_option_no_throw(word)) return option;
  }
  return nullptr;
}

std::vector<const CLI::App*> subcommandsOf(const CLI::App* app) {
  return app->get_subcommands(std::function<bool(const CLI::App*)>{});
}

std::vector<std::string> namesOf(const std::vector<const CLI::App*>& apps) {
  std::vector<std::string> names;
  for (const CLI::App* app : apps) names.push_back(app->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::optional<std::string> commandHint(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* current = &app;
  std::string path;  // the known command words so far: "users"
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") return std::nullopt;
    if (word.size() > 1 && word[0] == '-') {
      const CLI::Option* option = findOption(current, word);
      if (option != nullptr && option->get_items_expected_min() > 0 && word.find('=') == std::string::npos) ++i;
      continue;
    }
    const std::vector<const CLI::App*> subcommands = subcommandsOf(current);
    if (subcommands.empty()) return std::nullopt;  // a positional argument of a leaf command
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : subcommands) {
      if (sub->check_name(word)) next = sub;
    }
    if (next != nullptr) {
      path += (path.empty() ? "" : " ") + next->get_name();
      current = next;
      continue;
    }
    const std::string prefix = path.empty() ? "" : path + " ";
    const std::string message = "unknown command '" + prefix + shown(word) + "'";
    std::vector<std::string> near = catalog::nearestNames(word, namesOf(subcommands));
    if (near.empty()) {
      return message + "; the commands" + (path.empty() ? "" : " of '" + path + "'") + " are: " +
             joined(namesOf(subcommands));
    }
    for (std::string& name : near) name = prefix + name;
    return message + "; did you mean " + catalog::quotedChoice(near) + "?";
  }
  if (current->get_require_subcommand_min() == 0) return std::nullopt;
  return (path.empty() ? std::string("sluicectl") : "'" + path + "'") + " needs a command: " +
         joined(namesOf(subcommandsOf(current)));
}

}  // namespace sluice::cli
