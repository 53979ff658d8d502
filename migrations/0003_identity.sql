-- Why: every request is made by a known member with an API key, personal provider keys are stored encrypted, and quota usage is counted where every replica sees it.

-- Members of the organisation. Names are what rules.yaml's `person` band, the audit row and
-- sluicectl use; groups and projects are free-form names matched by rules.yaml and the scope header.
CREATE TABLE members (
  name            text COLLATE "C" PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$'),
  role            text        NOT NULL CHECK (role IN ('member', 'admin')),
  groups          text[]      NOT NULL DEFAULT '{}',
  projects        text[]      NOT NULL DEFAULT '{}',
  primary_project text        CHECK (primary_project IS NULL OR primary_project = ANY (projects)),
  disabled_at     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);

-- API keys, stored only as SHA-256 of the whole key. `id` is the 8 characters after `sk-sluice-`
-- that are shown in listings and audit rows (api_key_id); the key itself is shown once.
CREATE TABLE api_keys (
  id           text COLLATE "C" PRIMARY KEY CHECK (id ~ '^[0-9A-Za-z]{8}$'),
  user_name    text COLLATE "C" NOT NULL REFERENCES members (name),
  project      text,                          -- the project every request with this key is attributed to
  name         text,                          -- a label: "laptop", "ci"
  prefix       text GENERATED ALWAYS AS ('sk-sluice-' || id) STORED,
  hash         bytea       NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  revoked_at   timestamptz,
  last_used_at timestamptz                    -- refreshed at most once a minute per replica
);
CREATE INDEX api_keys_user_name ON api_keys (user_name);

-- Members' own provider keys for `kind: personal` credentials: AES-256-GCM under the master key
-- named by master_key_id, the 16-byte tag at the end of ciphertext, a fresh 12-byte nonce each.
CREATE TABLE personal_credentials (
  user_name     text COLLATE "C" NOT NULL REFERENCES members (name),
  credential_id text COLLATE "C" NOT NULL,   -- a credential of credentials.yaml
  ciphertext    bytea       NOT NULL,
  nonce         bytea       NOT NULL CHECK (octet_length(nonce) = 12),
  master_key_id text        NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_name, credential_id)
);

-- Usage per quota window, shared by every replica. A request is counted when it is admitted
-- (requests + 1, input_tokens + the estimate) and corrected when it ends (input_tokens by the
-- actual minus the estimate, output tokens and cost added), so a window overruns its limit by at
-- most the requests in flight. One row per scope, window and window start; old rows are pruned.
CREATE TABLE quota_counters (
  scope_kind        text        NOT NULL CHECK (scope_kind IN ('user', 'project', 'api_key', 'organisation')),
  scope_value       text        NOT NULL,
  window_id         text        NOT NULL,
  window_start      timestamptz NOT NULL,
  window_end        timestamptz NOT NULL,
  requests          bigint      NOT NULL DEFAULT 0,
  input_tokens      bigint      NOT NULL DEFAULT 0,
  output_tokens     bigint      NOT NULL DEFAULT 0,
  cost_microdollars bigint      NOT NULL DEFAULT 0,
  PRIMARY KEY (scope_kind, scope_value, window_id, window_start)
);
CREATE INDEX quota_counters_window_end ON quota_counters (window_end);
