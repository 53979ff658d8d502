#pragma once
// Converts a YAML node (a VCR cassette's parsed_body) to JSON. Pure.

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace sluice::mock {

// Maps to objects (key order kept), sequences to arrays. Quoted scalars stay strings; plain
// scalars become null (null, ~, empty), booleans (true/false in any case), integers, floats
// or else strings.
nlohmann::ordered_json yamlToJson(const YAML::Node& node);

}  // namespace sluice::mock
