#pragma once
// Builds a function call's arguments from Vertex AI's streamed `functionCall.partialArgs`
// (`[{jsonPath:"$.a.b[0]", stringValue|numberValue|boolValue|nullValue, willContinue}]`) and writes
// them as JSON text as they arrive, so a client sees tool-argument deltas instead of one blob.
// A string value with willContinue:true stays open and later entries for the same path append to
// it. The pieces returned by apply() and close(), concatenated, are the compact JSON of value()
// when paths arrive in document order (as Vertex sends them). Pure; never throws.

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "server/wire/ir.h"

namespace sluice::wire::gemini {

class PartialArgsWriter {
 public:
  // Applies one `partialArgs` array; returns the JSON text it adds (possibly empty). Entries
  // without a usable jsonPath or value are skipped.
  std::string apply(const Json& partial_args);
  // Ends the arguments: closes the open string and containers. Returns the last piece of text,
  // "{}" when nothing was written at all.
  std::string close();
  // The arguments so far, as an object.
  const Json& value() const { return value_; }

 private:
  using Segment = std::variant<std::string, size_t>;
  struct OpenContainer {
    Segment segment;
    bool is_array = false;
    size_t children = 0;
  };

  std::string applyOne(const Json& entry);
  std::string openPath(const std::vector<Segment>& container_path, const Segment& leaf);
  void store(const std::vector<Segment>& path, const Json& leaf_value, bool append_string);

  Json value_ = Json::object();
  std::vector<OpenContainer> open_;  // open_[0] is the root object once anything was written
  bool string_open_ = false;
  std::vector<Segment> open_string_path_;
};

}  // namespace sluice::wire::gemini
