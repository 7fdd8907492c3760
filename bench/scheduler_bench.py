#!/usr/bin/env python3
"""The scheduler benchmark of awc-worker (make bench-scheduler; see
bench/README.md, section "Scheduler").

Runs inside `pg_virtualenv -t -o fsync=on` (PGHOST, PGPORT, PGUSER,
PGPASSWORD are set) and refuses a cluster that is not durable: the figures
are for PostgreSQL's default durability. It fills one database with a
fleet's steady state at scale — BENCH_SCHED_SNAPSHOTS snapshots (1M) in
10,000 workspaces, BENCH_SCHED_JOBS jobs (1M) of history, as many audit
events, GC candidates of a week of epochs — with a few subjects of each
schedule due, then measures, for every built-in schedule:

  plan   its planner statement as the scheduler runs it (unprepared, its
         actual values), --repeat times in transactions that are rolled
         back, interleaved across schedules; prune: one batch of each of its
         four statements;
  fire   one real firing (fence, row lock, planner, record, commit; prune:
         all its batches), after the plan runs, in the order gc, expire,
         retain, scrub, validate, prune;

and keeps EXPLAIN (ANALYZE, BUFFERS) of each planner. Standard library only.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from the import below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (create_db, db_url, die,  # noqa: E402
                          drop_db, env_int, fmt_runs, log, med, psql,
                          require_durable, run_header, write_report)

SCHEDULES = ["gc", "expire", "retain", "scrub", "validate", "prune"]
PRUNE_PARTS = ["jobs", "dead_letters", "audit_events", "gc_candidates"]
DB = "awc_sched_bench"


def fill_sql(snapshots, jobs):
    """The steady state of a fleet: what each schedule finds when it fires
    on time. Every figure below scales with the two sizes."""
    ws = 10000
    per_ws = max(1, snapshots // ws)
    return [
        # 100 tenants with 1000 objects each (gc probes one per tenant).
        "INSERT INTO awc.tenants (id) SELECT 't' || i FROM "
        "generate_series(1, 100) i",
        "INSERT INTO awc.objects (tenant_id, digest, size) SELECT "
        "'t' || (i % 100 + 1), 'sha256:' || lpad(to_hex(i), 64, '0'), 1 "
        "FROM generate_series(1, 100000) i",
        # 10,000 workspaces: half with {"keep_last": 10}; 1 % EXPIRED;
        # 50 ACTIVE ones past their deadline; 20 EXPIRING, half past the
        # grace.
        f"INSERT INTO awc.workspaces (id, tenant_id, state, retention, "
        f"expires_at, expiring_since, expired_at) SELECT i, 't' || (i % 100 "
        f"+ 1), CASE WHEN i % 100 = 0 THEN 'EXPIRED' WHEN i % 500 = 1 THEN "
        f"'EXPIRING' ELSE 'ACTIVE' END, CASE WHEN i % 2 = 0 THEN "
        f"'{{\"keep_last\": 10}}'::jsonb END, CASE WHEN i % 200 = 3 THEN "
        f"now() - interval '1 minute' WHEN i % 500 = 1 THEN now() - interval "
        f"'3 days' ELSE now() + interval '30 days' END, CASE WHEN i % 1000 = "
        f"1 THEN now() - interval '2 days' WHEN i % 500 = 1 THEN now() - "
        f"interval '1 hour' END, CASE WHEN i % 100 = 0 THEN now() - interval "
        f"'10 days' END FROM generate_series(1, {ws}) i",
        # The snapshots, an hour apart within each workspace. Policy
        # workspaces keep their 10 newest READY (one in ten has an 11th:
        # due for retain), the rest RELEASED; an EXPIRED one's are all
        # RELEASED; others are READY, but for one VALIDATING newest
        # snapshot in 100 workspaces. READY ones were last verified at
        # times spread over 30 days and 10 hours (the scrub backlog).
        f"INSERT INTO awc.snapshots (tenant_id, workspace_id, root_digest, "
        f"state, pinned, created_at, validated_at, scrubbed_at) SELECT "
        f"'t' || (w % 100 + 1), w, 'sha256:' || lpad(to_hex(j), 64, '0'), "
        f"CASE WHEN w % 100 = 0 THEN 'RELEASED' "
        f"WHEN w % 2 = 0 AND k < {per_ws} - 10 AND NOT (k = {per_ws} - 11 "
        f"AND w % 10 = 2) THEN 'RELEASED' "
        f"WHEN w % 100 = 1 AND k = {per_ws} - 1 THEN 'VALIDATING' "
        f"ELSE 'READY' END, j % 100 = 5, "
        f"now() - make_interval(hours => {per_ws} - k), "
        f"now() - make_interval(hours => {per_ws} - k) + interval '1 minute', "
        f"now() - make_interval(secs => (j::bigint * 7919) % 2628000) "
        f"FROM (SELECT j, (j - 1) % {ws} + 1 AS w, (j - 1) / {ws} AS k FROM "
        f"generate_series(1, {per_ws * ws}) j) s",
        "UPDATE awc.snapshots SET validated_at = NULL, scrubbed_at = NULL "
        "WHERE state = 'VALIDATING'",
        # Half the VALIDATING snapshots still have their producer's job.
        "INSERT INTO awc.jobs (kind, payload) SELECT 'snapshot_validate', "
        "jsonb_build_object('snapshot_id', id) FROM awc.snapshots WHERE "
        "state = 'VALIDATING' AND (id / 100) % 2 = 0",
        # The job history: 7 days and an hour of it (prune runs hourly),
        # 97 % COMPLETED, 1 % CANCELLED, 1 % FAILED (spread over 30 days
        # and an hour), 0.9 % PENDING, 0.1 % RUNNING.
        f"INSERT INTO awc.jobs (kind, payload, state, finished_at, "
        f"updated_at, locked_until, lease_token, attempts) SELECT "
        f"(ARRAY['snapshot_validate', 'snapshot_scrub', 'snapshot_retain', "
        f"'workspace_expire', 'gc_sweep'])[i % 5 + 1], "
        f"jsonb_build_object('snapshot_id', i), "
        f"CASE WHEN i % 100 < 97 THEN 'COMPLETED' WHEN i % 100 = 97 THEN "
        f"'CANCELLED' WHEN i % 100 = 98 THEN 'FAILED' WHEN i % 1000 = 999 THEN "
        f"'RUNNING' ELSE 'PENDING' END, "
        f"CASE WHEN i % 100 < 97 THEN now() - make_interval(secs => i * "
        f"608400.0 / {jobs}) WHEN i % 100 = 98 THEN now() - make_interval("
        f"secs => (i * 7) % 2595600) END, "
        f"now() - make_interval(secs => i * 608400.0 / {jobs}), "
        f"CASE WHEN i % 1000 = 999 THEN now() + interval '5 minutes' END, "
        f"CASE WHEN i % 1000 = 999 THEN i END, 1 "
        f"FROM generate_series(1, {jobs}) i",
        # A year and a day of audit events, as many as jobs.
        f"INSERT INTO awc.audit_events (tenant_id, event, subject, "
        f"created_at) SELECT 't' || (i % 100 + 1), 'snapshot.scrub', "
        f"'snapshot/' || i, now() - make_interval(secs => i * 31622400.0 / "
        f"{jobs}) FROM generate_series(1, {jobs}) i",
        # GC: 10,000 older epochs whose candidates are gone, then a week and
        # an hour of them (4 a day per tenant), 100 candidates each.
        "INSERT INTO awc.gc_epochs (tenant_id, state, grace_secs, "
        "batch_size, canary_size, finished_at) SELECT 't' || (i % 100 + 1), "
        "'COMPLETED', 86400, 1000, 10, now() - interval '8 days' - "
        "make_interval(secs => i * 216) FROM generate_series(1, 10000) i",
        "INSERT INTO awc.gc_epochs (tenant_id, state, grace_secs, "
        "batch_size, canary_size, finished_at) SELECT 't' || (i % 100 + 1), "
        "'COMPLETED', 86400, 1000, 10, now() - make_interval(secs => "
        "(2817 - i) * 216) FROM generate_series(1, 2817) i",
        "INSERT INTO awc.gc_candidates (epoch_id, tenant_id, digest, size, "
        "seq, state) SELECT e.id, e.tenant_id, 'sha256:' || lpad(to_hex(e.id "
        "* 1000 + s), 64, '0'), 1, s, 'DELETED' FROM awc.gc_epochs e, "
        "generate_series(1, 100) s WHERE e.id > 10000",
        "SELECT setval(pg_get_serial_sequence('awc.workspaces', 'id'), "
        f"{ws})",
    ]


def tool(args, build, what):
    exe = os.path.join(build, "bench", "awc-bench-scheduler")
    env = dict(os.environ, DATABASE_URL=db_url(DB))
    r = subprocess.run([exe] + args, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"{what} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def machine_info():
    settings = psql("postgres",
                    "SELECT string_agg(name || '=' || current_setting(name), "
                    "' ' ORDER BY name) FROM pg_settings WHERE name IN "
                    "('fsync', 'synchronous_commit', 'shared_buffers', "
                    "'work_mem', 'full_page_writes', 'jit', 'autovacuum')")
    version = psql("postgres", "SHOW server_version")
    return run_header(f"{version}, pg_virtualenv throwaway cluster on "
                      f"localhost (TCP), {settings}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--snapshots", type=int,
                    default=env_int("BENCH_SCHED_SNAPSHOTS", 1000000))
    ap.add_argument("--jobs", type=int,
                    default=env_int("BENCH_SCHED_JOBS", 1000000))
    ap.add_argument("--repeat", type=int,
                    default=env_int("BENCH_SCHED_REPEAT", 5))
    ap.add_argument("--results", default=os.environ.get(
        "BENCH_SCHED_RESULTS",
        os.path.join(here, "results",
                     f"scheduler-{datetime.date.today().isoformat()}.txt")))
    a = ap.parse_args()
    started = time.monotonic()

    require_durable("make bench-scheduler")
    header = machine_info()

    drop_db(DB)
    create_db(DB)
    tool(["migrate"], a.build_dir, "migrate")
    log(f"filling: {a.snapshots} snapshots, {a.jobs} jobs, {a.jobs} audit "
        "events, ...")
    t0 = time.monotonic()
    for stmt in fill_sql(a.snapshots, a.jobs):
        psql(DB, stmt)
    psql(DB, "VACUUM ANALYZE", "CHECKPOINT")
    fill_s = time.monotonic() - t0
    shape = psql(DB,
                 "SELECT (SELECT count(*) FROM awc.snapshots) || ' snapshots (' "
                 "|| (SELECT count(*) FROM awc.snapshots WHERE state = 'READY') "
                 "|| ' READY, ' || (SELECT count(*) FROM awc.snapshots WHERE "
                 "state = 'VALIDATING') || ' VALIDATING), ' || (SELECT count(*) "
                 "FROM awc.workspaces) || ' workspaces, ' || (SELECT count(*) "
                 "FROM awc.jobs) || ' jobs, ' || (SELECT count(*) FROM "
                 "awc.audit_events) || ' audit events, ' || (SELECT count(*) "
                 "FROM awc.gc_candidates) || ' GC candidates, ' || "
                 "pg_size_pretty(pg_database_size(current_database()))")
    log(f"filled in {fill_s:.0f} s: {shape}")

    plans = {s: [] for s in SCHEDULES}
    for r in range(a.repeat):
        for s in SCHEDULES:
            out = json.loads(tool(["plan", "--schedule", s, "--repeat", "3"],
                                  a.build_dir, f"plan {s}"))
            plans[s].append(out)
        log(f"plan round {r + 1}/{a.repeat} done")
    explains = {s: tool(["explain", "--schedule", s], a.build_dir,
                        f"explain {s}") for s in SCHEDULES}
    fires = {}
    for s in SCHEDULES:
        fires[s] = json.loads(tool(["fire", "--schedule", s], a.build_dir,
                                   f"fire {s}"))
        log(f"fired {s}: {fires[s]['ms']:.1f} ms")

    lines = ["awc-worker scheduler benchmark", ""] + header + [
        f"data        {shape}; filled in {fill_s:.0f} s",
        f"method      plan: {a.repeat} rounds x 3 runs (the first of each "
        "round is a warm-up and not counted), rolled back; fire: once, "
        "committed", ""]
    lines.append(f"{'schedule':<10} {'due':>6} {'enqueued':>9} "
                 f"{'plan ms (median)':>17} {'fire ms':>8}  plan runs (ms)")
    for s in SCHEDULES:
        if s == "prune":
            continue
        runs = [float(x) for p in plans[s] for x in p["ms"][1:]]
        last = plans[s][-1]
        lines.append(f"{s:<10} {last['due']:>6} {last['enqueued']:>9} "
                     f"{med(runs):>17.2f} {fires[s]['ms']:>8.1f}  "
                     f"{fmt_runs(runs, '{:.2f}')}")
    lines += ["", f"{'prune':<10} {'rows/batch':>10} {'batch ms (median)':>18}"
              "  batch runs (ms)"]
    for part in PRUNE_PARTS:
        runs = [float(x) for p in plans["prune"] for x in p[part]["ms"][1:]]
        rows = plans["prune"][-1][part]["rows"]
        lines.append(f"  {part:<14} {rows:>6} {med(runs):>18.2f}  "
                     f"{fmt_runs(runs, '{:.2f}')}")
    rep = fires["prune"]["report"]
    lines.append(f"prune, one whole firing: {fires['prune']['ms']:.1f} ms, "
                 f"deleted {rep['jobs']} jobs, {rep['dead_letters']} dead "
                 f"letters, {rep['audit_events']} audit events, "
                 f"{rep['gc_candidates']} GC candidates")
    lines += ["", "firings (committed):"]
    for s in SCHEDULES:
        lines.append(f"  {s:<9} {json.dumps(fires[s]['report'])}")
    for s in SCHEDULES:
        lines += ["", f"EXPLAIN (ANALYZE, BUFFERS) {s}"
                  + (" (its job batch)" if s == "prune" else "") + ":"]
        lines += ["  " + l for l in explains[s].rstrip().splitlines()]
    drop_db(DB)
    write_report(lines, started, a.results)


if __name__ == "__main__":
    main()
