-- Why: a stored response's previous_response_id links must never close a loop (a loop made the
-- next turn inline the same turns a thousand times). The gateway mints every stored id and never
-- saves over one; saving also refuses an id that a kept response already names as its previous,
-- which this index makes a lookup instead of a scan of the member's responses. The constraint
-- refuses a response that names itself from now on (NOT VALID: rows kept before are left as they
-- are; the chain query walks each response once whatever they hold).
CREATE INDEX stored_responses_previous ON stored_responses (owner, previous_response_id)
  WHERE previous_response_id IS NOT NULL;
ALTER TABLE stored_responses
  ADD CONSTRAINT stored_responses_not_its_own_previous CHECK (previous_response_id IS DISTINCT FROM id) NOT VALID;
