#!/usr/bin/env python3
"""The console's page latency (make bench-console; see bench/README.md,
section "Console").

Runs inside `pg_virtualenv -t -o fsync=on` (PostgreSQL at its default
durability: the script refuses any other). It fills a fresh
database with BENCH_CONSOLE_JOBS jobs (1M) and BENCH_CONSOLE_SNAPSHOTS
snapshots (100k), with the workspaces, audit events, GC epochs and worker
heartbeats such a history comes with, then VACUUM ANALYZE (what autovacuum
keeps up in production). It starts `awcctl serve` on loopback and requests
every page, with the filters and cursors an operator uses, round-robin
BENCH_CONSOLE_REQUESTS times each after a warm-up, and reports each page's
latency (median, p95, max), measured by the client from sending the request
to the last byte of the answer. Standard library only.
"""

import argparse
import datetime
import os
import platform
import signal
import subprocess
import sys
import time
import urllib.request

sys.dont_write_bytecode = True  # no bench/__pycache__ from the import below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (cpu_and_memory, create_db, db_url, die,  # noqa: E402
                          env_int, free_port, git_commit, load_avg, log,
                          med, percentile, psql, require_durable,
                          write_report)

DB = "awc_console_bench"
LIMIT_MS = 100.0

# The history: tenants t000..t099, workspaces, snapshots in every state,
# jobs of six kinds over a week (ids in time order; the newest are the
# 100 RUNNING and :pending PENDING ones, a fifth of those due later; 1 %
# dead letters, 0.5 % cancelled, the rest completed), their audit trail,
# GC epochs, heartbeats.
# Deterministic: every choice is a function of the row number.
FILL = r"""
INSERT INTO awc.tenants (id)
SELECT 't' || lpad(i::text, 3, '0') FROM generate_series(0, 99) i;

INSERT INTO awc.workspaces (tenant_id, state, expires_at, expiring_since,
                            expired_at, retention, created_at)
SELECT 't' || lpad((i % 100)::text, 3, '0'),
       (ARRAY['ACTIVE','ACTIVE','ACTIVE','ACTIVE','EXPIRING','EXPIRED'])[1 + i % 6],
       now() + make_interval(days => i % 30),
       CASE WHEN i % 6 = 4 THEN now() - interval '1 hour' END,
       CASE WHEN i % 6 = 5 THEN now() - interval '1 day' END,
       '{"keep_last": 5}'::jsonb,
       now() - interval '30 days' + make_interval(secs => i * 200)
  FROM generate_series(1, :workspaces) i;

INSERT INTO awc.snapshots (tenant_id, workspace_id, root_digest, state, pinned,
                           created_at, validated_at, scrubbed_at, released_at,
                           failure, object_count, byte_count)
SELECT 't' || lpad((i % 100)::text, 3, '0'),
       1 + (i % :workspaces),
       'sha256:' || encode(sha256(('root' || i)::bytea), 'hex'),
       s.state,
       i % 50 = 0,
       now() - interval '7 days' + make_interval(secs => i * 6),
       CASE WHEN s.state <> 'VALIDATING'
            THEN now() - interval '7 days' + make_interval(secs => i * 6 + 30) END,
       CASE WHEN s.state IN ('READY', 'DEGRADED') AND i % 3 = 0
            THEN now() - make_interval(secs => i % 86400) END,
       CASE WHEN s.state = 'RELEASED' THEN now() - make_interval(secs => i % 3600) END,
       CASE s.state
         WHEN 'FAILED' THEN jsonb_build_object('code', 'missing_object',
              'digest', 'sha256:' || encode(sha256(('obj' || i)::bytea), 'hex'),
              'detail', 'object not found')
         WHEN 'DEGRADED' THEN jsonb_build_object('code', 'decayed',
              'bad_count', 1, 'bad_digests', jsonb_build_array(
              'sha256:' || encode(sha256(('bad' || i)::bytea), 'hex')))
       END,
       CASE WHEN s.state NOT IN ('VALIDATING', 'FAILED') THEN 100 + i % 900 END,
       CASE WHEN s.state NOT IN ('VALIDATING', 'FAILED') THEN (100 + i % 900) * 65536 END
  FROM generate_series(1, :snapshots) i
 CROSS JOIN LATERAL (SELECT CASE
         WHEN i > :snapshots - :snapshots / 50 THEN 'VALIDATING'
         WHEN i % 25 = 0 THEN 'FAILED'
         WHEN i % 50 = 1 THEN 'DEGRADED'
         WHEN i % 8 = 3 THEN 'RELEASED'
         ELSE 'READY' END AS state) s;

INSERT INTO awc.jobs (kind, payload, state, attempts, max_attempts, run_at,
                      locked_by, locked_until, lease_token, last_error,
                      result, created_at, updated_at, finished_at,
                      dead_reason)
SELECT k.kind, k.payload, st.state,
       CASE st.state WHEN 'PENDING' THEN 0 WHEN 'FAILED' THEN 5 ELSE 1 END,
       5,
       CASE WHEN st.state = 'PENDING' AND i % 5 = 0
            THEN now() + make_interval(secs => i % 7200)
            ELSE t.at END,
       CASE WHEN st.state <> 'PENDING' THEN 'host-' || (i % 4) || '-' || (1 + i % 8) END,
       CASE WHEN st.state = 'RUNNING' THEN now() + interval '5 min' END,
       CASE WHEN st.state <> 'PENDING' THEN i END,
       CASE WHEN st.state = 'FAILED' THEN 'snapshot ' || i || ' does not exist'
            WHEN i % 97 = 0 THEN 'store: timeout after 30 s' END,
       CASE WHEN st.state = 'COMPLETED' THEN '{"verdict": "ready", "objects": 120, "bytes": 7864320}'::jsonb END,
       t.at, t.at + interval '2 s',
       CASE WHEN st.state IN ('COMPLETED', 'FAILED', 'CANCELLED') THEN t.at + interval '2 s' END,
       CASE WHEN st.state = 'FAILED' THEN
         (ARRAY['attempts_exhausted', 'attempts_exhausted', 'attempts_exhausted',
                'subject_missing', 'handler_failed', 'malformed_payload'])[1 + i % 6]
       END
  FROM generate_series(1, :jobs) i
 CROSS JOIN LATERAL (SELECT now() - interval '7 days'
                            + make_interval(secs => i * 604800.0 / :jobs) AS at) t
 CROSS JOIN LATERAL (SELECT CASE
         WHEN i > :jobs - 100 THEN 'RUNNING'
         WHEN i > :jobs - 100 - :pending THEN 'PENDING'
         WHEN i % 100 = 7 THEN 'FAILED'
         WHEN i % 200 = 19 THEN 'CANCELLED'
         ELSE 'COMPLETED' END AS state) st
 CROSS JOIN LATERAL (SELECT CASE
         WHEN i % 1000 = 500 THEN 'report_export'
         WHEN i % 20 < 8 THEN 'snapshot_validate'
         WHEN i % 20 < 13 THEN 'snapshot_scrub'
         WHEN i % 20 < 17 THEN 'snapshot_retain'
         WHEN i % 20 < 19 THEN 'workspace_expire'
         ELSE 'gc_sweep' END AS kind) kk
 CROSS JOIN LATERAL (SELECT kk.kind, CASE kk.kind
         WHEN 'gc_sweep' THEN jsonb_build_object('tenant_id', 't' || lpad((i % 100)::text, 3, '0'))
         WHEN 'workspace_expire' THEN jsonb_build_object('workspace_id', 1 + i % :workspaces)
         WHEN 'report_export' THEN '{}'::jsonb
         ELSE jsonb_build_object('snapshot_id', 1 + i % :snapshots) END AS payload) k;

INSERT INTO awc.gc_epochs (tenant_id, state, dry_run, grace_secs, batch_size,
                           canary_size, job_id, planned_count, planned_bytes,
                           deleted_count, deleted_bytes, kept_count,
                           canary_verified, reason, created_at, finished_at)
SELECT 't' || lpad((i % 100)::text, 3, '0'),
       CASE WHEN i % 97 = 0 THEN 'REFUSED' WHEN i % 389 = 0 THEN 'ABORTED'
            ELSE 'COMPLETED' END,
       i % 10 = 0, 86400, 10000, 100, i, 1000 + i % 5000,
       (1000 + i % 5000) * 65536, 900 + i % 5000, (900 + i % 5000) * 65536,
       i % 7, true,
       CASE WHEN i % 97 = 0 THEN 'a VALIDATING snapshot is older than the grace' END,
       now() - interval '50 days' + make_interval(secs => i * 864),
       now() - interval '50 days' + make_interval(secs => i * 864 + 60)
  FROM generate_series(1, :epochs) i;

INSERT INTO awc.gc_locks (tenant_id, holder, acquired_at, expires_at)
SELECT 't' || lpad(i::text, 3, '0'), 'job_' || i || '/lease_' || i,
       now() - interval '10 s', now() + interval '290 s'
  FROM generate_series(0, 2) i;

-- validate for every snapshot, scrubs for a third of them twice, releases,
-- GC epochs, workspace steps: ids in time order.
INSERT INTO awc.audit_events (tenant_id, event, subject, data, created_at)
SELECT tenant, event, subject, data, at FROM (
  SELECT 't' || lpad((i % 100)::text, 3, '0') AS tenant,
         'snapshot.validate' AS event, 'snapshot/' || i AS subject,
         '{"verdict": "ready", "objects": 120}'::jsonb AS data,
         now() - interval '7 days' + make_interval(secs => i * 6 + 30) AS at
    FROM generate_series(1, :snapshots) i
  UNION ALL
  SELECT 't' || lpad((i % 100)::text, 3, '0'), 'snapshot.scrub',
         'snapshot/' || i, '{"verdict": "clean", "bad": 0}'::jsonb,
         now() - interval '6 days' + make_interval(secs => i * 5 + r * 86400)
    FROM generate_series(1, :snapshots, 3) i, generate_series(0, 1) r
  UNION ALL
  SELECT 't' || lpad((i % 100)::text, 3, '0'), 'snapshot.released',
         'snapshot/' || i, '{"reason": "retention_policy"}'::jsonb,
         now() - make_interval(secs => i % 3600)
    FROM generate_series(3, :snapshots, 8) i
  UNION ALL
  SELECT 't' || lpad((i % 100)::text, 3, '0'), 'gc.epoch', 'gc_epoch/' || i,
         '{"verdict": "completed", "deleted": 900}'::jsonb,
         now() - interval '50 days' + make_interval(secs => i * 864 + 60)
    FROM generate_series(1, :epochs) i
  UNION ALL
  SELECT 't' || lpad((i % 100)::text, 3, '0'), 'workspace.expiring',
         'workspace/' || i, '{}'::jsonb,
         now() - interval '20 days' + make_interval(secs => i * 100)
    FROM generate_series(1, :workspaces) i
) e ORDER BY at;

INSERT INTO awc.workers (host, pid, worker_id, slot, started_at, heartbeat_at,
                         state, job_id, job_kind)
SELECT 'host-' || (i / 8), 1000 + i, 'host-' || (i / 8) || '-' || (1 + i % 8),
       1 + i % 8, now() - interval '3 hours',
       now() - make_interval(secs => i % 9),
       CASE WHEN i % 3 = 0 THEN 'idle' ELSE 'busy' END,
       CASE WHEN i % 3 <> 0 THEN (SELECT max(id) - i FROM awc.jobs) END,
       CASE WHEN i % 3 <> 0 THEN 'snapshot_validate' END
  FROM generate_series(0, 31) i;
"""


