#include "server/wire/gemini/partial_args.h"

#include <cctype>
#include <optional>

#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::gemini {
namespace {

using Segment = std::variant<std::string, size_t>;

// "$.recipe.ingredients[0].name" -> {"recipe", "ingredients", 0, "name"}; nullopt when malformed.
std::optional<std::vector<Segment>> parsePath(std::string_view path) {
  if (path.starts_with("$")) path.remove_prefix(1);
  std::vector<Segment> segments;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      size_t end = i;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      if (end == i) return std::nullopt;
      segments.emplace_back(std::string(path.substr(i, end - i)));
      i = end;
    } else if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos || close == i + 1) return std::nullopt;
      size_t index = 0;
      for (size_t k = i + 1; k < close; ++k) {
        if (!std::isdigit(static_cast<unsigned char>(path[k])) || index > 1'000'000) return std::nullopt;
        index = index * 10 + static_cast<size_t>(path[k] - '0');
      }
      segments.emplace_back(index);
      i = close + 1;
    } else {
      return std::nullopt;
    }
  }
  if (segments.empty()) return std::nullopt;
  return segments;
}

std::string quoted(const std::string& text) { return dumpJsonText(Json(text)); }

// A string's JSON text without its surrounding quotes.
std::string escapedBody(const std::string& text) {
  const std::string json = quoted(text);
  return json.substr(1, json.size() - 2);
}

// The value an entry carries, or nullopt when it carries none.
std::optional<Json> entryValue(const Json& entry) {
  if (const Json* text = member(entry, "stringValue"); text != nullptr && text->is_string()) return *text;
  if (const Json* number = member(entry, "numberValue"); number != nullptr && number->is_number()) return *number;
  if (const Json* flag = member(entry, "boolValue"); flag != nullptr && flag->is_boolean()) return *flag;
  // NullValue is written as JSON null, so here a null member is a value, not an absence.
  if (entry.is_object() && entry.contains("nullValue")) return Json(nullptr);
  return std::nullopt;
}

}  // namespace

std::string PartialArgsWriter::apply(const Json& partial_args) {
  std::string text;
  if (!partial_args.is_array()) return text;
  for (const Json& entry : partial_args) text += applyOne(entry);
  return text;
}

std::string PartialArgsWriter::applyOne(const Json& entry) {
  const auto path = parsePath(stringMember(entry, "jsonPath"));
  const auto leaf_value = entryValue(entry);
  if (!path || !leaf_value) return {};
  const bool will_continue = trueMember(entry, "willContinue");
  std::string text;

  if (string_open_ && leaf_value->is_string() && *path == open_string_path_) {
    const std::string& more = leaf_value->get_ref<const std::string&>();
    store(*path, *leaf_value, /*append_string=*/true);
    text += escapedBody(more);
    if (!will_continue) {
      text += '"';
      string_open_ = false;
    }
    return text;
  }
  if (string_open_) {
    text += '"';
    string_open_ = false;
  }
  if (open_.empty()) {
    open_.push_back(OpenContainer{std::string(), false, 0});
    text += '{';
  }
  const std::vector<Segment> container_path(path->begin(), path->end() - 1);
  text += openPath(container_path, path->back());

  OpenContainer& container = open_.back();
  if (container.children > 0) text += ',';
  if (const auto* key = std::get_if<std::string>(&path->back())) {
    text += quoted(*key);
    text += ':';
  } else if (container.is_array) {
    // NOTE: an index past the end (never sent in order by Vertex) is padded with nulls so the
    // text stays the JSON of value().
    for (size_t pad = container.children; pad < std::get<size_t>(path->back()); ++pad) text += "null,";
  }
  container.children = container.is_array ? std::get<size_t>(path->back()) + 1 : container.children + 1;
  store(*path, *leaf_value, /*append_string=*/false);

  const std::string value_text = dumpJsonText(*leaf_value);
  if (leaf_value->is_string() && will_continue) {
    text += value_text.substr(0, value_text.size() - 1);  // leave the closing quote for later
    string_open_ = true;
    open_string_path_ = *path;
  } else {
    text += value_text;
  }
  return text;
}

std::string PartialArgsWriter::openPath(const std::vector<Segment>& container_path, const Segment& leaf) {
  std::string text;
  // Keep the open containers that are a prefix of the target; close the rest.
  size_t common = 0;
  while (common < container_path.size() && common + 1 < open_.size() &&
         open_[common + 1].segment == container_path[common]) {
    ++common;
  }
  while (open_.size() > common + 1) {
    text += open_.back().is_array ? ']' : '}';
    open_.pop_back();
  }
  for (size_t depth = common; depth < container_path.size(); ++depth) {
    OpenContainer& parent = open_.back();
    const Segment& segment = container_path[depth];
    if (parent.children > 0) text += ',';
    if (const auto* key = std::get_if<std::string>(&segment)) {
      text += quoted(*key);
      text += ':';
      ++parent.children;
    } else if (parent.is_array) {
      for (size_t pad = parent.children; pad < std::get<size_t>(segment); ++pad) text += "null,";
      parent.children = std::get<size_t>(segment) + 1;
    }
    const Segment& child = depth + 1 < container_path.size() ? container_path[depth + 1] : leaf;
    const bool is_array = std::holds_alternative<size_t>(child);
    text += is_array ? '[' : '{';
    open_.push_back(OpenContainer{segment, is_array, 0});
  }
  return text;
}

void PartialArgsWriter::store(const std::vector<Segment>& path, const Json& leaf_value, bool append_string) {
  Json* node = &value_;
  for (size_t i = 0; i < path.size(); ++i) {
    const bool last = i + 1 == path.size();
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!node->is_object()) *node = Json::object();
      node = &(*node)[*key];
    } else {
      const size_t index = std::get<size_t>(path[i]);
      if (!node->is_array()) *node = Json::array();
      while (node->size() <= index) node->push_back(nullptr);
      node = &(*node)[index];
    }
    if (last) {
      if (append_string && node->is_string() && leaf_value.is_string()) {
        node->get_ref<std::string&>() += leaf_value.get_ref<const std::string&>();
      } else {
        *node = leaf_value;
      }
    }
  }
}

std::string PartialArgsWriter::close() {
  if (open_.empty()) return "{}";
  std::string text;
  if (string_open_) {
    text += '"';
    string_open_ = false;
  }
  while (!open_.empty()) {
    text += open_.back().is_array ? ']' : '}';
    open_.pop_back();
  }
  return text;
}

}  // namespace sluice::wire::gemini
