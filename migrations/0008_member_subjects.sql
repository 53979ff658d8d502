-- Why: a member may be identified by a verified TLS client certificate (or a trusted proxy's e-mail header) instead of an API key, so the certificate names that stand for each member must be stored where every replica sees them.

-- A certificate name that stands for one member: 'cn:<common name>', 'uri:<subjectAltName URI>'
-- or 'email:<address, lower case>' (server/identity/certificate_subject.h). A name stands for at
-- most one member; a member may have several.
CREATE TABLE member_subjects (
  subject    text COLLATE "C" PRIMARY KEY
             CHECK (subject ~ '^(cn|uri|email):.' AND octet_length(subject) <= 520),
  user_name  text COLLATE "C" NOT NULL REFERENCES members (name) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX member_subjects_user_name ON member_subjects (user_name);