def fill(a, awcctl):
    log("migrating")
    env = dict(os.environ, DATABASE_URL=db_url(DB))
    r = subprocess.run([awcctl, "migrate"], env=env, capture_output=True,
                       text=True)
    if r.returncode != 0:
        die(f"awcctl migrate: {r.stderr.strip()}")
    sql = FILL
    for name, value in (("workspaces", a.workspaces), ("snapshots", a.snapshots),
                        ("jobs", a.jobs), ("epochs", a.epochs),
                        ("pending", a.pending)):
        sql = sql.replace(":" + name, str(value))
    log(f"filling: {a.jobs} jobs, {a.snapshots} snapshots, {a.workspaces} "
        f"workspaces, {a.epochs} GC epochs")
    t0 = time.monotonic()
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB],
                       input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"fill failed: {r.stderr.strip()}")
    psql(DB, "VACUUM ANALYZE")
    log(f"filled in {time.monotonic() - t0:.0f} s")
    counts = psql(DB, "SELECT (SELECT count(*) FROM awc.jobs) || ' jobs, ' || "
                      "(SELECT count(*) FROM awc.snapshots) || ' snapshots, ' || "
                      "(SELECT count(*) FROM awc.audit_events) || ' audit events, ' || "
                      "(SELECT count(*) FROM awc.workspaces) || ' workspaces, ' || "
                      "(SELECT count(*) FROM awc.gc_epochs) || ' GC epochs, ' || "
                      "pg_size_pretty(pg_database_size(current_database()))")
    states = psql(DB, "SELECT string_agg(state || ' ' || n, ', ' ORDER BY state) "
                      "FROM (SELECT state, count(*) n FROM awc.jobs GROUP BY 1) s")
    return counts, states


