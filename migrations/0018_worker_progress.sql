-- How far a worker's long job has got (docs/observability.md, "Progress"):
-- objects and bytes done of the total, the rate and an ETA, as the worker
-- last wrote them with its heartbeat; NULL while it runs none that says.
ALTER TABLE awc.workers ADD COLUMN progress jsonb;
