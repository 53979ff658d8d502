#pragma once
// What sluicectl says when its command line names no known command, instead of CLI11's
// "A subcommand is required": "unknown command 'user'; did you mean 'users'?".

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace sluice::cli {

// Walks `args` (argv without the program name) down `app`'s subcommands, skipping options (and
// the value of an option that takes one, its own or an ancestor's). Returns:
//   "unknown command 'users lst'; did you mean 'users list'?" (the nearest names, if any are near),
//   "unknown command 'frob'; the commands are: catalog, migrate, …" (none near),
//   "'users' needs a command: add, list, …" (the words stop before a command that needs one),
// or nullopt when every command word is known (CLI11's own message then stands). Words are shown
// cut to kMaxShownWord bytes with control characters replaced, so the message stays one short line.
std::optional<std::string> commandHint(const CLI::App& app, const std::vector<std::string>& args);

inline constexpr size_t kMaxShownWord = 64;

}  // namespace sluice::cli
