#!/usr/bin/env python3
"""The queue benchmark of awc-worker (make bench; see bench/README.md).

Runs inside `pg_virtualenv -t -o fsync=on` (PGHOST, PGPORT, PGUSER,
PGPASSWORD are set) on a durable cluster (fsync and synchronous_commit on;
it refuses any other) and measures, on a fresh database per run:

  1. throughput: N pre-filled bench_noop jobs drained by the real daemon
     (awc-worker-bench) with C workers, in jobs/s from the database's
     timestamps (first to last finished_at), so the daemon's startup is not
     counted;
  2. the peers, on the same cluster with the same N: graphile-worker
     (npm, a no-op task, `-j C --once`), and pgbench running the worker's
     own SQL (record + claim in one transaction per job, and the lease
     sweep) with C clients, with a synchronous and an asynchronous commit;
  3. per job, for each: commits, round trips (TCP segments carrying data
     into the server), WAL bytes and WAL flushes, CPU of the client and of
     PostgreSQL;
  4. idle pickup latency: bench_stamp jobs inserted one at a time into an
     idle fleet; pickup = handler start (started_at) - the producer's
     COMMIT returning, beside handler start - created_at (the INSERT) and
     the producer's own INSERT -> COMMIT.

Every configuration runs `--repeat` times (interleaved, so slow drift hits
all of them alike); tables show the median and every run. Standard library
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

sys.dont_write_bytecode = True  # no bench/__pycache__ from the imports below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (PgCpu, Session, create_db, die, drop_db,  # noqa: E402
                          env_int, env_list, log, psql, require_durable,
                          write_report)
from queue_daemon import Daemon, run_daemon  # noqa: E402
from queue_graphile import (GRAPHILE_TEMPLATE_DB,  # noqa: E402
                            add_graphile_argument,
                            make_graphile_template, run_graphile)
from queue_latency import run_latency  # noqa: E402
from queue_pgbench import run_pgbench, write_scripts  # noqa: E402
from queue_report import machine_info, report  # noqa: E402

TEMPLATE_DB = "awc_bench_template"


# --------------------------------------------------------------- the bench

class Bench:
    """What every run shares: the programs (checked), the pgbench scripts,
    the scratch directory, the admin session (which refuses a cluster not
    at PostgreSQL's default durability), the cluster's CPU, and the
    databases: the migrated template and a fresh copy of it per run. The
    runs themselves are in queue_daemon.py, queue_graphile.py,
    queue_pgbench.py and queue_latency.py. With pgbench=False (the pinned
    horizon, queue_horizon.py) only the daemon is needed and no pgbench
    script is written; make_target names the target that starts the
    durable cluster the suite requires."""

    def __init__(self, args, pgbench=True, make_target="make bench"):
        self.a = args
        self.daemon_bin = os.path.join(args.build_dir, "bench", "awc-worker-bench")
        script_bin = os.path.join(args.build_dir, "bench",
                                  "awc-bench-pgbench-script")
        for b in [self.daemon_bin] + ([script_bin] if pgbench else []):
            if not os.access(b, os.X_OK):
                die(f"{b} is missing; build with -DAWC_BUILD_BENCH=ON")
        self.pgbench = self.scripts = None
        if pgbench:
            bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True,
                                    text=True).stdout.strip()
            self.pgbench = os.path.join(bindir, "pgbench") if bindir else "pgbench"
            if not os.access(self.pgbench, os.X_OK):
                self.pgbench = shutil.which("pgbench") or die("pgbench not found")
        self.workdir = tempfile.mkdtemp(prefix="awc-bench-")
        if pgbench:
            self.scripts = write_scripts(script_bin, self.workdir)
        self.graphile = self.a.graphile
        if self.graphile and not os.access(self.graphile, os.X_OK):
            die(f"{self.graphile} is missing: make deps-bench installs "
                "graphile-worker (or set BENCH_GRAPHILE=off)")
        self.graphile_version = ""
        self.seq = 0
        self.admin = Session("postgres")
        require_durable(make_target)
        backend = int(self.admin.query("SELECT pg_backend_pid()"))
        self.pg_cpu = PgCpu(PgCpu._stat(backend)[0])

    # -- databases

    def make_template(self):
        """A migrated empty database; every run copies it."""
        drop_db(TEMPLATE_DB)
        create_db(TEMPLATE_DB)
        d = Daemon(self.daemon_bin, TEMPLATE_DB, 1, "warn", self.workdir,
                   tag="migrate")
        s = Session(TEMPLATE_DB)
        deadline = time.monotonic() + 60
        while s.query("SELECT to_regclass('awc.jobs') IS NOT NULL") != "t":
            d.check_alive()
            if time.monotonic() > deadline:
                die("migrations did not finish within 60 s")
            time.sleep(0.05)
        s.close()
        d.stop()
        self.migrations = psql(
            TEMPLATE_DB,
            "SELECT string_agg(version::text, ',' ORDER BY version) "
            "FROM awc.schema_migrations")

    def fresh_db(self, jobs, kind="bench_noop"):
        self.seq += 1
        name = f"awc_bench_{self.seq}"
        drop_db(name)
        create_db(name, TEMPLATE_DB)
        if jobs:
            psql(name,
                 "INSERT INTO awc.jobs (kind, payload) "
                 f"SELECT '{kind}', '{{}}' FROM generate_series(1, {jobs})",
                 "VACUUM ANALYZE awc.jobs",
                 "CHECKPOINT")
        return name

    @staticmethod
    def drain_stats(db, expect):
        """(jobs/s by finished_at, autovacuum + autoanalyze runs on awc.jobs)"""
        row = psql(db,
                   "SELECT count(*) FILTER (WHERE state = 'COMPLETED'), "
                   "count(*), "
                   "extract(epoch FROM max(finished_at) - min(finished_at)), "
                   "(SELECT autovacuum_count + autoanalyze_count "
                   "   FROM pg_stat_user_tables WHERE relid = 'awc.jobs'::regclass) "
                   "FROM awc.jobs").split("|")
        completed, total, span = int(row[0]), int(row[1]), float(row[2] or 0)
        if completed != expect:
            die(f"{db}: {completed} of {total} jobs COMPLETED, expected {expect}")
        # N completions span N-1 intervals between the first and the last.
        rate = (completed - 1) / span if span > 0 else float("nan")
        return rate, int(row[3] or 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--jobs", type=int, default=env_int("BENCH_JOBS", 20000),
                    help="jobs per throughput run (BENCH_JOBS, 20000)")
    ap.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_CONCURRENCY", [2, 4, 8]),
                    help="worker counts (BENCH_CONCURRENCY, 2,4,8)")
    ap.add_argument("--repeat", type=int, default=env_int("BENCH_REPEAT", 3),
                    help="runs per configuration; the median is reported "
                         "(BENCH_REPEAT, 3)")
    ap.add_argument("--pgbench", default=os.environ.get(
                        "BENCH_PGBENCH", "sync async"),
                    help="pgbench variants: sync, async, bare (BENCH_PGBENCH, "
                         "'sync async'; 'off' for none)")
    add_graphile_argument(ap)
    ap.add_argument("--daemon-before", default=os.environ.get(
                        "BENCH_DAEMON_BEFORE", ""),
                    help="another awc-worker-bench (say, built from the "
                         "previous commit) to run beside this one "
                         "(BENCH_DAEMON_BEFORE)")
    ap.add_argument("--info-workers", type=int,
                    default=env_int("BENCH_INFO_WORKERS", 2),
                    help="C of the extra run with AWC_LOG_LEVEL=info "
                         "(BENCH_INFO_WORKERS, 2; 0 skips it)")
    ap.add_argument("--latency-workers", type=int,
                    default=env_int("BENCH_LATENCY_WORKERS", 2))
    ap.add_argument("--latency-samples", type=int,
                    default=env_int("BENCH_LATENCY_SAMPLES", 200))
    ap.add_argument("--latency-gap-ms", type=int,
                    default=env_int("BENCH_LATENCY_GAP_MS", 50))
    ap.add_argument("--lease", type=int, default=300)
    ap.add_argument("--reclaim-every", type=int,
                    default=env_int("BENCH_RECLAIM_EVERY", 1000),
                    help="pgbench clients run the lease sweep every this many "
                         "jobs (BENCH_RECLAIM_EVERY, 1000)")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds one drain may take")
    ap.add_argument("--results", default=os.environ.get("BENCH_RESULTS", ""),
                    help="results file (BENCH_RESULTS; default "
                         "bench/results/queue-<date>.txt)")
    a = ap.parse_args()
    if a.graphile == "off":
        a.graphile = ""
    variants = [v for v in a.pgbench.split() if v != "off"]
    for v in variants:
        if v not in ("sync", "async", "bare"):
            die(f"unknown pgbench variant {v!r} (sync, async, bare)")
    # make's ^C or a SIGTERM: exit through atexit, which stops the daemons.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for k in ("PGHOST", "PGPORT", "PGUSER", "PGPASSWORD"):
        if k not in os.environ:
            die(f"{k} is not set: run under pg_virtualenv (make bench)")
    results = a.results or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results",
        f"queue-{datetime.date.today().isoformat()}.txt")

    started = time.monotonic()
    bench = Bench(a)
    header = machine_info(bench)
    log("\n  ".join(["machine:"] + header))
    bench.make_template()
    if a.graphile:
        make_graphile_template(bench)

    if a.daemon_before and not os.access(a.daemon_before, os.X_OK):
        die(f"{a.daemon_before} is not an executable")
    kinds = ["daemon"] + (["before"] if a.daemon_before else []) + \
        (["graphile"] if a.graphile else []) + \
        [f"pgbench-{v}" for v in variants]
    runs = {k: {c: [] for c in a.concurrency} for k in kinds}
    info = []
    lat = []
    for rep in range(1, a.repeat + 1):
        for c in a.concurrency:
            for k in kinds:
                if k == "daemon":
                    r = run_daemon(bench, c)
                elif k == "before":
                    r = run_daemon(bench, c, binary=a.daemon_before)
                elif k == "graphile":
                    r = run_graphile(bench, c)
                else:
                    r = run_pgbench(bench, c, k[len("pgbench-"):])
                log(f"run {rep}/{a.repeat} C={c} {k:<13} {r['rate']:8.0f}/s "
                    f"commits {r['commits']:.2f} round trips "
                    f"{r['round_trips']:.2f} WAL {r['wal_bytes']:.0f} B "
                    f"flushes {r['wal_flushes']:.3f} CPU "
                    f"{r['client_cpu_us']:.0f}+{r['pg_cpu_us']:.0f} us")
                runs[k][c].append(r)
        if a.info_workers > 0:
            r = run_daemon(bench, a.info_workers, "info")
            log(f"run {rep}/{a.repeat} C={a.info_workers} daemon, log level "
                f"info {r['rate']:8.0f} jobs/s")
            info.append(r)
        r = run_latency(bench)
        log(f"run {rep}/{a.repeat} pickup p50 {r['commit']['p50']:.2f} ms "
            f"p99 {r['commit']['p99']:.2f} ms; from the INSERT p50 "
            f"{r['p50']:.2f} ms p99 {r['p99']:.2f} ms; producer's commit "
            f"p50 {r['own']['p50']:.2f} ms")
        lat.append(r)
    drop_db(TEMPLATE_DB)
    if a.graphile:
        drop_db(GRAPHILE_TEMPLATE_DB)
    bench.admin.close()
    shutil.rmtree(bench.workdir, ignore_errors=True)

    write_report(report(a, header, bench.migrations, runs, info, lat,
                        bench.graphile_version),
                 started, results)


if __name__ == "__main__":
    main()
