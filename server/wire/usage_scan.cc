// scanResponseUsage: the passthrough lane's usage, read from the one member that holds it.

#include "server/wire/anthropic/usage_counts.h"
#include "server/wire/codec.h"
#include "server/wire/json_scan.h"
#include "server/wire/openai_chat/usage_json.h"
#include "server/wire/openai_responses/usage_json.h"

namespace sluice::wire {

std::optional<UsageReading> scanResponseUsage(catalog::Wire wire, std::string_view body) {
  if (wire == catalog::Wire::Gemini) return std::nullopt;
  const MemberScan scan = scanTopLevelMember(body, "usage");
  if (!scan.walked) return std::nullopt;
  UsageReading reading;
  if (!scan.value) return reading;
  const Json usage = Json::parse(*scan.value, nullptr, /*allow_exceptions=*/false);
  if (usage.is_discarded()) return std::nullopt;
  if (!usage.is_object()) return reading;
  switch (wire) {
    case catalog::Wire::Anthropic: {
      anthropic::UsageCounts counts;
      reading.reported = counts.merge(usage);
      reading.usage = counts.toNeutral();
      break;
    }
    case catalog::Wire::OpenAIChat:
      reading.usage = openai_chat::usageFromJson(usage);
      reading.reported = true;
      break;
    case catalog::Wire::OpenAIResponses: reading.reported = openai_responses::readUsage(usage, reading.usage); break;
    case catalog::Wire::Gemini: return std::nullopt;
  }
  return reading;
}

}  // namespace sluice::wire
