#pragma once
// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a client sends, read
// strictly, and the one the gateway sends on; fresh trace and span ids. Pure but for the ids,
// which come from a generator per thread seeded by OpenSSL's.

#include <optional>
#include <string>
#include <string_view>

namespace sluice::telemetry {

struct SpanContext {
  std::string trace_id;  // 32 lowercase hex digits, not all zero
  std::string span_id;   // 16 lowercase hex digits, not all zero
  bool sampled = false;  // trace-flags bit 0
  std::string trace_state;  // the client's tracestate, kept as sent (bounded), for the child
};

// `traceparent` as the spec reads it: version 00 exactly 55 bytes; a later version (not ff) at
// least 55 with a '-' after the flags when longer; lowercase hex only; ids not all zero. nullopt for
// anything else (the gateway then starts a trace of its own). `tracestate` is kept when at most
// 512 bytes of printable ASCII, else dropped.
std::optional<SpanContext> parseTraceparent(std::string_view traceparent, std::string_view tracestate = {});

// "00-<trace_id>-<span_id>-0<sampled>".
std::string formatTraceparent(std::string_view trace_id, std::string_view span_id, bool sampled);

std::string newTraceId();  // 16 random bytes, lowercase hex, never all zero
std::string newSpanId();   // 8 random bytes, lowercase hex, never all zero

}  // namespace sluice::telemetry
