-- Why: a fleet of replicas on one PostgreSQL acts as one gateway: console sign-ins are shared (an admin
-- signed in on one replica is signed in on every one; signing out or a revoked key ends the session
-- everywhere), and every audit row names the replica that served it.

-- One signed-in console session. The id itself (the cookie's value) is never stored: only its
-- SHA-256. The CSRF token is stored as it is: it is useless without the cookie.
CREATE TABLE console_sessions (
  id_hash     bytea       PRIMARY KEY CHECK (octet_length(id_hash) = 32),
  csrf        text        NOT NULL,
  user_name   text COLLATE "C" NOT NULL REFERENCES members (name) ON DELETE CASCADE,
  api_key_id  text COLLATE "C" NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  last_seen   timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX console_sessions_expires_at ON console_sessions (expires_at);

-- The replica that served each request (--replica-name, default the host name), for the console's
-- live view of a whole fleet and for finding one replica's rows. NULL on rows written before.
ALTER TABLE ai_requests ADD COLUMN replica text;
