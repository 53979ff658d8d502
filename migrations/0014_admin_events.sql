-- Why: member and key changes (sluicectl, the console) left no record of who made them; an admin
-- changing another's access must be answerable.

-- Every change an administrator makes to members and API keys (sluicectl users/keys, the console's
-- Members page): who did what to whom, when. Rows are only ever added; a member's rows outlive the
-- member (target is a name, not a foreign key), so `sluicectl users delete` keeps them.
CREATE TABLE admin_events (
  id     bigserial   PRIMARY KEY,
  at     timestamptz NOT NULL,
  actor  text        NOT NULL CHECK (octet_length(actor) BETWEEN 1 AND 200),    -- "console:alice", "cli:root"
  action text        NOT NULL CHECK (action ~ '^[a-z][a-z_.]{0,39}$'),           -- "member.update", "key.revoke"
  target text        NOT NULL CHECK (octet_length(target) BETWEEN 1 AND 200),  -- a member name
  detail text        NOT NULL DEFAULT '' CHECK (octet_length(detail) <= 2000)  -- what changed, never a secret
);
CREATE INDEX admin_events_at ON admin_events (at DESC, id DESC);
CREATE INDEX admin_events_target_at ON admin_events (target, at DESC, id DESC);
