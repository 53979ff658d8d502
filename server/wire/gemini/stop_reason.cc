#include "server/wire/gemini/stop_reason.h"

namespace sluice::wire::gemini {

StopReason stopReasonFor(std::string_view finish_reason, bool saw_function_call) {
  if (finish_reason == "MAX_TOKENS") return StopReason::MaxTokens;
  if (finish_reason == "SAFETY" || finish_reason == "RECITATION" || finish_reason == "LANGUAGE" ||
      finish_reason == "BLOCKLIST" || finish_reason == "PROHIBITED_CONTENT" || finish_reason == "SPII" ||
      finish_reason.starts_with("IMAGE_")) {
    return StopReason::Refusal;
  }
  // NOTE: MALFORMED_FUNCTION_CALL and its kin end the turn without a usable call. The IR's
  // StopReason::Error would make client encoders report a failed response although the upstream
  // answered 200 with (possibly) text; a normal end keeps every client wire well-formed.
  // Gemini also answers STOP when a stop sequence matched without naming it, so StopSequence is
  // never produced.
  return saw_function_call ? StopReason::ToolUse : StopReason::EndTurn;
}

}  // namespace sluice::wire::gemini
