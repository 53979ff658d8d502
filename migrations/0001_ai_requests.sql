-- Why: the audit trail keeps exactly one row per request, partitioned by day so retention is a DROP TABLE.

CREATE TABLE ai_requests (
  id                 text COLLATE "C" NOT NULL,   -- x-sluice-request-id; "C" so LIKE 'prefix%' uses the key
  created_at         timestamptz NOT NULL,
  completed_at       timestamptz,
  user_name          text,
  api_key_id         text,
  project            text,
  project_source     text,                         -- header | key | primary
  client_family      text,
  client_wire        text,
  requested_model    text,
  model              text,
  route_id           text,
  strategy           text,
  provider           text,                         -- the route's primary
  endpoint           text,
  served_provider    text,                         -- who produced the response
  served_endpoint    text,
  route_match        text,
  attempts           jsonb   NOT NULL DEFAULT '[]',
  is_streaming       boolean NOT NULL DEFAULT false,
  status             integer NOT NULL DEFAULT 0,
  outcome            text    NOT NULL,
  error_key          text,
  error_message      text,
  input_tokens       bigint  NOT NULL DEFAULT 0,
  output_tokens      bigint  NOT NULL DEFAULT 0,
  cache_read_tokens  bigint  NOT NULL DEFAULT 0,
  cache_write_tokens bigint  NOT NULL DEFAULT 0,
  reasoning_tokens   bigint  NOT NULL DEFAULT 0,
  cost_microdollars  bigint  NOT NULL DEFAULT 0,
  latency_ms         bigint,
  ttfb_ms            bigint,
  upstream_ms        bigint,
  aborted            boolean NOT NULL DEFAULT false,
  probe              boolean NOT NULL DEFAULT false,
  request_body       text,
  response_body      text,
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

-- Each index is declared once on the parent; every partition gets its own copy.
CREATE INDEX ai_requests_created_at ON ai_requests (created_at);
CREATE INDEX ai_requests_user_created_at ON ai_requests (user_name, created_at);
CREATE INDEX ai_requests_project_created_at ON ai_requests (project, created_at);
CREATE INDEX ai_requests_model_created_at ON ai_requests (model, created_at);
CREATE INDEX ai_requests_outcome_created_at ON ai_requests (outcome, created_at);

-- Usage per hour, maintained by the writer in the same statement that inserts the rows (only
-- rows actually inserted count, so a replayed row is never counted twice). `sluicectl usage`
-- reads whole hours from here and the partial edge hour from ai_requests. Probes are excluded.
CREATE TABLE ai_usage_hourly (
  hour               timestamptz NOT NULL,
  user_name          text   NOT NULL,
  project            text   NOT NULL,
  model              text   NOT NULL,
  provider           text   NOT NULL,             -- served_provider ('' when none served)
  requests           bigint NOT NULL,
  failed             bigint NOT NULL,             -- outcome <> 'ok'
  input_tokens       bigint NOT NULL,
  output_tokens      bigint NOT NULL,
  cache_read_tokens  bigint NOT NULL,
  cache_write_tokens bigint NOT NULL,
  reasoning_tokens   bigint NOT NULL,
  cost_microdollars  bigint NOT NULL,
  PRIMARY KEY (hour, user_name, project, model, provider)
);

-- The partition holding `day` (UTC), created when missing. Safe when several replicas call it at
-- once: the transaction-scoped advisory lock serialises creators.
CREATE FUNCTION sluice_ensure_ai_requests_partition(day date) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  name text := format('ai_requests_%s', to_char(day, 'YYYYMMDD'));
BEGIN
  IF to_regclass(name) IS NULL THEN
    PERFORM pg_advisory_xact_lock(hashtext('sluice:ai_requests:partitions'));
    IF to_regclass(name) IS NULL THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF ai_requests FOR VALUES FROM (%L) TO (%L)', name,
                     (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
    END IF;
  END IF;
  RETURN name;
END $$;

-- Drops the day partitions that end on or before `cutoff` (UTC midnight) and the hourly usage
-- before it; returns the partitions dropped.
CREATE FUNCTION sluice_drop_ai_requests_before(cutoff date) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  part record;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('sluice:ai_requests:partitions'));
  FOR part IN
    SELECT c.relname
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'ai_requests'::regclass
      AND c.relname ~ '^ai_requests_[0-9]{8}$'
      AND to_date(substr(c.relname, 13), 'YYYYMMDD') < cutoff
    ORDER BY c.relname
  LOOP
    EXECUTE format('DROP TABLE %I', part.relname);
    RETURN NEXT part.relname;
  END LOOP;
  DELETE FROM ai_usage_hourly WHERE hour < (cutoff::timestamp AT TIME ZONE 'UTC');
END $$;
