#pragma once
// The bedrock-converse wire's codec: Bedrock's Converse and ConverseStream APIs, for any model
// Bedrock serves (Claude, Llama, Mistral, Nova, ...). See server/wire/codec.h for the contract each
// function keeps. A provider wire only: decodeRequest refuses with 400 "unsupported_wire",
// encodeResponse returns "" and makeStreamEncoder returns nullptr.
//
// encodeRequest (converse_request.cc): system -> system[{text}]; messages -> messages with
// content blocks text, image {format, source.bytes}, toolUse, toolResult {content, status},
// reasoningContent {reasoningText {text, signature}} (only signatures Bedrock minted) or
// {redactedContent}; Anthropic cache_control -> a cachePoint after the block; tools ->
// toolConfig.tools[].toolSpec {name, description, inputSchema.json}; tool_choice -> toolConfig.
// toolChoice {auto|any|tool}; max_tokens, temperature, top_p, stop_sequences -> inferenceConfig;
// what has no Converse field goes in additionalModelRequestFields for Claude models (thinking,
// top_k). Refused (400 unsupported_field): an image by URL (Converse takes bytes or S3 only).
// The model travels in the URL (/model/{id}/converse[-stream]).
//
// decodeResponse (converse_response.cc): output.message.content -> blocks; stopReason ->
// StopReason (guardrail_intervened and content_filtered -> Refusal,
// model_context_window_exceeded -> ContextWindowExceeded); usage inputTokens + cache read/write ->
// the neutral input (Converse's inputTokens excludes cached tokens, as Anthropic's does).
//
// makeStreamDecoder (converse_stream.cc): reads the SSE text server/cloud/bedrock_call.cc makes of
// ConverseStream's event-stream frames (`event: <event type>`, `data: <payload>`): messageStart,
// contentBlockStart (toolUse), contentBlockDelta (text, toolUse.input, reasoningContent text,
// signature or redactedContent), contentBlockStop, messageStop (stopReason), metadata (usage,
// after messageStop), and `error` (an exception, as an Anthropic error event).
//
// decodeError: Bedrock's error answers reach the pipeline in Anthropic's error shape
// (bedrock_call.cc), so they are read as the anthropic codec reads errors.

#include "server/wire/codec.h"

namespace sluice::wire::converse {

#include "server/wire/codec_functions.inl"

// Converse's stopReason as the neutral StopReason.
StopReason stopReasonOf(std::string_view stop_reason);

// Converse's usage object as the neutral Usage (input includes cache reads and writes).
Usage usageOf(const Json& usage);

// One content block of an answer (output.message.content[i]) as an IR block; nullopt for a block
// this gateway does not model (kept out of the answer).
std::optional<ContentBlock> blockOf(const Json& block);

}  // namespace sluice::wire::converse