def pages(a):
    """The pages an operator opens, with their filters and cursors."""
    q = lambda sql: psql(DB, sql)  # noqa: E731
    mid_job = q("SELECT id FROM awc.jobs ORDER BY id OFFSET "
                f"{a.jobs // 2} LIMIT 1")
    failed = q("SELECT max(id) FROM awc.jobs WHERE state = 'FAILED'")
    mid_snap = q(f"SELECT id FROM awc.snapshots ORDER BY id OFFSET "
                 f"{a.snapshots // 2} LIMIT 1")
    degraded = q("SELECT max(id) FROM awc.snapshots WHERE state = 'DEGRADED'")
    mid_audit = q("SELECT max(id) / 2 FROM awc.audit_events")
    return [
        ("overview", "/"),
        ("overview JSON", "/api/overview"),
        ("jobs", "/jobs"),
        ("jobs, deep page", f"/jobs?before={mid_job}"),
        ("jobs, newer page", f"/jobs?after={mid_job}"),
        ("jobs PENDING", "/jobs?state=PENDING"),
        ("jobs RUNNING", "/jobs?state=RUNNING"),
        ("jobs FAILED", "/jobs?state=FAILED"),
        ("jobs CANCELLED, deep", f"/jobs?state=CANCELLED&before={mid_job}"),
        ("jobs of a rare kind", "/jobs?kind=report_export"),
        ("jobs kind+state", "/jobs?kind=gc_sweep&state=FAILED"),
        ("jobs FAILED by reason", "/jobs?state=FAILED&reason=malformed_payload"),
        ("one job", f"/jobs/{failed}"),
        ("dead letters", "/dead"),
        ("dead letters by reason", "/dead?reason=handler_failed"),
        ("dead letters by kind", "/dead?kind=report_export"),
        ("snapshots", "/snapshots"),
        ("snapshots, deep page", f"/snapshots?before={mid_snap}"),
        ("snapshots FAILED", "/snapshots?state=FAILED"),
        ("snapshots DEGRADED, deep", f"/snapshots?state=DEGRADED&before={mid_snap}"),
        ("snapshots of a tenant", "/snapshots?tenant=t042"),
        ("snapshots tenant+state", "/snapshots?tenant=t042&state=READY"),
        ("one snapshot + history", f"/snapshots/{degraded}"),
        ("GC", "/gc"),
        ("GC of a tenant", "/gc?tenant=t042"),
        ("audit", "/audit"),
        ("audit, deep page", f"/audit?before={mid_audit}"),
        ("audit gc.epoch", "/audit?event=gc.epoch"),
        ("audit of a tenant", "/audit?tenant=t042"),
        ("audit of a subject", f"/audit?subject=snapshot/{degraded}"),
    ]


