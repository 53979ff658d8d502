-- Why: members and groups come from the company's identity provider (OpenID Connect sign-in, SCIM
-- provisioning) as well as from sluicectl; each member must say where it came from, SCIM must find
-- its users and groups by its own ids, and a group may exist before anyone is in it.

-- Where a member was made: 'cli' (sluicectl), 'console' (the Members page), 'sso' (a first OpenID
-- Connect sign-in with provision: true) or 'scim' (the identity provider's SCIM client). A member
-- made by SCIM is changed at the CLI only with --force.
ALTER TABLE members ADD COLUMN source text NOT NULL DEFAULT 'cli'
  CHECK (source IN ('cli', 'console', 'sso', 'scim'));
-- The SCIM resource id (a UUID the gateway assigns the first time SCIM or SSO sees the member),
-- the identity provider's own id for it, and what it says of the person. Never secrets.
ALTER TABLE members ADD COLUMN scim_id text UNIQUE CHECK (scim_id ~ '^[0-9a-f-]{36}$');
ALTER TABLE members ADD COLUMN external_id text CHECK (octet_length(external_id) <= 512);
ALTER TABLE members ADD COLUMN display_name text CHECK (octet_length(display_name) <= 512);
ALTER TABLE members ADD COLUMN email text CHECK (octet_length(email) <= 320);
ALTER TABLE members ADD COLUMN given_name text CHECK (octet_length(given_name) <= 512);
ALTER TABLE members ADD COLUMN family_name text CHECK (octet_length(family_name) <= 512);

-- Groups as SCIM knows them. A member's groups stay in members.groups (what access rules match);
-- a row here gives a group its SCIM id and lets it exist with no member. display_name is the group's
-- name in members.groups and in rules.yaml.
CREATE TABLE directory_groups (
  id           text PRIMARY KEY CHECK (id ~ '^[0-9a-f-]{36}$'),
  display_name text COLLATE "C" NOT NULL UNIQUE CHECK (octet_length(display_name) BETWEEN 1 AND 128),
  external_id  text CHECK (octet_length(external_id) <= 512),
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
