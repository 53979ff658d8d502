-- Why: what prompt caching saves must be visible per request, per route and per served deployment without re-pricing history.

-- What the request's cache reads saved at the served deployment's prices (docs/audit.md). Rows
-- written before this migration keep 0: their prices at the time are not known any more.
ALTER TABLE ai_requests ADD COLUMN cache_savings_microdollars bigint NOT NULL DEFAULT 0;
ALTER TABLE ai_usage_hourly ADD COLUMN cache_savings_microdollars bigint NOT NULL DEFAULT 0;
ALTER TABLE ai_usage_daily ADD COLUMN cache_savings_microdollars bigint NOT NULL DEFAULT 0;

-- The same measures per route and served endpoint, for `sluicectl usage --by route|deployment`
-- and the console. A table of their own rather than two more key columns on ai_usage_hourly and
-- ai_usage_daily: an older replica still writing during a rolling upgrade keeps its upsert's
-- conflict target there (it does not feed these tables until it is upgraded).
CREATE TABLE ai_route_usage_hourly (
  hour                       timestamptz NOT NULL,
  route_id                   text   NOT NULL,     -- '' when no route matched
  endpoint                   text   NOT NULL,     -- served_endpoint ("provider/endpoint"); '' when none served
  requests                   bigint NOT NULL,
  failed                     bigint NOT NULL,
  input_tokens               bigint NOT NULL,
  output_tokens              bigint NOT NULL,
  cache_read_tokens          bigint NOT NULL,
  cache_write_tokens         bigint NOT NULL,
  reasoning_tokens           bigint NOT NULL,
  cost_microdollars          bigint NOT NULL,
  cache_savings_microdollars bigint NOT NULL,
  PRIMARY KEY (hour, route_id, endpoint)
);

CREATE TABLE ai_route_usage_daily (
  day                        date   NOT NULL,
  route_id                   text   NOT NULL,
  endpoint                   text   NOT NULL,
  requests                   bigint NOT NULL,
  failed                     bigint NOT NULL,
  input_tokens               bigint NOT NULL,
  output_tokens              bigint NOT NULL,
  cache_read_tokens          bigint NOT NULL,
  cache_write_tokens         bigint NOT NULL,
  reasoning_tokens           bigint NOT NULL,
  cost_microdollars          bigint NOT NULL,
  cache_savings_microdollars bigint NOT NULL,
  PRIMARY KEY (day, route_id, endpoint)
);

-- Rows written before this migration (one pass over the retained audit trail; probes excluded,
-- as in the other rollups).
INSERT INTO ai_route_usage_hourly
SELECT date_trunc('hour', created_at, 'UTC'), coalesce(route_id, ''), coalesce(served_endpoint, ''), count(*),
       count(*) FILTER (WHERE outcome <> 'ok'), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
       sum(cache_write_tokens), sum(reasoning_tokens), sum(cost_microdollars), sum(cache_savings_microdollars)
FROM ai_requests WHERE NOT probe GROUP BY 1, 2, 3;

INSERT INTO ai_route_usage_daily
SELECT (hour AT TIME ZONE 'UTC')::date, route_id, endpoint, sum(requests), sum(failed), sum(input_tokens),
       sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), sum(reasoning_tokens),
       sum(cost_microdollars), sum(cache_savings_microdollars)
FROM ai_route_usage_hourly GROUP BY 1, 2, 3;

-- Retention now prunes the route rollups too.
CREATE OR REPLACE FUNCTION sluice_drop_ai_requests_before(cutoff date) RETURNS SETOF text
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
  DELETE FROM ai_usage_daily WHERE day < cutoff;
  DELETE FROM ai_route_usage_hourly WHERE hour < (cutoff::timestamp AT TIME ZONE 'UTC');
  DELETE FROM ai_route_usage_daily WHERE day < cutoff;
END $$;