def fetch(port, target):
    t0 = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{target}",
                                timeout=30) as r:
        body = r.read()
        status = r.status
    return (time.perf_counter() - t0) * 1000, status, len(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    a = ap.parse_args()
    a.jobs = env_int("BENCH_CONSOLE_JOBS", 1000000)
    a.snapshots = env_int("BENCH_CONSOLE_SNAPSHOTS", 100000)
    a.workspaces = max(1, a.snapshots // 10)
    a.epochs = env_int("BENCH_CONSOLE_EPOCHS", 5000)
    a.pending = env_int("BENCH_CONSOLE_PENDING", 5000)
    a.requests = env_int("BENCH_CONSOLE_REQUESTS", 30)
    results = os.environ.get("BENCH_CONSOLE_RESULTS") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results",
        f"console-{datetime.date.today().isoformat()}.txt")
    awcctl = os.path.join(a.build_dir, "awcctl")
    started = time.monotonic()

    require_durable("make bench-console")
    subprocess.run(["dropdb", "--if-exists", "--force", DB], check=True)
    create_db(DB)
    counts, states = fill(a, awcctl)
    load_start = load_avg()

    port = free_port()
    env = dict(os.environ, DATABASE_URL=db_url(DB))
    console = subprocess.Popen([awcctl, "serve", "--listen",
                                f"127.0.0.1:{port}"], env=env,
                               stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        for _ in range(200):
            try:
                fetch(port, "/favicon.ico")
                break
            except OSError:
                time.sleep(0.05)
        targets = pages(a)
        log(f"{len(targets)} pages, 3 warm-up rounds, {a.requests} timed rounds")
        times = {name: [] for name, _ in targets}
        sizes = {}
        for rnd in range(3 + a.requests):
            for name, target in targets:
                ms, status, size = fetch(port, target)
                if status != 200:
                    die(f"{target}: status {status}")
                sizes[name] = size
                if rnd >= 3:
                    times[name].append(ms)
    finally:
        os.killpg(console.pid, signal.SIGTERM)
        console.wait()

    settings = psql(DB, "SELECT string_agg(name || '=' || current_setting(name), "
                        "' ' ORDER BY name) FROM pg_settings WHERE name IN "
                        "('fsync', 'synchronous_commit', 'shared_buffers', "
                        "'full_page_writes', 'autovacuum')")
    model, _ = cpu_and_memory()
    out = ["awc-worker console benchmark (bench/console_bench.py, "
           "make bench-console)", "",
           f"date        {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
           f"commit      {git_commit()}",
           f"machine     {os.cpu_count()} CPUs ({model}), Linux {platform.release()}",
           f"postgresql  {psql(DB, 'SHOW server_version')}, {settings}",
           f"data        {counts}",
           f"jobs        {states}",
           f"load avg    {load_start} at the first request, "
           f"{load_avg()} at the last "
           "(the machine is shared)",
           f"method      {a.requests} timed requests per page, round-robin over "
           "the pages after 3 warm-up rounds; one client, loopback; ms from "
           "request to last byte",
           "",
           f"{'page':<28} {'median':>8} {'p95':>8} {'max':>8} {'bytes':>8}  target"]
    worst = 0.0
    for name, target in targets:
        t = sorted(times[name])
        p95 = percentile(t, 95)
        worst = max(worst, p95)
        out.append(f"{name:<28} {med(t):>8.1f} {p95:>8.1f} {t[-1]:>8.1f} "
                   f"{sizes[name]:>8}  {target}")
    out += ["", f"slowest p95 {worst:.1f} ms: every page "
            f"{'under' if worst < LIMIT_MS else 'NOT under'} {LIMIT_MS:.0f} ms "
            "at the 95th percentile"]
    write_report(out, started, results)
    subprocess.run(["dropdb", "--if-exists", "--force", DB], check=True)


if __name__ == "__main__":
    main()
