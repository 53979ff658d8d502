-- Why: a fleet must show which catalog version each replica serves, so that a fleet serving two
-- versions (a save or a rollout that reached only some replicas) is visible in one place.

-- Each replica's heartbeat, written every few seconds by the replica itself.
CREATE TABLE fleet_replicas (
  name            text COLLATE "C" PRIMARY KEY CHECK (octet_length(name) BETWEEN 1 AND 128),
  catalog_version text        NOT NULL,
  started_at      timestamptz NOT NULL,
  last_seen       timestamptz NOT NULL DEFAULT now(),
  draining        boolean     NOT NULL DEFAULT false
);
