-- Why: most rows end `ok` and many carry no project, yet every row paid for an entry in the
-- outcome and project indexes that no query reads: a query names a failure outcome or a project,
-- never `ok` (that filter keeps most rows, so created_at's index serves it) nor a missing project.
-- Two fewer index entries per ok row without a project: about 2 µs of PostgreSQL CPU per row, a
-- fifth of what an audited request costs it (docs/BENCHMARKS.md).
--
-- The new indexes are built on every day partition while this runs (ai_requests is locked against
-- writes meanwhile; replicas spool their rows and replay them): on a large trail, migrate off-peak
-- (docs/audit.md).
DROP INDEX IF EXISTS ai_requests_outcome_created_at;
CREATE INDEX ai_requests_failed_outcome_created_at ON ai_requests (outcome, created_at) WHERE outcome <> 'ok';
DROP INDEX IF EXISTS ai_requests_project_created_at;
CREATE INDEX ai_requests_project_created_at ON ai_requests (project, created_at) WHERE project IS NOT NULL;
