-- The claim's fencing token has come from the database clock since the
-- queue's commits became asynchronous (src/queue/queue_sql.h,
-- AWC_QUEUE_NEW_TOKEN): a sequence's advance can be lost with an
-- asynchronous commit and its token handed out again. Nothing reads
-- awc.job_lease_token_seq any more.
DROP SEQUENCE IF EXISTS awc.job_lease_token_seq;
