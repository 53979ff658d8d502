#pragma once
// An ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1) holding `spans` under one
// resource and one scope, as OTLP/HTTP sends it: protobuf (`application/x-protobuf`) or the OTLP
// JSON mapping (`application/json`: lowerCamelCase names, trace and span ids as hex, 64-bit
// integers as strings, enums as numbers). Pure. The protobuf is written by hand because the
// messages are few and stable and no OpenTelemetry C++ library is packaged for Debian 12; the
// tests check it with the official JavaScript packages' decoder.

#include <string>
#include <vector>

#include "server/telemetry/span.h"

namespace sluice::telemetry {

std::string encodeTracesProtobuf(const Sender& sender, const std::vector<Span>& spans);
std::string encodeTracesJson(const Sender& sender, const std::vector<Span>& spans);

// An ExportLogsServiceRequest (opentelemetry/proto/collector/logs/v1), in the same two encodings.
std::string encodeLogsProtobuf(const Sender& sender, const std::vector<LogRecord>& records);
std::string encodeLogsJson(const Sender& sender, const std::vector<LogRecord>& records);

}  // namespace sluice::telemetry
