#pragma once
// OTLP/HTTP request bodies: ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1) and
// ExportLogsServiceRequest (collector/logs/v1) under one resource and one scope, as protobuf
// (`application/x-protobuf`) or the OTLP JSON mapping (`application/json`: lowerCamelCase names,
// trace and span ids as hex, 64-bit integers as strings, enums as numbers). Pure. The protobuf is
// written by hand (protobuf_writer.h) because the messages are few and stable and no OpenTelemetry
// C++ library is packaged for Debian 12; the tests check it with the official JavaScript packages'
// decoder.
//
// A request's spans are encoded once, when the request ends (EncodedSpans, straight from its row
// with no Span values in between), and a batch of them is wrapped when it is exported; audit rows
// are encoded from their committed lines, field by field, when their batch is exported.

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/audit/record.h"
#include "server/telemetry/request_spans.h"
#include "server/telemetry/span.h"

namespace sluice::telemetry {

// One request's spans, encoded: protobuf Span messages (each as field 2 of a ScopeSpans) back to
// back, or JSON span objects joined by commas.
struct EncodedSpans {
  std::string bytes;
  uint32_t count = 0;
};
inline size_t itemWeight(const EncodedSpans& spans) { return spans.count; }

EncodedSpans encodeRequestSpansProtobuf(const audit::Record& row, const RequestFacts& facts,
                                        const RequestTrace& trace, const catalog::Catalog* catalog,
                                        audit::TimePoint now);
EncodedSpans encodeSpansProtobuf(const std::vector<Span>& spans);
EncodedSpans encodeSpansJson(const std::vector<Span>& spans);

// A batch of encoded spans (all of one encoding) as one request body.
std::string wrapTracesProtobuf(const Sender& sender, const std::vector<EncodedSpans>& batch);
std::string wrapTracesJson(const Sender& sender, const std::vector<EncodedSpans>& batch);

std::string encodeTracesProtobuf(const Sender& sender, const std::vector<Span>& spans);
std::string encodeTracesJson(const Sender& sender, const std::vector<Span>& spans);

std::string encodeLogsProtobuf(const Sender& sender, const std::vector<LogRecord>& records);
std::string encodeLogsJson(const Sender& sender, const std::vector<LogRecord>& records);

// Committed audit lines (COPY text or JSON rows, audit_log.h), one log record each; a line that is
// not a row is left out.
std::string encodeAuditLinesProtobuf(const Sender& sender, const std::vector<std::string>& lines,
                                     uint64_t observed_unix_nano);
std::string encodeAuditLinesJson(const Sender& sender, const std::vector<std::string>& lines,
                                 uint64_t observed_unix_nano);

}  // namespace sluice::telemetry
