-- Why: an auditor must see, per request, how many values of each kind data protection masked before it reached a provider, never the values.

-- Counts per kind of the values masked in the request sent to a masked trust tier
-- ({"email": 2, "api_key": 1}, occurrences); NULL when nothing was masked or no attempt went to a
-- masked tier (docs/audit.md). Older rows stay NULL. Added last, so an older replica still
-- writing (its column list names the columns it knows) keeps working during a rolling upgrade.
ALTER TABLE ai_requests ADD COLUMN masked jsonb;
