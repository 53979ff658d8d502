-- Why: an audit row named no client address; who sent a request is half of what an audit trail is for.

-- The caller's IP address: the connection's peer, or, behind a trusted proxy
-- (gateway.trusted_proxies) that sent X-Forwarded-For, the address that proxy saw (docs/audit.md).
-- Rows written before this migration keep NULL.
ALTER TABLE ai_requests ADD COLUMN client_address text;
