"""Part 3 of the storage benchmarks (storage_bench.py): GC cost for a
tenant with N objects in awc.objects (--gc-sizes: 10k, 100k and 1M; rows
made with generate_series, a realistic mix of referenced, pinned, young
and eligible objects): awc-bench-storage gc on a fresh copy of a filled
template database per run, and the plan's EXPLAIN after the last run.
Standard library only.
"""

import os
import shutil
import subprocess
import time

from bench_common import (PgCpu, Session, create_db, db_url, drop_db, log,
                          psql, require_durable)
from storage_common import TENANT, run_json


# -- 3. GC

def gc_sql(bench, n):
    """Fills a migrated database with a tenant of n objects: by i % 100,
    0-79 in READY snapshots' closures (a quarter of them in two),
    80-84 only in RELEASED snapshots' closures (eligible), 85-86 pinned,
    87-96 unreferenced and old (eligible), 97-99 unreferenced and young
    (inside the grace). Old objects were created 30 days (+ i s) ago.
    One READY snapshot per --gc-per-snapshot objects (at least 4), one
    RELEASED per ten READY."""
    s = max(4, n // bench.a.gc_per_snapshot)  # READY snapshots
    r = max(1, s // 10)          # RELEASED snapshots
    return [
        f"INSERT INTO awc.tenants (id) VALUES ('{TENANT}')",
        "CREATE UNLOGGED TABLE public.bench_digests AS SELECT i, "
        f"'sha256:' || encode(sha256(convert_to('{TENANT}/' || i, 'UTF8')),"
        f" 'hex') AS d FROM generate_series(1, {n}) i",
        "INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
        f"last_seen_at) SELECT '{TENANT}', d, 4096 + (i::bigint * 7919) % 61441, t, "
        "t + ((i * 13) % 3600) * interval '1 second' FROM (SELECT i, d, "
        "CASE WHEN i % 100 >= 97 THEN now() - interval '1 hour' ELSE "
        "now() - interval '30 days' - i * interval '1 second' END AS t "
        "FROM public.bench_digests) x",
        # Snapshot k's root is object 100 (k - 1) + 1, in its closure.
        "INSERT INTO awc.snapshots (id, tenant_id, root_digest, state, "
        "created_at, validated_at) SELECT k, "
        f"'{TENANT}', b.d, 'READY', now() - interval '20 days', now() - "
        f"interval '20 days' FROM generate_series(1, {s}) k JOIN "
        "public.bench_digests b ON b.i = 100 * (k - 1) + 1",
        "INSERT INTO awc.snapshots (id, tenant_id, root_digest, state, "
        "created_at, validated_at, released_at) SELECT "
        f"{s} + j + 1, '{TENANT}', b.d, 'RELEASED', now() - interval "
        "'25 days', now() - interval '25 days', now() - interval '10 days' "
        f"FROM generate_series(0, {r - 1}) j JOIN public.bench_digests b "
        "ON b.i = 100 * j + 80",
        "SELECT setval(pg_get_serial_sequence('awc.snapshots', 'id'), "
        f"{s + r})",
        "INSERT INTO awc.snapshot_objects (snapshot_id, digest) "
        f"SELECT CASE WHEN i % 100 < 80 THEN 1 + (i / 100) % {s} "
        f"ELSE {s} + 1 + (i / 100) % {r} END, d FROM public.bench_digests "
        "WHERE i % 100 < 85 UNION ALL "
        f"SELECT 1 + (i / 100 + 1) % {s}, d FROM public.bench_digests "
        "WHERE i % 100 < 80 AND i % 4 = 0",
        "INSERT INTO awc.gc_pins (tenant_id, digest, reason) SELECT "
        f"'{TENANT}', d, 'operator' FROM public.bench_digests "
        "WHERE i % 100 IN (85, 86)",
        "DROP TABLE public.bench_digests",
        "VACUUM ANALYZE",
        "CHECKPOINT",
    ]


def copy_db(name, template):
    drop_db(name)
    create_db(name, template, strategy="FILE_COPY")


def gc_part(bench):
    a = bench.a
    for k in ("PGHOST", "PGPORT", "PGUSER", "PGPASSWORD"):
        if k not in os.environ:
            bench.notes.append("GC part skipped: not run under "
                              "pg_virtualenv (PG* unset)")
            return None
    require_durable("make bench-storage")
    out = {"sizes": a.gc_sizes, "runs": {}, "populate": {}, "db": {}}
    admin = Session("postgres")
    pg_cpu = PgCpu(PgCpu._stat(int(admin.query(
        "SELECT pg_backend_pid()")))[0])
    for n in a.gc_sizes:
        tmpl = f"awc_sbench_tmpl_{n}"
        drop_db(tmpl)
        subprocess.run(["createdb", tmpl], check=True)
        env = bench.env(DATABASE_URL=db_url(tmpl))
        run_json([bench.prog, "migrate"], env, "migrate")
        log(f"gc: filling a tenant with {n} objects")
        t0 = time.monotonic()
        psql(tmpl, *gc_sql(bench, n))
        out["populate"][n] = time.monotonic() - t0
        out["db"][n] = psql(
            tmpl,
            "SELECT (SELECT count(*) FROM awc.objects) || '|' || "
            "(SELECT count(*) FROM awc.snapshot_objects) || '|' || "
            "(SELECT count(*) FROM awc.snapshots) || '|' || "
            "(SELECT count(*) FROM awc.gc_pins) || '|' || "
            "pg_size_pretty(pg_database_size(current_database())) || '|' "
            "|| pg_size_pretty(pg_total_relation_size('awc.objects')) || "
            "'|' || pg_size_pretty(pg_total_relation_size("
            "'awc.snapshot_objects'))").split("|")
        out["runs"][n] = []
    # Interleaved: every size once per repetition.
    for rep in range(1, a.repeat + 1):
        for n in a.gc_sizes:
            db = "awc_sbench_gc"
            copy_db(db, f"awc_sbench_tmpl_{n}")
            store = os.path.join(bench.workdir, "gc-cas")
            shutil.rmtree(store, ignore_errors=True)
            env = bench.env(DATABASE_URL=db_url(db),
                           AWC_CAS_URL=f"file://{store}",
                           AWC_GC_BATCH_SIZE=a.gc_batch)
            pg0 = pg_cpu.now()
            r = run_json([bench.prog, "gc", "--tenant", TENANT], env, "gc")
            pg_cpu.settle(db)
            r["pg_cpu"] = pg_cpu.now() - pg0
            r["others"] = max(0.0, (r["_busy"] - r["_cpu"] - r["pg_cpu"])
                              / r["_wall"])
            out["runs"][n].append(r)
            log(f"gc run {rep}/{a.repeat} n={n:<8} dry run "
                f"{r['dry_seconds']:.3f} s, full epoch "
                f"{r['full_seconds']:.3f} s (plan {r['plan']:.3f}, "
                f"deleted {r['deleted']})")
            if rep == a.repeat:
                out.setdefault("explain", {})[n] = subprocess.run(
                    [bench.prog, "explain-plan", "--tenant", TENANT],
                    env=env, capture_output=True, text=True,
                    check=True).stdout.rstrip("\n").split("\n")
            drop_db(db)
            shutil.rmtree(store, ignore_errors=True)
    for n in a.gc_sizes:
        drop_db(f"awc_sbench_tmpl_{n}")
    admin.close()
    return out
