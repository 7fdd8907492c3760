"""Part 6 of the storage benchmarks (storage_bench.py), dedup: snapshots
that share all but a few objects (docs/store.md, "Shared content"), run
by the real daemon beside the daemon of the commit before the content DAG
(--dedup-baseline-build). Over file://, --dedup-firsts - 1 trees of
--dedup-files small files that share nothing are first imported, each
into a tenant of its own, so that a first validation is measured that
many times. Then one tree is imported --dedup-snapshots times with
`awcctl import`, one file changed between imports, into each daemon's
own database and store, the two interleaved import by import; then every
snapshot is scrubbed once, as the scheduler would. Over file:// and over
s3:// behind the latency proxy (storage_s3rver.py). The GC half is in
storage_dedup_gc.py. Standard library only.
"""

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request

from bench_common import (LIVE_PGIDS, Session, create_db, db_url, die,
                          drop_db, free_port, log, require_durable)
from storage_common import TENANT
from storage_s3 import s3_settings, s3rver_data
from storage_s3rver import LatencyProxy, S3rver

FILES_PER_DIR = 200
EATMYDATA = shutil.which("eatmydata")
SCRUB_INTERVAL = 30 * 86400  # AWC_SCRUB_INTERVAL_SECS's default
# Tables that say what is live: before the DAG one closure row per object
# per snapshot; after it the recorded entries, plus any rows from before.
TABLES = {"base": ["awc.objects", "awc.snapshot_objects"],
          "new": ["awc.objects", "awc.object_edges", "awc.legacy_closures"]}


def file_body(d, f, version=0, salt=""):
    """A file's content: unique per (directory, file, version, salt), so
    the tree holds as many blobs as files. 60-300 bytes."""
    line = f"awc dedup bench {salt}d{d:04d} f{f:04d} v{version}\n"
    return (line * (1 + (d * 7 + f * 13) % 8)).encode()


