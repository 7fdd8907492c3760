#!/usr/bin/env python3
"""The fairness benchmark of awc-worker (make bench-fairness; see
bench/README.md, section "Fairness").

What a user waits for under maintenance load. Runs inside `pg_virtualenv
-t -o fsync=on` and refuses a cluster that is not durable. One database and
one file:// store hold BENCH_FAIR_SNAPSHOTS big snapshots (100) of distinct
content, BENCH_FAIR_FILES files (32) of 256 KiB each, imported and
validated once. Then, for each worker count C of BENCH_FAIR_CONCURRENCY
("2 4") and each of four settings,

  places  the defaults: AWC_WORKER_BACKGROUND_CONCURRENCY unset (C - 1
          workers may run background kinds; docs/queue.md, "Background
          work") and the kinds' priorities ("Priorities");
  limit   no places (AWC_WORKER_BACKGROUND_CONCURRENCY = C), priorities,
          and a host limit of C - 1 on snapshot_scrub ("Concurrency
          limits"): the same bound kept by the other mechanism;
  prio    no places, no limit, priorities only: a validation comes first
          among ready jobs, but every worker may be scrubbing;
  off     no places, no limit, every kind of one priority: the queue in
          run_at order,

the daemon (release build, scheduler off, read budget
BENCH_FAIR_BUDGET_MB MB/s, 40) is given a plain scrub of every big
snapshot at once, and while they run BENCH_FAIR_IMPORTS small snapshots
(50) of three files are imported by `awcctl import`, one every
BENCH_FAIR_GAP_MS ms (400). Measured from the database's clock:

  to READY  each small snapshot's validation, from its job's insertion to
            its completion (p50, p99, max);
  scrubs    the wave, from the scrubs' insertion to the last one's
            completion, against the budget's bound (the bytes the scrubs
            must read at the budget's rate): the ratio is the cost of
            keeping a worker for the rest.

Between runs the scrubs' verifications are forgotten (verified_at, so
that every run reads as much).

Then plain scrubs over shared content: BENCH_FAIR_SHARED (10) snapshots
of one tree of BENCH_FAIR_SHARED_FILES files (2000, in directories of
100), one file changed between them, are validated, their verifications
forgotten, and a plain scrub of each ({"snapshot_id": N}, as a control
plane asks) is enqueued at once: the objects they read (their results'
`read`) against the unique objects of the ten closures. Standard library
only.
"""

import argparse
import datetime
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from the import below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (LIVE_PGIDS, create_db, db_url, die,  # noqa: E402
                          drop_db, env_int, env_list, log, percentile, psql,
                          require_durable, run_header, write_report)

DB = "awc_fair_bench"
FILE_KIB = 256


def awcctl(build, env, *args):
    prefix = ["eatmydata"] if args[0] == "import" and shutil.which(
        "eatmydata") else []
    r = subprocess.run([*prefix, os.path.join(build, "awcctl"), *args],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"awcctl {' '.join(args)} failed ({r.returncode}): "
            f"{r.stderr.strip()}")
    return r.stdout


