#include "server/wire/answer_meter.h"

#include <algorithm>

#include "server/wire/json_parse.h"

namespace sluice::wire {

namespace {

bool whitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::optional<int64_t> integerOf(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  if (it->is_number_float()) return static_cast<int64_t>(it->get<double>());
  return it->get<int64_t>();
}

}  // namespace

void AnswerMeter::endMember() {
  if (capturing_) {
    while (!captured_.empty() && whitespace(captured_.back())) captured_.pop_back();
    if (member_ == "usage") usage_text_ = captured_;
    if (member_ == "duration") duration_text_ = captured_;
  }
  capturing_ = false;
  captured_.clear();
  member_.clear();
  phase_ = Phase::Key;
}

void AnswerMeter::feed(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (capturing_) {
      if (captured_.size() < kMaxCaptured) {
        captured_ += c;
      } else {
        capturing_ = false;  // too large to be what is measured
        captured_.clear();
      }
    }
    if (in_string_) {
      if (reading_key_) {
        if (escaped_ || (c != '"' && c != '\\')) {
          if (key_.size() < 64) key_ += c;
          else key_too_long_ = true;
        }
      }
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (reading_key_) {
          reading_key_ = false;
          phase_ = Phase::Colon;
        }
      }
      continue;
    }
    if (whitespace(c)) continue;
    if (in_data_ && depth_ == 2) {
      if (c == ',') ++data_commas_;
      else if (c != ']') data_any_ = true;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        if (depth_ == 1 && phase_ == Phase::Key) {
          reading_key_ = true;
          key_.clear();
          key_too_long_ = false;
        }
        break;
      case '{':
      case '[':
        if (depth_ == 1 && phase_ == Phase::Value && c == '[' && member_ == "data") {
          in_data_ = true;
          data_any_ = false;
          data_commas_ = 0;
        }
        ++depth_;
        break;
      case '}':
      case ']':
        if (in_data_ && depth_ == 2) {
          in_data_ = false;
          data_items_ = data_any_ ? data_commas_ + 1 : 0;
        }
        --depth_;
        if (depth_ == 0) {
          if (capturing_ && !captured_.empty()) captured_.pop_back();  // the closing brace itself
          endMember();
        }
        break;
      case ':':
        if (depth_ == 1 && phase_ == Phase::Colon) {
          phase_ = Phase::Value;
          member_ = key_too_long_ ? std::string() : key_;
          capturing_ = member_ == "usage" || member_ == "duration";
          captured_.clear();
        }
        break;
      case ',':
        if (depth_ == 1) {
          if (capturing_ && !captured_.empty()) captured_.pop_back();  // the comma itself
          endMember();
        }
        break;
      default: break;
    }
  }
}

AnswerMeasure AnswerMeter::measure() const {
  AnswerMeasure measure;
  measure.data_items = data_items_;
  if (!duration_text_.empty()) {
    const auto duration = parseJsonText(duration_text_);
    if (duration.is_number() && duration.get<double>() >= 0) measure.duration_seconds = duration.get<double>();
  }
  if (!usage_text_.empty()) {
    const auto usage = parseJsonText(usage_text_);
    if (usage.is_object()) {
      const auto type = usage.find("type");
      if (type != usage.end() && type->is_string() && type->get<std::string>() == "duration") {
        if (auto seconds = usage.find("seconds"); seconds != usage.end() && seconds->is_number() &&
                                                  seconds->get<double>() >= 0 && !measure.duration_seconds) {
          measure.duration_seconds = seconds->get<double>();
        }
      } else {
        // Embeddings and moderations: prompt_tokens (and total_tokens); images and newer audio
        // models: input_tokens and output_tokens; rerank services: total_tokens alone.
        const auto prompt = integerOf(usage, "prompt_tokens");
        const auto input = integerOf(usage, "input_tokens");
        const auto total = integerOf(usage, "total_tokens");
        const auto completion = integerOf(usage, "completion_tokens");
        const auto output = integerOf(usage, "output_tokens");
        if (prompt || input || total || completion || output) {
          Usage tokens;
          tokens.output_tokens = std::max<int64_t>(0, completion.value_or(output.value_or(0)));
          tokens.input_tokens =
              std::max<int64_t>(0, prompt.value_or(input.value_or(total ? *total - tokens.output_tokens : 0)));
          measure.usage = tokens;
        }
      }
    }
  }
  return measure;
}

}  // namespace sluice::wire
