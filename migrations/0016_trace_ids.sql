-- Why: a request's row and its trace in the tracing backend could not be joined.

-- The OpenTelemetry trace and the gateway's SERVER span of the request (docs/observability.md),
-- as 32 and 16 hex digits; NULL when tracing is off or the trace was not sampled.
ALTER TABLE ai_requests ADD COLUMN trace_id text;
ALTER TABLE ai_requests ADD COLUMN span_id text;
