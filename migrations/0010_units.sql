-- Why: the /v1 endpoints besides chat (images, speech, transcriptions, …) are counted in units as well as tokens, and priced per unit.

-- What the request was counted in besides tokens: 'images', 'characters', 'seconds' or
-- 'requests' (NULL for chat requests and for requests nothing served), and how many
-- (docs/audit.md). Rows written before this migration keep NULL and 0.
ALTER TABLE ai_requests ADD COLUMN unit text;
ALTER TABLE ai_requests ADD COLUMN units bigint NOT NULL DEFAULT 0;