def write_tree(root, files, salt=""):
    dirs = max(1, files // FILES_PER_DIR)
    for d in range(dirs):
        path = os.path.join(root, f"d{d:04d}")
        os.makedirs(path)
        for f in range(FILES_PER_DIR):
            with open(os.path.join(path, f"f{f:04d}"), "wb") as out:
                out.write(file_body(d, f, 0, salt))
    return dirs


def change_one_file(root, dirs, step):
    """Before import `step` (2, 3, ...): one file of one directory gets new
    content, so the new snapshot has a new root, directory and blob."""
    d = (step * 37) % dirs
    with open(os.path.join(root, f"d{d:04d}", "f0000"), "wb") as out:
        out.write(file_body(d, 0, step))


class Daemon:
    """awc-worker of one build on its own database and store: one worker
    (jobs run one at a time, so each job's figures are its own), no
    scheduler (the benchmark enqueues what it would), /metrics on a free
    port, its log lines (JSON, info level) in a file."""

    def __init__(self, build, env, logpath):
        self.port = free_port()
        self.logpath = logpath
        env = dict(env, AWC_WORKER_CONCURRENCY="1", AWC_SCHEDULER="off",
                   AWC_LOG_LEVEL="info", AWC_WORKER_ID="bench-dedup",
                   AWC_METRICS_LISTEN=f"127.0.0.1:{self.port}")
        self.log = open(logpath, "wb")
        self.p = subprocess.Popen([os.path.join(build, "awc-worker")],
                                  env=env, stdin=subprocess.DEVNULL,
                                  stdout=self.log, stderr=self.log,
                                  start_new_session=True)
        LIVE_PGIDS.append(self.p.pid)
        deadline = time.monotonic() + 60
        while True:
            if self.p.poll() is not None:
                die(f"awc-worker exited ({self.p.returncode}); see {logpath}")
            try:
                self.metrics()
                return
            except OSError:
                if time.monotonic() > deadline:
                    die(f"awc-worker did not come up; see {logpath}")
                time.sleep(0.1)

    def metrics(self):
        with urllib.request.urlopen(
                f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            return r.read().decode()

    def store_gets(self):
        """Objects read from the store: awc_store_requests_total, op get
        (one a request of GetMany), every result."""
        return sum(float(line.rsplit(" ", 1)[1])
                   for line in self.metrics().splitlines()
                   if line.startswith("awc_store_requests_total{")
                   and 'op="get"' in line)

    def durations(self, job_ids, timeout=30):
        """{job id: handler seconds} from the worker's "job ..." lines
        (duration_s: the handler's run, recording excluded)."""
        want = {f"job_{j}": j for j in job_ids}
        got, deadline = {}, time.monotonic() + timeout
        while True:
            self.log.flush()
            with open(self.logpath, errors="replace") as f:
                for line in f:
                    if '"duration_s"' not in line:
                        continue
                    try:
                        e = json.loads(line)
                    except ValueError:
                        continue
                    if e.get("id") in want and "duration_s" in e:
                        got[want[e["id"]]] = e["duration_s"]
            if len(got) == len(want) or time.monotonic() > deadline:
                return got
            time.sleep(0.05)

    def stop(self):
        try:
            os.killpg(self.p.pid, signal.SIGTERM)
            self.p.wait(60)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        LIVE_PGIDS.remove(self.p.pid)
        self.log.close()


class Side:
    """One build (base or new) in one store's run: its database, store,
    daemon, and the figures collected so far."""

    def __init__(self, bench, name, build, store_env, import_env, url, db):
        self.name, self.build, self.db = name, build, db
        drop_db(db)
        create_db(db)
        self.env = bench.env(DATABASE_URL=db_url(db), **store_env)
        self.import_env = dict(self.env, **import_env)
        awcctl(build, self.env, "store", "init", url)
        self.daemon = Daemon(build, self.env, os.path.join(
            bench.workdir, f"daemon-{db}.log"))
        self.sql = Session(db)
        self.validations, self.scrubs = [], []
        self.firsts = []  # first validations of trees that share nothing

    def wait(self, job_ids):
        """Waits until the jobs are done; returns {id: (state, result)}."""
        ids = ",".join(str(j) for j in job_ids)
        while True:
            rows = self.sql.query(
                "SELECT id || '|' || state || '|' || coalesce(result::text, "
                f"'{{}}') FROM awc.jobs WHERE id IN ({ids}) AND state IN "
                "('COMPLETED', 'FAILED', 'CANCELLED')")
            rows = [r.split("|", 2) for r in rows.splitlines() if r]
            if len(rows) == len(job_ids):
                return {int(i): (s, json.loads(res)) for i, s, res in rows}
            time.sleep(0.05)

    def run_jobs(self, job_ids, what, g0):
        """g0: the store gets before the jobs were enqueued (the worker
        starts them at once)."""
        done = self.wait(job_ids)
        secs = self.daemon.durations(job_ids)
        gets = self.daemon.store_gets() - g0
        out = []
        for j in job_ids:
            state, result = done[j]
            if state != "COMPLETED" or result.get("verdict") not in (
                    "ready", "clean"):
                die(f"{self.name}: {what} job {j} ended {state} {result}; "
                    f"see {self.daemon.logpath}")
            out.append(dict(result, job=j, seconds=secs.get(j)))
        return out, gets

    def validate(self, tree, tenant=TENANT):
        t0, g0 = time.monotonic(), self.daemon.store_gets()
        imp = json.loads(awcctl(self.build, self.import_env, "import",
                                "--tenant", tenant, "--yes", "--json", tree))
        import_secs = time.monotonic() - t0
        (r,), gets = self.run_jobs([imp["job_id"]], "validation", g0)
        r.update(import_seconds=import_secs, uploaded=imp["uploaded"],
                 store_gets=gets)
        if tenant == TENANT:
            self.validations.append(r)
        else:
            self.firsts.append(r)
        return r

    def bookkeeping(self):
        mine = f"tenant_id = '{TENANT}'"
        q = [f"(SELECT count(*) FROM awc.objects WHERE {mine})",
             "(SELECT count(*) FROM awc.snapshots WHERE state = 'READY' "
             f"AND {mine})"]
        for t in TABLES[self.name][1:]:
            of = mine if t == "awc.object_edges" else (
                f"snapshot_id IN (SELECT id FROM awc.snapshots WHERE {mine})")
            q.append(f"(SELECT count(*) FROM {t} WHERE {of})")
        for t in TABLES[self.name]:
            # The view's size is that of the tables under it.
            rel = "awc.legacy_closures" if (
                t == "awc.snapshot_objects" and self.name == "new") else t
            q.append(f"pg_total_relation_size('{rel}')")
        v = [int(x) for x in self.sql.query(
            "SELECT " + " || '|' || ".join(q)).split("|")]
        n = len(TABLES[self.name]) - 1
        return {"objects": v[0], "snapshots": v[1],
                "rows": dict(zip(TABLES[self.name][1:], v[2:2 + n])),
                "bytes": dict(zip(TABLES[self.name], v[2 + n:]))}

    def scrub(self, limit):
        """Scrubs the first `limit` READY snapshots, enqueued together as
        the scheduler's planner does, after ageing every verification
        past the interval. The commit before the DAG knows no
        reverify_after_secs."""
        payload = ("jsonb_build_object('snapshot_id', id, "
                   f"'reverify_after_secs', {SCRUB_INTERVAL})"
                   if self.name == "new" else
                   "jsonb_build_object('snapshot_id', id)")
        if self.name == "new":
            self.sql.query("UPDATE awc.objects SET verified_at = now() - "
                           f"interval '31 days' WHERE tenant_id = '{TENANT}'")
        t0, g0 = time.monotonic(), self.daemon.store_gets()
        ids = [int(x) for x in self.sql.query(
            "INSERT INTO awc.jobs (kind, payload) SELECT 'snapshot_scrub', "
            f"{payload} FROM (SELECT id FROM awc.snapshots WHERE state = "
            f"'READY' AND tenant_id = '{TENANT}' ORDER BY id LIMIT {limit})"
            " s RETURNING id").split()]
        self.scrubs, gets = self.run_jobs(ids, "scrub", g0)
        return {"wall": time.monotonic() - t0, "store_gets": gets,
                "jobs": self.scrubs}

    def close(self):
        self.daemon.stop()
        self.sql.close()
        drop_db(self.db)


def awcctl(build, env, *args):
    # An import's uploads are not what is measured, and a file:// upload
    # syncs its file and directory (docs/store.md, "Atomic writes"): under
    # eatmydata the first import of 100,000 files takes a minute, not a
    # quarter of an hour. The daemon runs as it is.
    prefix = ["eatmydata"] if args[0] == "import" and EATMYDATA else []
    r = subprocess.run([*prefix, os.path.join(build, "awcctl"), *args],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"awcctl {' '.join(args)} failed ({r.returncode}): "
            f"{r.stderr.strip()}")
    return r.stdout


def run_store(bench, store, files, sides, base_snapshots, base_scrubs):
    """The imports, bookkeeping and scrubs of one store for each side
    (name, build, store env, import env, URL); the baseline validates only
    the first `base_snapshots` (each of its validations reads the whole
    tree) and scrubs the first `base_scrubs`."""
    a = bench.a
    tree = os.path.join(bench.workdir, f"dedup-tree-{store}")
    t0 = time.monotonic()
    dirs = write_tree(tree, files)
    log(f"dedup {store}: tree of {dirs * FILES_PER_DIR} files in {dirs} "
        f"directories written in {time.monotonic() - t0:.0f} s")
    live = [Side(bench, name, build, senv, ienv, url,
                 f"awc_dedup_{store}_{name}")
            for name, build, senv, ienv, url in sides]
    out = {"files": dirs * FILES_PER_DIR, "dirs": dirs, "sides": {}}
    try:
        for step in range(1, a.dedup_snapshots + 1):
            if step > 1:
                change_one_file(tree, dirs, step)
            for s in live:
                if s.name == "base" and step > base_snapshots:
                    continue
                r = s.validate(tree)
                log(f"dedup {store} {s.name} snapshot {step}: validation "
                    f"{r['seconds']:.3f} s, objects {r['objects']}, read "
                    f"{r.get('read', '-')}, store gets {r['store_gets']:.0f}"
                    f" (import {r['import_seconds']:.1f} s, uploaded "
                    f"{r['uploaded']})")
        for s in live:
            book = s.bookkeeping()
            limit = a.dedup_snapshots if s.name == "new" else min(
                base_scrubs, base_snapshots)
            log(f"dedup {store} {s.name}: scrubbing {limit} snapshots")
            scrub = s.scrub(limit)
            log(f"dedup {store} {s.name}: scrubs read "
                f"{sum(j.get('read', j['objects']) for j in scrub['jobs'])}"
                f" objects, store gets {scrub['store_gets']:.0f}, "
                f"{scrub['wall']:.1f} s")
            out["sides"][s.name] = {"validations": s.validations,
                                    "book": book, "scrub": scrub}
        # More first validations, of trees that share nothing with
        # anything, each in a tenant of its own, interleaved: one sample is
        # too few for a 5 % comparison on a shared machine. They come last
        # so that the tenant measured above is alone when it is counted.
        for k in range(1, (a.dedup_firsts if store == "file" else 1)):
            other = os.path.join(bench.workdir, f"dedup-first-{store}-{k}")
            write_tree(other, files, salt=f"s{k} ")
            for s in live:
                r = s.validate(other, tenant=f"{TENANT}-first{k}")
                log(f"dedup {store} {s.name} first validation {k}: "
                    f"{r['seconds']:.3f} s, objects {r['objects']}")
            shutil.rmtree(other, ignore_errors=True)
        for s in live:
            out["sides"][s.name]["firsts"] = s.firsts + s.validations[:1]
    finally:
        for s in live:
            s.close()
    return out


def dedup_part(bench):
    a = bench.a
    if "PGHOST" not in os.environ:
        bench.notes.append("dedup part skipped: not run under pg_virtualenv")
        return None
    require_durable("make bench-storage")
    new = a.build_dir
    base = a.dedup_baseline_build
    for b in [new] + ([base] if base else []):
        for prog in ("awc-worker", "awcctl"):
            if not os.access(os.path.join(b, prog), os.X_OK):
                die(f"{b}/{prog} is missing (make bench builds it)")
    if not EATMYDATA:
        bench.notes.append("dedup: eatmydata is not installed; the imports "
                           "sync every upload (slow, not measured)")
    if not base:
        bench.notes.append("dedup: no baseline build "
                           "(BENCH_DEDUP_BASELINE_BUILD); new figures only")

    def sides(senv, ienv, url):
        out = [("new", new, senv, ienv, url("new"))]
        if base:
            out.insert(0, ("base", base, senv, ienv, url("base")))
        return out

    out = {"baseline": base}
    root = os.path.join(bench.workdir, "dedup-cas")
    out["file"] = run_store(bench, "file", a.dedup_files, [
        (n, b, dict(AWC_CAS_URL=u), {}, u)
        for n, b, _, _, u in sides({}, {}, lambda n: f"file://{root}-{n}")],
        a.dedup_snapshots, a.dedup_snapshots)
    script, datadir = s3rver_data(bench, "dedup s3 half", "dedup-s3rver")
    if script and a.dedup_s3_files > 0:
        servers = [S3rver(script, datadir, os.path.join(
            bench.workdir, f"dedup-s3rver-{i}.log"))
            for i in range(a.s3_servers)]
        proxy = LatencyProxy([s.port for s in servers], a.s3_ttfb_ms / 1000)
        try:
            ss = []
            for n, b, _, _, _ in sides({}, {}, str):
                servers[0].create_bucket(f"dedup-{n}")
                senv = dict(s3_settings(proxy.endpoint()),
                            AWC_CAS_URL=f"s3://dedup-{n}")
                # Imports go to s3rver directly: they upload one object at
                # a time, and what is measured is the daemon's reads.
                ss.append((n, b, senv,
                           {"AWC_S3_ENDPOINT": servers[0].endpoint()},
                           f"s3://dedup-{n}"))
            out["s3"] = run_store(bench, "s3", a.dedup_s3_files, ss,
                                  a.dedup_s3_baseline_snapshots,
                                  a.dedup_s3_baseline_snapshots)
        finally:
            proxy.stop()
            for s in servers:
                s.stop()
    return out
