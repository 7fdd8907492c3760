#!/usr/bin/env python3
"""The queue's commits across crashes: no job lost, no effect lost.

The worker commits its claims and records without waiting for their WAL
flush (docs/queue.md, "Durability of the queue's commits"); a crash
of the server may undo the latest of them. This test makes that happen
over and over and checks that it only ever makes jobs run again:

  - a cluster of its own, durable (fsync on, as on a real server), whose
    WAL writer flushes only every 10 s, so that between two synchronous
    commits every asynchronous one is still in memory when the server dies;
  - one fleet of the test daemon (4 workers, 2 s leases) draining
    test_effect jobs (each appends an effect row under its lease fence in a
    synchronous transaction, then completes) and test_complete jobs (no
    effect: their claim and record are only ever committed asynchronously);
  - rounds of: enqueue jobs, wait until the fleet has got through some of
    them, SIGKILL a worker, `pg_ctl stop -m immediate`, start again;
  - then the queue drains, and the chaos suite's checks (checks.py) hold:
    every enqueued job is there and COMPLETED (max_attempts is out of
    reach here: a FAILED job is a violation), every COMPLETED test_effect
    job has the effect of its last claim, no effect of a claim after the
    last one, at most one effect per claim, none after its job was
    recorded COMPLETED.

`--rounds` (default 5). Standard library only; runs under ctest as
`durability` (label chaos).
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checks import Checker  # noqa: E402
from fleet import Fleet, sanitizer_reports, tear_down  # noqa: E402
from pgcluster import Cluster, PgError, client_env  # noqa: E402
from workload import SCHEMA, enqueue_sql  # noqa: E402

DB = "durability"
JOBS_PER_ROUND = 400
LEASE_SECS = 2


def log(msg):
    print(f"[durability {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Run:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.work = tempfile.mkdtemp(prefix="awc-durability.")
        build = os.path.abspath(args.build_dir)
        self.testd = os.path.join(build, "tests", "awc-worker-testd")
        self.awcctl = os.path.join(build, "awcctl")
        self.pg = Cluster(self.work)
        self.conf = os.path.join(self.work, "empty.conf")
        open(self.conf, "w").close()
        self.fleet = None
        self.violations = []

    def sql(self, statement, deadline=None):
        """Runs `statement`, retrying while the server comes back."""
        deadline = deadline or time.monotonic() + 120
        while True:
            try:
                return self.pg.psql(DB, statement)
            except PgError as e:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the database stayed unreachable: "
                                       f"{e}") from None
                time.sleep(0.2)

    def setup(self):
        # The WAL writer's longest delay: asynchronous commits stay in WAL
        # buffers until a synchronous commit (or 10 s) flushes them.
        self.pg.init(durable=True, extra="wal_writer_delay = 10s\n")
        self.pg.start()
        self.pg.psql("postgres", f"CREATE DATABASE {DB}")
        r = subprocess.run([self.awcctl, "migrate"], capture_output=True,
                           text=True, env=client_env(
                               {"DATABASE_URL": self.pg.url(DB),
                                "AWC_CONFIG": self.conf}))
        if r.returncode != 0:
            raise RuntimeError(f"awcctl migrate: {r.stderr.strip()}")
        self.pg.psql(DB, SCHEMA)
        self.fleet = Fleet("durability-fleet", self.testd, {
            "AWC_CONFIG": self.conf, "AWC_SCHEDULER": "off",
            "DATABASE_URL": self.pg.url(DB), "AWC_CAS_URL": "memory://",
            "AWC_WORKER_ID": "durable", "AWC_WORKER_CONCURRENCY": "4",
            "AWC_WORKER_LEASE_SECS": str(LEASE_SECS),
            "AWC_WORKER_POLL_INTERVAL_MS": "100", "AWC_LOG_LEVEL": "warn"},
            self.work)
        self.fleet.start()

    def enqueue(self):
        effect = [{"ms": 0 if self.rng.random() < 0.8 else
                   self.rng.randint(1, 20)} for _ in range(JOBS_PER_ROUND // 2)]
        self.sql(enqueue_sql("test_effect", effect, "ok", max_attempts=100))
        self.sql(enqueue_sql("test_complete", [{}] * (JOBS_PER_ROUND // 2),
                             "ok", max_attempts=100))

    def done(self):
        return int(self.sql("SELECT count(*) FROM awc.jobs WHERE state = "
                            "'COMPLETED'")[0][0])

    def round(self, n):
        before = self.done()
        self.enqueue()
        # Crash in the middle of the work: once the fleet has completed a
        # quarter of this round's jobs (whatever the machine's speed).
        deadline = time.monotonic() + 120
        while self.done() < before + JOBS_PER_ROUND // 4:
            if time.monotonic() > deadline:
                raise RuntimeError("the fleet makes no progress: "
                                   + self.fleet.log_tail())
            time.sleep(0.02)
        workers = sorted(p for p, _ in self.fleet.workers())
        if workers:
            os.kill(self.rng.choice(workers), signal.SIGKILL)
        self.pg.stop_immediate()
        self.pg.close_sessions()
        self.pg.start()
        log(f"round {n}: worker killed, server crashed at "
            f"{self.done()} completed jobs (before the round {before})")

    def drain(self):
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            self.sql("UPDATE awc.jobs SET run_at = now() WHERE state = "
                     "'PENDING' AND run_at > now()")
            left = int(self.sql("SELECT count(*) FROM awc.jobs WHERE state "
                                "IN ('PENDING', 'RUNNING')")[0][0])
            if left == 0:
                return
            time.sleep(0.3)
        self.violations.append("the queue did not drain in 300 s")

    def check(self):
        c = Checker(self.pg, os.path.join(self.work, "no-store"))
        jobs = c.jobs(DB)
        c.effects(DB, jobs)
        for jid, j in sorted(jobs.items()):
            if j["state"] != "COMPLETED":
                c.bad(f"job {jid} ({j['kind']}) ended {j['state']}, not "
                      f"COMPLETED: {j['error']!r}")
        enqueued = int(self.sql("SELECT count(*) FROM awc_test.enqueued")[0][0])
        if enqueued != self.args.rounds * JOBS_PER_ROUND:
            c.bad(f"{enqueued} jobs enqueued, expected "
                  f"{self.args.rounds * JOBS_PER_ROUND}")
        reruns = sum(1 for j in jobs.values() if j["attempts"] > 1)
        reclaimed = sum(1 for j in jobs.values()
                        if "lease expired" in j["error"])
        log(f"{len(jobs)} jobs checked, {c.counts['effects checked']} "
            f"effects; {reruns} ran more than once, {reclaimed} of them "
            "after a lease expired (a record or a worker lost)")
        for line in sanitizer_reports(self.fleet):
            c.bad(f"fleet: {line}")
        return self.violations + c.violations

    def cleanup(self, keep):
        fleets = [self.fleet] if self.fleet else []
        tear_down(fleets, self.pg, self.work, keep, log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int,
                    default=random.SystemRandom().randrange(1, 2**31))
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    log(f"seed {args.seed}, {args.rounds} rounds")
    run = Run(args)
    violations = ["did not finish"]
    try:
        run.setup()
        for n in range(1, args.rounds + 1):
            run.round(n)
        run.drain()
        status = run.fleet.stop()
        violations = run.check()
        if status != 0:
            violations.append(f"the master exited with {status} on SIGTERM")
    finally:
        run.cleanup(keep=args.keep or bool(violations))
    for v in violations[:100]:
        print(f"durability: VIOLATION {v}", flush=True)
    print("durability: PASS" if not violations else "durability: FAIL",
          flush=True)
    return 0 if not violations else 1


if __name__ == "__main__":
    sys.exit(main())
