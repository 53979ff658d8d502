#include "server/wire/openai_responses/response_id.h"

#include <array>

#include "server/wire/json_parse.h"
#include "server/wire/json_scan.h"

namespace sluice::wire::openai_responses {

std::optional<std::string> withResponseId(std::string_view response_json, std::string_view id) {
  const std::array<MemberEdit, 1> edits = {MemberEdit{"id", dumpJsonText(Json(std::string(id)))}};
  return editTopLevelMembers(response_json, edits);
}

std::string eventWithResponseId(std::string_view event, std::string_view id) {
  const auto span = jsonDataLine(event);
  if (!span) return std::string(event);
  const std::string_view data = event.substr(span->at, span->size);
  const MemberScan response = scanTopLevelMember(data, "response");
  if (!response.walked || !response.value || !response.value->starts_with('{')) return std::string(event);
  const auto edited = withResponseId(*response.value, id);
  if (!edited) return std::string(event);
  const size_t value_at = span->at + static_cast<size_t>(response.value->data() - data.data());
  std::string out(event.substr(0, value_at));
  out += *edited;
  out += event.substr(value_at + response.value->size());
  return out;
}

}  // namespace sluice::wire::openai_responses
