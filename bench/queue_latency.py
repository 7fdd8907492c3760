"""Idle pickup latency, part 3 of the queue benchmark (queue_bench.py):
bench_stamp jobs inserted one at a time into an idle fleet of the real
daemon; pickup = handler start (started_at) - the producer's COMMIT
returning, beside handler start - created_at (the INSERT) and the
producer's own INSERT -> COMMIT. Standard library only.
"""

import time

from bench_common import Session, die, drop_db, percentile, psql
from queue_daemon import Daemon


# -- 3. idle pickup latency

def run_latency(bench):
    c, samples, gap = bench.a.latency_workers, bench.a.latency_samples, \
        bench.a.latency_gap_ms
    db = bench.fresh_db(0)
    d = Daemon(bench.daemon_bin, db, c, "warn", bench.workdir,
               tag="latency")
    s = Session(db)
    deadline = time.monotonic() + 60
    # Every worker connected and waiting (LISTEN is issued before its
    # first claim), then let the fleet settle into its idle wait.
    while int(s.query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = "
            "current_database() AND application_name LIKE 'bench-%' "
            "AND state = 'idle'")) < c:
        d.check_alive()
        if time.monotonic() > deadline:
            die("the latency fleet did not come up within 60 s")
        time.sleep(0.05)
    time.sleep(1.5)
    # One committed INSERT per sample; NOTIFY is sent at each COMMIT,
    # once its WAL is flushed. When the COMMIT returned is noted too
    # (committed with the next sample), to tell the producer's flush
    # from the pickup.
    psql(db, "CREATE TABLE bench_committed (id bigint, at timestamptz)")
    psql(db, f"""
DO $$
DECLARE jid bigint;
BEGIN
  FOR i IN 1..{samples} LOOP
    INSERT INTO awc.jobs (kind, payload, created_at)
    VALUES ('bench_stamp', '{{}}', clock_timestamp()) RETURNING id INTO jid;
    COMMIT;
    INSERT INTO bench_committed VALUES (jid, clock_timestamp());
    PERFORM pg_sleep({gap / 1000.0});
  END LOOP;
END
$$""")
    deadline = time.monotonic() + 60
    while s.query("SELECT count(*) FROM awc.jobs WHERE state = 'COMPLETED'") \
            != str(samples):
        d.check_alive()
        if time.monotonic() > deadline:
            die("latency jobs were not all completed within 60 s")
        time.sleep(0.05)
    # Per job, in ms: handler start - INSERT, handler start - the
    # producer's COMMIT returning, and that COMMIT - the INSERT (the
    # producer's durable commit, which no consumer can shorten: the job is
    # announced only after it).
    rows = [[float(v) for v in line.split("|")] for line in s.query(
        "SELECT (t.started - extract(epoch FROM j.created_at)) * 1000, "
        "       (t.started - extract(epoch FROM c.at)) * 1000, "
        "       extract(epoch FROM c.at - j.created_at) * 1000 "
        "FROM awc.jobs j JOIN bench_committed c USING (id), "
        "LATERAL (SELECT (j.result->>'started_at')::numeric AS started) t"
        ).split("\n")]
    lat, after, own = (sorted(col) for col in zip(*rows))
    workers = s.query("SELECT count(DISTINCT locked_by) FROM awc.jobs")
    s.close()
    d.stop()
    drop_db(db)

    def stats(values):
        return {"p50": percentile(values, 50), "p99": percentile(values, 99),
                "max": values[-1]}

    return {**stats(lat), "min": lat[0], "workers_used": int(workers),
            "commit": stats(after), "own": stats(own)}
