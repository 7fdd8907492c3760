"""The GC half of part 6 of the storage benchmarks (storage_dedup.py): a
GC epoch over a tenant whose live objects form one DAG shared by 20
READY snapshots (rows made with SQL: objects with refs > 0 and their
awc.object_edges rows, as validation records them), against the same
epoch over the tenant of part 3 (storage_gc.gc_sql: closure rows per
snapshot, which GC still honours), at the same sizes, interleaved on
fresh copies of both templates. Standard library only.
"""

import os
import shutil
import subprocess
import time

from bench_common import db_url, drop_db, log, psql
from storage_common import TENANT, run_json
from storage_gc import copy_db, gc_sql

SNAPSHOTS = 20


def dag_sql(n):
    """A tenant of n objects: by i % 100, 0-79 live in one DAG (20 roots,
    each naming every directory manifest; a directory names the next 200
    objects, blobs), 80-84 and 87-96 unreferenced and old (eligible, 15 %
    as in part 3), 85-86 pinned, 97-99 unreferenced and young. Old
    objects were created 30 days (+ i s) ago, as in part 3."""
    live = "i % 100 < 80"
    return [
        f"INSERT INTO awc.tenants (id) VALUES ('{TENANT}')",
        # r: the rank among the live objects; 0-19 roots, then a
        # directory and its 200 blobs, again and again.
        "CREATE UNLOGGED TABLE public.bench_dag AS SELECT i, d, b, r, "
        f"CASE WHEN r IS NULL THEN NULL WHEN r < {SNAPSHOTS} THEN 'root' WHEN (r - {SNAPSHOTS}) % 201 "
        "= 0 THEN 'dir' ELSE 'blob' END AS role, "
        f"{SNAPSHOTS} + (r - {SNAPSHOTS}) / 201 * 201 AS dir_r FROM (SELECT i, "
        f"'sha256:' || encode(b, 'hex') AS d, b, CASE WHEN {live} THEN "
        f"row_number() OVER (PARTITION BY {live} ORDER BY i) - 1 END AS r "
        f"FROM (SELECT i, sha256(convert_to('{TENANT}/' || i, 'UTF8')) AS b "
        f"FROM generate_series(1, {n}) i) x) y",
        "CREATE INDEX ON public.bench_dag (r)",
        "INSERT INTO awc.objects (tenant_id, digest, size, created_at, "
        "last_seen_at, refs, manifest_entries, entries_counted, verified_at) "
        "SELECT "
        f"'{TENANT}', d, 4096 + (i::bigint * 7919) % 61441, t, t + ((i * 13) "
        f"% 3600) * interval '1 second', CASE role WHEN 'dir' THEN "
        f"{SNAPSHOTS} WHEN 'root' THEN 1 WHEN 'blob' THEN 1 ELSE 0 END, "
        "coalesce(role IN ('root', 'dir'), false), true, "
        "CASE WHEN r IS NOT NULL THEN t END FROM "
        "(SELECT *, CASE WHEN i % 100 >= 97 THEN now() - interval '1 hour' "
        "ELSE now() - interval '30 days' - i * interval '1 second' END AS t "
        "FROM public.bench_dag) x",
        # Sizes as the objects' rows have them (the same formula).
        "INSERT INTO awc.object_edges (tenant_id, parent, child, child_size, "
        f"child_manifest) SELECT '{TENANT}', p.b, c.b, 4096 + (c.i::bigint * "
        "7919) % 61441, true FROM public.bench_dag p CROSS JOIN "
        "public.bench_dag c WHERE p.role = 'root' AND c.role = 'dir' "
        f"UNION ALL SELECT '{TENANT}', p.b, c.b, 4096 + (c.i::bigint * 7919) "
        "% 61441, false FROM public.bench_dag c JOIN public.bench_dag p ON "
        "p.r = c.dir_r WHERE c.role = 'blob'",
        "INSERT INTO awc.snapshots (id, tenant_id, root_digest, state, "
        "created_at, validated_at, holds_refs) SELECT r + 1, "
        f"'{TENANT}', d, 'READY', now() - interval '20 days', now() - "
        "interval '20 days', true FROM public.bench_dag WHERE role = 'root'",
        "SELECT setval(pg_get_serial_sequence('awc.snapshots', 'id'), "
        f"{SNAPSHOTS})",
        "INSERT INTO awc.gc_pins (tenant_id, digest, reason) SELECT "
        f"'{TENANT}', d, 'operator' FROM public.bench_dag "
        "WHERE i % 100 IN (85, 86)",
        "DROP TABLE public.bench_dag",
        "VACUUM ANALYZE",
        "CHECKPOINT",
    ]


SHAPES = ("dag", "closure rows")


def fill(bench, shape, n):
    tmpl = f"awc_dedup_gc_{'dag' if shape == 'dag' else 'rows'}_{n}"
    drop_db(tmpl)
    subprocess.run(["createdb", tmpl], check=True)
    run_json([bench.prog, "migrate"], bench.env(DATABASE_URL=db_url(tmpl)),
             "migrate")
    log(f"dedup gc: filling {tmpl}")
    t0 = time.monotonic()
    psql(tmpl, *(dag_sql(n) if shape == "dag" else gc_sql(bench, n)))
    secs = time.monotonic() - t0
    counts = psql(
        tmpl,
        "SELECT (SELECT count(*) FROM awc.objects) || '|' || (SELECT "
        "count(*) FROM awc.objects WHERE refs > 0) || '|' || (SELECT "
        "count(*) FROM awc.object_edges) || '|' || (SELECT count(*) FROM "
        "awc.legacy_closures) || '|' || (SELECT count(*) FROM awc.snapshots "
        "WHERE state = 'READY') || '|' || pg_size_pretty("
        "pg_database_size(current_database()))").split("|")
    return tmpl, secs, counts


def dedup_gc_part(bench):
    a = bench.a
    out = {"sizes": a.dedup_gc_sizes, "runs": {}, "db": {}, "explain": {}}
    tmpls = {}
    for n in a.dedup_gc_sizes:
        for shape in SHAPES:
            tmpls[shape, n], secs, counts = fill(bench, shape, n)
            out["db"][shape, n] = (secs, counts)
            out["runs"][shape, n] = []
    for rep in range(1, a.repeat + 1):
        for n in a.dedup_gc_sizes:
            for shape in SHAPES:
                db = "awc_dedup_gc"
                copy_db(db, tmpls[shape, n])
                store = os.path.join(bench.workdir, "dedup-gc-cas")
                shutil.rmtree(store, ignore_errors=True)
                env = bench.env(DATABASE_URL=db_url(db),
                                AWC_CAS_URL=f"file://{store}",
                                AWC_GC_BATCH_SIZE=a.gc_batch)
                r = run_json([bench.prog, "gc", "--tenant", TENANT], env,
                             "gc")
                out["runs"][shape, n].append(r)
                log(f"dedup gc run {rep}/{a.repeat} n={n} {shape}: full "
                    f"epoch {r['full_seconds']:.3f} s (plan {r['plan']:.3f},"
                    f" eligible {r['eligible']}, deleted {r['deleted']})")
                if rep == a.repeat:
                    log("dedup gc: EXPLAIN of the plan")
                    out["explain"][shape, n] = subprocess.run(
                        [bench.prog, "explain-plan", "--tenant", TENANT],
                        env=env, capture_output=True, text=True,
                        check=True).stdout.rstrip("\n").split("\n")
                drop_db(db)
                shutil.rmtree(store, ignore_errors=True)
    log("dedup gc: dropping the templates")
    for t in tmpls.values():
        drop_db(t)
    return out
