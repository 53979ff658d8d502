#pragma once
// Deterministic tool-call arguments that satisfy a tool's JSON Schema. Pure.

#include <nlohmann/json.hpp>

namespace sluice::mock {

// An object with every declared property filled in: the first `enum` value or `const`, else by
// type: string "mock-<property>", integer 1, number 1.5, boolean true, array [one item],
// object recursively, null null. Type names are matched case-insensitively (Gemini's "STRING").
// A null or property-less schema gives {}.
nlohmann::ordered_json argumentsForSchema(const nlohmann::ordered_json& schema);

}  // namespace sluice::mock
