"""Part 7 of the storage benchmarks (storage_bench.py), reconcile: one
store_reconcile job of awc-worker (one worker, no scheduler) over a tenant
of --reconcile-keys keys, over file:// and over s3:// behind the latency
proxy (storage_s3rver.py), beside the bare listing of the same keys (a
directory walk with a stat of each file; ListObjectsV2 pages through the
same proxy).

The keys are written straight to the store's files (for s3rver, its data
directory: the object and its .md5), the inventory made by one INSERT:
1 % of the keys are orphans (in the store, a modification time two days
old, no row), 1 % of the rows are missing objects (a LIVE row, no key),
and a few keys are not object keys. The job's result must count exactly
these. Peak RSS is the worker's VmHWM after the job less its VmRSS before
it. Standard library only.
"""

import hashlib
import json
import os
import shutil
import time
import urllib.parse
import urllib.request
from xml.etree import ElementTree

from bench_common import (Session, create_db, db_url, die, drop_db, log,
                          require_durable)
from storage_common import TENANT
from storage_dedup import Daemon, awcctl
from storage_s3 import s3_settings, s3rver_data
from storage_s3rver import LatencyProxy, S3rver

ORPHAN, MISSING = 0, 1  # key i is an orphan when i % 100 == 0, and so on
OTHER_KEYS = 5
OLD = time.time() - 2 * 86400


def hexdigest(i):
    return hashlib.sha256(f"reconcile {i}".encode()).hexdigest()


def size_of(i):
    return 64 + i % 64


def write_keys(n, path_of, with_md5=False):
    """The store's side: every key but the missing ones. `path_of(hex)`:
    where the key's bytes go."""
    made = set()
    for i in range(n):
        if i % 100 == MISSING:
            continue
        h = hexdigest(i)
        path = path_of(h)
        d = os.path.dirname(path)
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        with open(path, "wb") as f:
            f.write(b"r" * size_of(i))
        if with_md5:
            with open(path[:-len("object")] + "object.md5", "w") as f:
                f.write("0" * 32)
        if i % 100 == ORPHAN:
            os.utime(path, (OLD, OLD))
    for k in range(OTHER_KEYS):
        path = path_of(None, f"notes-{k}.txt")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"not an object\n")
        if with_md5:
            with open(path[:-len("object")] + "object.md5", "w") as f:
                f.write("0" * 32)


def fill_inventory(sql, n):
    sql.query(f"INSERT INTO awc.tenants (id) VALUES ('{TENANT}') "
              "ON CONFLICT DO NOTHING")
    sql.query("INSERT INTO awc.objects (tenant_id, digest, size, created_at,"
              f" last_seen_at) SELECT '{TENANT}', 'sha256:' || "
              "encode(sha256(('reconcile ' || i)::bytea), 'hex'), "
              "64 + i % 64, now() - interval '3 days', now() - interval "
              f"'3 days' FROM generate_series(0, {n - 1}) i "
              f"WHERE i % 100 <> {ORPHAN}")
    sql.query("ANALYZE awc.objects")


def worker_pid(master):
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == master:
                    return int(d)
        except (OSError, IndexError, ValueError):
            continue
    die("reconcile: the daemon has no worker")


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    die(f"reconcile: no {field} in /proc/{pid}/status")


def reconcile(bench, store, n, store_env, url, prefill):
    """Runs one reconciliation of a tenant of `n` keys; returns its
    figures."""
    db = f"awc_reconcile_{store}"
    drop_db(db)
    create_db(db)
    env = bench.env(DATABASE_URL=db_url(db), **store_env)
    awcctl(bench.a.build_dir, env, "migrate")
    awcctl(bench.a.build_dir, env, "store", "init", url)
    sql = Session(db)
    t0 = time.monotonic()
    prefill()
    fill_inventory(sql, n)
    log(f"reconcile {store}: {n} keys written in "
        f"{time.monotonic() - t0:.0f} s")
    daemon = Daemon(bench.a.build_dir, env, os.path.join(
        bench.workdir, f"daemon-{db}.log"))
    try:
        pid = worker_pid(daemon.p.pid)
        time.sleep(1)  # the worker's first claim and heartbeat
        idle = status_kib(pid, "VmRSS")
        t0 = time.monotonic()
        job = int(sql.query(
            "INSERT INTO awc.jobs (kind, payload) VALUES ('store_reconcile', "
            f"jsonb_build_object('tenant_id', '{TENANT}')) RETURNING id"))
        while True:
            row = sql.query("SELECT state || '|' || coalesce(result::text, "
                            f"'') FROM awc.jobs WHERE id = {job}")
            state, result = row.split("|", 1)
            if state in ("COMPLETED", "FAILED"):
                break
            time.sleep(0.1)
        wall = time.monotonic() - t0
        if state != "COMPLETED":
            die(f"reconcile {store}: job {job} ended {state} {result}; see "
                f"{daemon.logpath}")
        secs = daemon.durations([job]).get(job, wall)
        hwm = status_kib(pid, "VmHWM")
    finally:
        daemon.stop()
        sql.close()
        drop_db(db)
    r = json.loads(result)
    want = {"orphans": n // 100, "missing": n // 100,
            "other_keys": OTHER_KEYS}
    for k, v in want.items():
        if r.get(k) != v:
            die(f"reconcile {store}: {k} {r.get(k)}, the tenant has {v}: "
                f"{r}")
    return {"keys": n, "listed": r["listed"], "seconds": secs, "wall": wall,
            "idle_kib": idle, "hwm_kib": hwm, "result": r}