def write_tree(root, files, salt):
    os.makedirs(root, exist_ok=True)
    for f in range(files):
        block = f"{salt}/{f}:".encode()
        body = (block * (FILE_KIB * 1024 // len(block) + 1))[:FILE_KIB * 1024]
        with open(os.path.join(root, f"f{f:03d}"), "wb") as out:
            out.write(body)


class Daemon:
    """awc-worker on the benchmark's database and store, its log in a
    file."""

    def __init__(self, build, env, logpath):
        self.log = open(logpath, "wb")
        self.p = subprocess.Popen([os.path.join(build, "awc-worker")],
                                  env=env, stdin=subprocess.DEVNULL,
                                  stdout=self.log, stderr=self.log,
                                  start_new_session=True)
        LIVE_PGIDS.append(self.p.pid)

    def stop(self):
        try:
            os.killpg(self.p.pid, signal.SIGTERM)
            self.p.wait(120)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        LIVE_PGIDS.remove(self.p.pid)
        self.log.close()


def wait_for(what, done, timeout):
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            die(f"{what} did not happen in {timeout} s")
        time.sleep(0.2)


def pending_or_running(kind):
    return int(psql(DB, "SELECT count(*) FROM awc.jobs WHERE kind = "
                    f"'{kind}' AND state IN ('PENDING', 'RUNNING')"))


class Bench:
    def __init__(self, args):
        self.build = args.build_dir
        self.snapshots = env_int("BENCH_FAIR_SNAPSHOTS", 100)
        self.files = env_int("BENCH_FAIR_FILES", 32)
        self.imports = env_int("BENCH_FAIR_IMPORTS", 50)
        self.gap = env_int("BENCH_FAIR_GAP_MS", 400) / 1000.0
        self.budget = env_int("BENCH_FAIR_BUDGET_MB", 40)
        self.concurrency = env_list("BENCH_FAIR_CONCURRENCY", [2, 4])
        self.tmp = tempfile.mkdtemp(prefix="awc-fair-",
                                    dir=os.environ.get("BENCH_TMPDIR"))
        self.store = os.path.join(self.tmp, "cas")
        self.results = os.environ.get("BENCH_FAIR_RESULTS") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "results",
            f"fairness-{datetime.date.today().isoformat()}.txt")
        self.env = dict(os.environ, DATABASE_URL=db_url(DB),
                        AWC_CAS_URL="file://" + self.store,
                        AWC_SCHEDULER="off", AWC_LOG_LEVEL="info",
                        AWC_WORKER_ID="bench-fair",
                        AWC_SCRUB_BUDGET_MB_PER_SEC=str(self.budget))
        self.runs = 0

    def daemon(self, workers, places=None):
        env = dict(self.env, AWC_WORKER_CONCURRENCY=str(workers))
        if places is not None:
            env["AWC_WORKER_BACKGROUND_CONCURRENCY"] = str(places)
        self.runs += 1
        return Daemon(self.build, env,
                      os.path.join(self.tmp, f"daemon-{self.runs}.log"))

    def setup(self):
        drop_db(DB)
        create_db(DB)
        awcctl(self.build, self.env, "migrate")
        awcctl(self.build, self.env, "store", "init", "file://" + self.store)
        d = self.daemon(2)
        tree = os.path.join(self.tmp, "tree")
        for i in range(self.snapshots):
            shutil.rmtree(tree, ignore_errors=True)
            write_tree(tree, self.files, f"big-{i}")
            awcctl(self.build, self.env, "import", "--tenant", "t1", tree)
        wait_for("the big snapshots' validation",
                 lambda: pending_or_running("snapshot_validate") == 0, 3600)
        d.stop()
        self.big_bytes = int(psql(DB, "SELECT coalesce(sum(byte_count), 0) "
                                  "FROM awc.snapshots WHERE state = 'READY'"))

    def shared(self):
        """(objects the plain scrubs read, unique objects of their
        closures) for BENCH_FAIR_SHARED snapshots of one tree."""
        n = env_int("BENCH_FAIR_SHARED", 10)
        files = env_int("BENCH_FAIR_SHARED_FILES", 2000)
        psql(DB, "DELETE FROM awc.jobs")
        d = self.daemon(2)
        try:
            tree = os.path.join(self.tmp, "shared")
            shutil.rmtree(tree, ignore_errors=True)
            for i in range(files):
                sub = os.path.join(tree, f"d{i // 100:03d}")
                os.makedirs(sub, exist_ok=True)
                with open(os.path.join(sub, f"f{i:05d}"), "wb") as out:
                    out.write(f"shared file {i}".encode() * 20)
            ids = []
            for step in range(n):
                with open(os.path.join(tree, "d000", "f00000"), "wb") as out:
                    out.write(f"changed {step}".encode())
                ids.append(int(awcctl(self.build, self.env, "import",
                                      "--tenant", "t3", tree).strip()))
            wait_for("the shared snapshots' validation",
                     lambda: pending_or_running("snapshot_validate") == 0,
                     3600)
            psql(DB, "UPDATE awc.objects SET verified_at = NULL "
                 "WHERE tenant_id = 't3'",
                 "INSERT INTO awc.jobs (kind, payload) SELECT "
                 "'snapshot_scrub', jsonb_build_object('snapshot_id', id) "
                 "FROM awc.snapshots WHERE tenant_id = 't3' AND state = "
                 "'READY' ORDER BY id")
            wait_for("the plain scrubs",
                     lambda: pending_or_running("snapshot_scrub") == 0, 3600)
        finally:
            d.stop()
        read = int(psql(DB, "SELECT coalesce(sum((result->>'read')::int), 0) "
                        "FROM awc.jobs WHERE kind = 'snapshot_scrub' AND "
                        "state = 'COMPLETED'"))
        unique = int(psql(DB, "SELECT count(DISTINCT o.digest) FROM "
                          "awc.snapshot_objects o JOIN awc.snapshots s ON "
                          "s.id = o.snapshot_id WHERE s.tenant_id = 't3'"))
        return len(ids), read, unique

    def run(self, workers, setting):
        places = None if setting == "places" else workers
        priorities = ("UPDATE awc.kind_settings SET priority = 4"
                      if setting == "off" else
                      "UPDATE awc.kind_settings SET priority = CASE kind "
                      "WHEN 'snapshot_validate' THEN 2 WHEN 'snapshot_scrub' "
                      "THEN 7 WHEN 'store_reconcile' THEN 7 WHEN 'gc_sweep' "
                      "THEN 7 ELSE 4 END")
        limit = workers - 1 if setting == "limit" else "NULL"
        psql(DB, "UPDATE awc.objects SET verified_at = NULL",
             "DELETE FROM awc.jobs", priorities,
             f"UPDATE awc.kind_settings SET host_limit = {limit} "
             "WHERE kind = 'snapshot_scrub'")
        d = self.daemon(workers, places)
        try:
            psql(DB, "INSERT INTO awc.jobs (kind, payload) SELECT "
                 "'snapshot_scrub', jsonb_build_object('snapshot_id', id) "
                 "FROM awc.snapshots WHERE state = 'READY' ORDER BY id")
            tree = os.path.join(self.tmp, "small")
            for i in range(self.imports):
                started = time.monotonic()
                shutil.rmtree(tree, ignore_errors=True)
                write_tree(tree, 3, f"small-{self.runs}-{i}")
                awcctl(self.build, self.env, "import", "--tenant", "t2", tree)
                time.sleep(max(0.0, self.gap - (time.monotonic() - started)))
            wait_for("the wave", lambda: pending_or_running(
                "snapshot_scrub") + pending_or_running(
                    "snapshot_validate") == 0, 7200)
        finally:
            d.stop()
        ready = sorted(float(x) for x in psql(
            DB, "SELECT extract(epoch FROM finished_at - created_at) FROM "
            "awc.jobs WHERE kind = 'snapshot_validate' AND state = "
            "'COMPLETED'").split())
        wave = float(psql(DB, "SELECT extract(epoch FROM max(finished_at) - "
                          "min(created_at)) FROM awc.jobs WHERE kind = "
                          "'snapshot_scrub'"))
        read = int(psql(DB, "SELECT coalesce(sum((result->>'read')::int), 0) "
                        "FROM awc.jobs WHERE kind = 'snapshot_scrub'"))
        return ready, wave, read


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    args = ap.parse_args()
    require_durable("make bench-fairness")
    started = time.monotonic()
    b = Bench(args)
    log(f"importing {b.snapshots} snapshots of {b.files} x {FILE_KIB} KiB")
    b.setup()
    bound = b.big_bytes / (b.budget * 1e6)
    pg = psql("postgres", "SHOW server_version")
    lines = run_header(
        f"{pg}, fsync on, synchronous_commit on",
        f"workload    {b.snapshots} plain scrubs of {b.files} x {FILE_KIB} "
        f"KiB snapshots ({b.big_bytes / 1e6:.0f} MB) at a read budget of "
        f"{b.budget} MB/s; {b.imports} imports of 3 files, one every "
        f"{b.gap * 1000:.0f} ms, during the wave",
        "")
    lines.append(f"{'workers':>7}  {'setting':<8} {'p50 s':>7} {'p99 s':>7} "
                 f"{'max s':>7}  {'wave s':>7} {'bound s':>7} {'ratio':>6}")
    for c in b.concurrency:
        for name in ("places", "limit", "prio", "off"):
            log(f"{c} workers, {name}")
            ready, wave, read = b.run(c, name)
            if len(ready) < b.imports:
                die(f"{len(ready)} of {b.imports} validations completed")
            lines.append(
                f"{c:>7}  {name:<8} {percentile(ready, 50):>7.2f} "
                f"{percentile(ready, 99):>7.2f} {ready[-1]:>7.2f}  "
                f"{wave:>7.1f} {bound:>7.1f} {wave / bound:>6.2f}")
    lines += ["", "p50/p99/max: a small snapshot's validation, from its "
              "job's insertion to its completion (database clock);",
              "wave: the scrubs' insertion to the last one's completion; "
              "bound: the bytes they read at the budget's rate."]
    log("plain scrubs over shared content")
    n, read, unique = b.shared()
    lines += ["", f"plain scrubs over shared content: {n} snapshots, "
              f"{unique} unique objects, {read} read: "
              f"{read / max(1, unique):.2f} x the unique objects"]
    drop_db(DB)
    shutil.rmtree(b.tmp, ignore_errors=True)
    write_report(lines, started, b.results)


if __name__ == "__main__":
    main()
