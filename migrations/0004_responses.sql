-- Why: a Responses client may translate onto any provider and fail over between them, so the
-- gateway, not the provider, keeps what `previous_response_id`, `item_reference` and
-- GET/DELETE /v1/responses/{id} point at, where every replica sees it.

-- One response created with `store` not false: the response object the client was shown, who
-- owns it, the turn it continued, and when it may be purged.
CREATE TABLE stored_responses (
  id                   text COLLATE "C" NOT NULL CHECK (octet_length(id) BETWEEN 1 AND 256),
  owner                text COLLATE "C" NOT NULL,  -- the member's name; '' when keys are off
  previous_response_id text COLLATE "C",
  response             jsonb       NOT NULL,       -- the object as the client received it
  size_bytes           integer     NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  expires_at           timestamptz NOT NULL,
  PRIMARY KEY (owner, id)
);
CREATE INDEX stored_responses_expires_at ON stored_responses (expires_at);

-- The items of a stored response, in order: its input items (the turn's own, item references
-- resolved) and its output items. `item_id` is the item's own id when it has one, for
-- item_reference lookups.
CREATE TABLE stored_response_items (
  owner       text COLLATE "C" NOT NULL,
  response_id text COLLATE "C" NOT NULL,
  kind        text        NOT NULL CHECK (kind IN ('input', 'output')),
  position    integer     NOT NULL,
  item_id     text COLLATE "C",
  item        jsonb       NOT NULL,
  PRIMARY KEY (owner, response_id, kind, position),
  FOREIGN KEY (owner, response_id) REFERENCES stored_responses (owner, id) ON DELETE CASCADE
);
CREATE INDEX stored_response_items_item_id ON stored_response_items (owner, item_id) WHERE item_id IS NOT NULL;
