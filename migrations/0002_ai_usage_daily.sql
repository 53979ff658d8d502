-- Why: `sluicectl usage --since 30d` must read a few rows per day, not one per user-model-hour: a daily rollup.

-- The same measures as ai_usage_hourly, per UTC day; maintained by the writer in its insert
-- statement. `sluicectl usage` reads whole days here, the rest of the first day from the hourly
-- rollup, and the rest of the first hour from ai_requests.
CREATE TABLE ai_usage_daily (
  day                date   NOT NULL,
  user_name          text   NOT NULL,
  project            text   NOT NULL,
  model              text   NOT NULL,
  provider           text   NOT NULL,
  requests           bigint NOT NULL,
  failed             bigint NOT NULL,
  input_tokens       bigint NOT NULL,
  output_tokens      bigint NOT NULL,
  cache_read_tokens  bigint NOT NULL,
  cache_write_tokens bigint NOT NULL,
  reasoning_tokens   bigint NOT NULL,
  cost_microdollars  bigint NOT NULL,
  PRIMARY KEY (day, user_name, project, model, provider)
);

-- Rows written before this migration.
INSERT INTO ai_usage_daily
SELECT (hour AT TIME ZONE 'UTC')::date, user_name, project, model, provider, sum(requests), sum(failed),
       sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens),
       sum(reasoning_tokens), sum(cost_microdollars)
FROM ai_usage_hourly GROUP BY 1, 2, 3, 4, 5;

-- Retention now prunes the daily rollup too.
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
END $$;
