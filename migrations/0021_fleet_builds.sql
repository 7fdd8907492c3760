-- compatibility: older builds run on it
-- Builds of several releases on one database (docs/operations.md, "Rolling
-- upgrades").
--
-- compatible_from: the oldest schema version a build must know to run on a
-- database that has this migration; the version of the newest breaking
-- migration up to this one. A build that finds migrations newer than it
-- knows runs on them when each one's compatible_from is at most the newest
-- version it knows, and refuses otherwise. The runner records it for every
-- migration it applies, and for those applied before this column existed.
ALTER TABLE awc.schema_migrations ADD COLUMN compatible_from integer;

-- What each live worker's build is, as its heartbeat says: its release
-- (build), the newest migration it knows (schema_version), and the job kinds
-- it handles (kinds). NULL for a build from before this migration. A
-- migration that is not compatible with what a live worker knows waits for
-- that worker to be upgraded; a job of a kind that this worker lacks but a
-- live worker of another build handles is left for that worker.
ALTER TABLE awc.workers ADD COLUMN build text,
                        ADD COLUMN schema_version integer,
                        ADD COLUMN kinds text[];
