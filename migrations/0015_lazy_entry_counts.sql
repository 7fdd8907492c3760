-- A manifest's file entries are counted lazily (docs/store.md, "Shared
-- content"). A validation that records a new tree no longer updates the
-- inventory row of every file in it, which cost more than reading the
-- files: a file under a referenced manifest whose entries are not counted
-- yet is held by that manifest through its recorded entry, and the next GC
-- epoch adds the counts in batches before it plans.
--
-- entries_counted: the references this manifest gives its file (non-
-- manifest) entries are in their refs. Meaningful only while the manifest
-- is referenced; it is reset when the manifest becomes referenced again.
-- Every manifest referenced before this migration has its counts applied.
ALTER TABLE awc.objects
  ADD COLUMN entries_counted boolean NOT NULL DEFAULT true;
ALTER TABLE awc.objects ALTER COLUMN entries_counted SET DEFAULT false;

-- The referenced manifests whose file entries still owe their counts.
CREATE INDEX objects_uncounted_idx ON awc.objects (tenant_id, digest)
  WHERE refs > 0 AND manifest_entries AND NOT entries_counted;