def bare_walk(root):
    """Every file under `root` with its size and modification time, as a
    listing reports them, in no particular order."""
    t0 = time.monotonic()
    count = 0
    todo = [root]
    while todo:
        with os.scandir(todo.pop()) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    todo.append(e.path)
                else:
                    st = e.stat(follow_symlinks=False)
                    count += st.st_size > 0
    return time.monotonic() - t0, count


def bare_list(endpoint, bucket, prefix):
    """ListObjectsV2 pages of 1,000 through `endpoint`, one after another,
    as a listing client with nothing else to do."""
    t0, count, after = time.monotonic(), 0, ""
    while True:
        q = f"list-type=2&prefix={prefix}&max-keys=1000"
        if after:
            q += "&start-after=" + urllib.parse.quote(after, safe="")
        with urllib.request.urlopen(f"{endpoint}/{bucket}?{q}",
                                    timeout=120) as r:
            root = ElementTree.fromstring(r.read())
        # Whatever the namespace (s3rver's is not S3's).
        ns = root.tag[:root.tag.index("}") + 1] if "}" in root.tag else ""
        keys = [c.findtext(ns + "Key") for c in root.findall(ns + "Contents")]
        count += len(keys)
        if root.findtext(ns + "IsTruncated") != "true" or not keys:
            return time.monotonic() - t0, count
        after = keys[-1]


def check_bare(store, x):
    """The bare listing saw what the job listed."""
    if x["bare"][1] != x["listed"]:
        die(f"reconcile {store}: the bare listing saw {x['bare'][1]} keys, "
            f"the job listed {x['listed']}")


def reconcile_part(bench):
    a = bench.a
    if "PGHOST" not in os.environ:
        bench.notes.append("reconcile part skipped: not run under "
                           "pg_virtualenv")
        return None
    require_durable("make bench-storage")
    out = {}
    n = a.reconcile_keys
    root = os.path.join(bench.workdir, "reconcile-cas")
    tenant_dir = os.path.join(root, TENANT)

    def file_path(h, other=None):
        return os.path.join(tenant_dir, other) if other else os.path.join(
            tenant_dir, "sha256", h[:2], h)

    out["file"] = reconcile(bench, "file", n, {"AWC_CAS_URL": "file://" + root},
                            "file://" + root, lambda: write_keys(n, file_path))
    out["file"]["bare"] = bare_walk(tenant_dir)
    check_bare("file", out["file"])
    log(f"reconcile file: {out['file']['seconds']:.1f} s, bare walk "
        f"{out['file']['bare'][0]:.1f} s")
    shutil.rmtree(root, ignore_errors=True)

    n3 = a.reconcile_s3_keys
    script, datadir = s3rver_data(bench, "reconcile s3 half",
                                  "reconcile-s3rver")
    if script and n3 > 0:
        servers = [S3rver(script, datadir, os.path.join(
            bench.workdir, f"reconcile-s3rver-{i}.log"))
            for i in range(a.s3_servers)]
        proxy = LatencyProxy([s.port for s in servers], a.s3_ttfb_ms / 1000)
        try:
            servers[0].create_bucket("bench")
            bucket = os.path.join(datadir, "bench", TENANT)

            def s3_path(h, other=None):
                name = other or os.path.join("sha256", h[:2], h)
                return os.path.join(bucket, name + "._S3rver_object")

            senv = s3_settings(proxy.endpoint())
            out["s3"] = reconcile(bench, "s3", n3, senv, "s3://bench",
                                  lambda: write_keys(n3, s3_path, True))
            out["s3"]["bare"] = bare_list(proxy.endpoint(), "bench",
                                          TENANT + "/")
            check_bare("s3", out["s3"])
            log(f"reconcile s3: {out['s3']['seconds']:.1f} s, bare listing "
                f"{out['s3']['bare'][0]:.1f} s")
        finally:
            proxy.stop()
            for s in servers:
                s.stop()
    return out


def report_lines(a, r):
    out = ["7. Reconciliation: one store_reconcile job (one worker) over a "
           "tenant's keys, beside the bare listing of",
           "   the same keys (file://: a directory walk with a stat of each file; s3://: "
           "ListObjectsV2 pages of 1000 through the same proxy,",
           "   one after another). 1 % orphans, 1 % missing objects, "
           f"{OTHER_KEYS} keys that are not objects; the job's counts "
           "checked. RSS = the worker's",
           "   VmHWM after the job less its VmRSS before it.", "",
           "   store | keys     | listed   | job s   | keys/s  | bare s  "
           "| x bare | RSS above idle",
           "   " + "-" * 84]
    for store in ("file", "s3"):
        x = r.get(store)
        if not x:
            continue
        bare = x["bare"][0]
        out.append(
            f"   {store:5} | {x['keys']:8d} | {x['listed']:8d} | "
            f"{x['seconds']:7.1f} | {x['listed'] / x['seconds']:7.0f} | "
            f"{bare:7.1f} | {x['seconds'] / bare:6.2f} | "
            f"{(x['hwm_kib'] - x['idle_kib']) / 1024:.1f} MiB (idle "
            f"{x['idle_kib'] / 1024:.1f} MiB)")
    goal = [x for x in (r.get("file"), r.get("s3")) if x]
    worst = max((x["hwm_kib"] - x["idle_kib"]) / 1024 for x in goal)
    out += ["", f"   goal: memory bounded (10M keys <= 64 MiB above idle): "
            f"at most {worst:.1f} MiB above idle at "
            f"{max(x['keys'] for x in goal)} keys: "
            f"{'met' if worst <= 64 else 'NOT met'} at this size", ""]
    return out
