#pragma once
// Reads a services directory and the process environment, then compiles the catalog.
// The only place catalog files, secret files and the environment are read.

#include <expected>
#include <map>
#include <string>

#include "catalog/compiler.h"
#include "catalog/zone_rules.h"

namespace sluice::config {

// Reads DIR/ai/{credentials,providers,models,deployments,gateway}.yaml and
// DIR/access-control/rules.yaml (absent files are passed as absent; the compiler reports them),
// the `file:` secrets and the data protection vault they name, compiles with `env`, then
// attachDataProtection() and attachTimeZones(). Never throws for missing files.
catalog::CompileResult loadCatalog(const std::string& services_dir, const std::map<std::string, std::string>& env);

// The `file:` secrets and vault `sources` names, read (each at most catalog::kMaxVaultFileBytes + 1
// bytes; an unreadable one is left out and the compiler reports it).
void readSecretFiles(catalog::CatalogSources& sources);

// When the compiled catalog declares gateway.data_protection: compiles its protection::Detector
// once (the mask kinds and the vault's entries) and sets DataProtection::detector. A vault the
// detector refuses (too many entries, an entry too short or long, not UTF-8) turns the result
// into a failure with an error at the vault key naming the entry by position, never its text.
void attachDataProtection(catalog::CompileResult& result);

// When a quota window has a calendar period in a zone other than UTC: reads the zone's TZif file
// from `zoneinfo` (the system tz database; each file at most catalog::kMaxZoneFileBytes) once per
// zone and sets QuotaWindow::zone. An unknown or unreadable zone turns the result into a failure
// with an error at the window's timezone value.
void attachTimeZones(catalog::CompileResult& result, const std::string& zoneinfo = "/usr/share/zoneinfo");

// One zone's rules from `zoneinfo`, by its IANA name ("Europe/Paris"); the message says why not
// (a name not shaped as one is never looked up as a file).
std::expected<catalog::ZoneRules, std::string> loadTimeZone(const std::string& name,
                                                            const std::string& zoneinfo = "/usr/share/zoneinfo");

// The process environment as a map.
std::map<std::string, std::string> processEnvironment();

}  // namespace sluice::config
