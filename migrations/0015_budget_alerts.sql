-- Why: a quota window's `alerts:` (80 % of a budget spent) must reach finance exactly once per
-- subject, threshold and period, whichever of the replicas notices first.

-- One row per alert claimed: the replica whose INSERT ... ON CONFLICT DO NOTHING added it sends it;
-- every other replica finds the row and does not. Rows outlive their period (what was told when).
CREATE TABLE budget_alerts (
  window_id    text        NOT NULL CHECK (octet_length(window_id) BETWEEN 1 AND 200),
  scope_kind   text        NOT NULL CHECK (scope_kind IN ('user', 'project', 'api_key', 'organisation', 'group')),
  scope_value  text        NOT NULL CHECK (octet_length(scope_value) BETWEEN 1 AND 500),
  threshold    smallint    NOT NULL CHECK (threshold BETWEEN 1 AND 100),       -- percent of the limit
  webhook      text        NOT NULL CHECK (octet_length(webhook) BETWEEN 1 AND 200),
  period_start timestamptz NOT NULL,
  period_end   timestamptz NOT NULL,
  claimed_by   text        NOT NULL CHECK (octet_length(claimed_by) BETWEEN 1 AND 200),  -- replica name
  claimed_at   timestamptz NOT NULL,
  outcome      text        NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'delivered', 'failed')),
  PRIMARY KEY (window_id, scope_kind, scope_value, threshold, webhook, period_start)
);

-- Every attempt to deliver a claimed alert: its HTTP status (0 when none came) and a short,
-- secret-free reason ("status_500", "timeout", "connect", ...).
CREATE TABLE budget_alert_attempts (
  id           bigserial   PRIMARY KEY,
  at           timestamptz NOT NULL,
  window_id    text        NOT NULL,
  scope_kind   text        NOT NULL,
  scope_value  text        NOT NULL,
  threshold    smallint    NOT NULL,
  webhook      text        NOT NULL,
  period_start timestamptz NOT NULL,
  attempt      smallint    NOT NULL CHECK (attempt >= 1),
  status       smallint    NOT NULL,
  reason       text        NOT NULL CHECK (octet_length(reason) <= 100),
  FOREIGN KEY (window_id, scope_kind, scope_value, threshold, webhook, period_start)
    REFERENCES budget_alerts ON DELETE CASCADE
);
CREATE INDEX budget_alert_attempts_at ON budget_alert_attempts (at DESC, id DESC);
