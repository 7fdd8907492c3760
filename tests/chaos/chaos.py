#!/usr/bin/env python3
"""The chaos suite of awc-worker (make chaos; a short run in make check).

Two fleets of the test daemon (awc-worker-testd: the daemon plus test
handlers), one over a file:// store and one over memory://, each on its own
database of a PostgreSQL cluster this script makes and crashes itself,
drain thousands of jobs of every kind that a producer (workload.py) keeps
inserting, while a driver injects faults at random:

  worker SIGKILL     a random worker of either fleet
  master SIGKILL     once per run, the file fleet's master; a new one is
                     started (the old workers finish their job and exit)
  postgres crash     `pg_ctl -m immediate` stop, then start again
  backend kill       pg_terminate_backend() of random daemon, awcctl or
                     producer sessions
  store stall        SIGSTOP of a worker that runs a validate, scrub or gc
                     job on the file:// store (in the middle of its store
                     reads, deletes and commits) for 0.3-2 leases, then
                     SIGCONT: its lease may expire and the job move on
  horizon pin        at least once per run, a session of either database
                     holds an xid, idle in transaction, for 1-3 leases:
                     vacuum reclaims nothing
                     meanwhile and every claim made then leaves its dead
                     index entry (docs/queue.md, "The claim cursor")
  unmounted store    at least once per run, the file:// store's or the
                     repair store's volume is unmounted for 0.3-1.5 leases
                     (its directory moved aside, an empty one in its
                     place): no job may call anything missing meanwhile
  read-only spell    at least once per run, one database's new sessions
                     are read-only (ALTER DATABASE ... SET
                     default_transaction_read_only) for 1-3 s and its
                     fleet's sessions are terminated, so that they
                     reconnect into it, as after a failover to a server
                     that is still a standby; then it is reset: the fleet
                     waits, loses no job and goes on

The file:// store is laid out against itself for the whole run: a
tenant's directory that is a link to another's, a tenant whose fan-outs
are links to another's (workload.py, HOSTILE_TENANTS); their
reconciliations and GC epochs run beside the others'.

The memory:// database is served by two builds at once, as a fleet being
upgraded host by host is (docs/operations.md, "Rolling upgrades"): beside
the test daemon runs awc-worker-testd-next, which stands for the next
release (one migration more, compatible, applied when it starts; one job
kind more, test_next_kind, which the older workers must leave to it).

The file fleet has a repair store (AWC_CAS_REPAIR_URL), a file:// replica
the producer fills now and then with what the store has (workload.py), so
that a scrub finding an object lost or damaged can repair some and not
others.

Then the faults stop, the queue drains, the producer validates what was
left VALIDATING, reconciles every tenant's store with its inventory,
scrubs every READY snapshot and sweeps every tenant once more, the fleets
stop, and checks.py checks the invariants. The run prints
its seed (CHAOS_SEED / --seed replays the same decisions), the faults by
type, the jobs by kind and state, what was checked and every violation;
it exits 1 on any violation. Standard library only.
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checks import Checker  # noqa: E402
from fleet import Fleet, sanitizer_reports, tear_down  # noqa: E402
from pgcluster import Cluster, PgError, Session, client_env  # noqa: E402
from workload import (HOSTILE_TENANTS, TENANTS, Producer,  # noqa: E402
                      enqueue_sql)

LEASE_SECS = 3
FILE_DB, MEM_DB = "chaos_file", "chaos_mem"
STORE_KINDS = ["snapshot_validate", "snapshot_scrub", "gc_sweep"]
# What an import may fail with while the database crashes or its session is
# terminated.
IMPORT_FAULT = re.compile(r"database connection|server closed the "
                          r"connection|terminating connection|shutting down|"
                          r"not yet accepting connections|in recovery mode|"
                          r"read-only")
# The application_name prefix of each fleet's sessions (AWC_WORKER_ID).
FLEET_IDS = {FILE_DB: "chaos-file", MEM_DB: "chaos-mem"}


def log(msg):
    print(f"[chaos {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Run:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.faults = Counter()
        self.stats = Counter()
        self.violations = []
        self.stalled = {}  # pid -> when to SIGCONT
        self.pin = None  # (the pinning session, when to release it)
        self.away = None  # (the unmounted directory, when to mount it)
        self.spell = None  # (the read-only database, when to reset it)
        self.work = tempfile.mkdtemp(prefix="awc-chaos.")
        build = os.path.abspath(args.build_dir)
        self.testd = os.path.join(build, "tests", "awc-worker-testd")
        self.testd_next = os.path.join(build, "tests",
                                       "awc-worker-testd-next")
        self.awcctl = os.path.join(build, "awcctl")
        self.store = os.path.join(self.work, "cas")
        self.replica = os.path.join(self.work, "replica")
        self.pg = Cluster(self.work)
        # An empty settings file: nothing but this run's environment counts
        # (not a settings file installed on the machine).
        self.conf = os.path.join(self.work, "empty.conf")
        open(self.conf, "w").close()

    # --------------------------------------------------------------- setup
    def setup(self):
        self.pg.init()
        self.pg.start()
        for db in (FILE_DB, MEM_DB):
            self.pg.psql("postgres", f"CREATE DATABASE {db}")
            self.awcctl_run(db, "migrate")
        self.awcctl_run(FILE_DB, "store", "init", "file://" + self.store)
        self.awcctl_run(FILE_DB, "store", "init", "file://" + self.replica)
        self.producer = Producer(self.rng, self.pg, FILE_DB, MEM_DB,
                                 self.store, self.awcctl, self.conf,
                                 self.work, self.stats, self.replica)
        self.producer.setup()
        # No scheduler: every job of the run is the producer's, so that
        # each one can be accounted for.
        common = {"AWC_CONFIG": self.conf, "AWC_SCHEDULER": "off",
                  "AWC_WORKER_LEASE_SECS": str(LEASE_SECS),
                  "AWC_WORKER_POLL_INTERVAL_MS": "100",
                  "AWC_LOG_LEVEL": "warn", "AWC_GC_GRACE_SECS": "2",
                  "AWC_GC_BATCH_SIZE": "25", "AWC_GC_CANARY_SIZE": "5",
                  "AWC_RETENTION_GRACE_SECS": "2"}
        self.file_fleet = Fleet("file-fleet", self.testd, {
            **common, "DATABASE_URL": self.pg.url(FILE_DB),
            "AWC_CAS_URL": "file://" + self.store,
            "AWC_CAS_REPAIR_URL": "file://" + self.replica,
            "AWC_WORKER_ID": "chaos-file", "AWC_WORKER_CONCURRENCY": "3"},
            self.work)
        self.mem_fleet = Fleet("memory-fleet", self.testd, {
            **common, "DATABASE_URL": self.pg.url(MEM_DB),
            "AWC_CAS_URL": "memory://", "AWC_WORKER_ID": "chaos-mem",
            "AWC_WORKER_CONCURRENCY": "2"}, self.work)
        # The next release beside the memory fleet: it migrates that
        # database when it starts, and the older fleet runs on.
        self.next_fleet = Fleet("memory-next-fleet", self.testd_next, {
            **common, "DATABASE_URL": self.pg.url(MEM_DB),
            "AWC_CAS_URL": "memory://", "AWC_WORKER_ID": "chaos-next",
            "AWC_WORKER_CONCURRENCY": "1"}, self.work)
        self.fleets = [self.file_fleet, self.mem_fleet, self.next_fleet]
        for f in self.fleets:
            f.start()
        # A producer enqueues the next release's kind once that release
        # runs somewhere: before its first worker's heartbeat says so, the
        # older workers rightly dead-letter the kind as unknown.
        deadline = time.monotonic() + 60
        while not self.pg.psql(
                MEM_DB, "SELECT 1 FROM awc.workers WHERE 'test_next_kind' = "
                "ANY (kinds) AND state <> 'stopped'"):
            if time.monotonic() > deadline:
                raise RuntimeError("the next release's fleet did not start")
            time.sleep(0.1)

    def awcctl_run(self, db, *args):
        r = subprocess.run([self.awcctl, *args], capture_output=True,
                           text=True, env=client_env(
                               {"DATABASE_URL": self.pg.url(db),
                                "AWC_CONFIG": self.conf}))
        if r.returncode != 0:
            raise RuntimeError(f"awcctl {' '.join(args)}: {r.stderr.strip()}")

    # -------------------------------------------------------------- faults
    def kill_worker(self):
        fleet = self.rng.choice(self.fleets)
        workers = sorted(p for p, _ in fleet.workers())
        if not workers:
            return
        os.kill(self.rng.choice(workers), signal.SIGKILL)
        self.faults["worker SIGKILL"] += 1

    def kill_master(self):
        self.file_fleet.kill_master()
        self.faults["master SIGKILL"] += 1
        time.sleep(self.rng.uniform(0.2, 1.0))
        self.file_fleet.start()

    def crash_postgres(self):
        self.pg.stop_immediate()
        self.faults["postgres crash (pg_ctl -m immediate)"] += 1
        time.sleep(self.rng.uniform(0.2, 1.5))
        self.pg.start()

    def kill_backends(self):
        try:
            pids = [int(r[0]) for r in self.pg.psql(
                "postgres", "SELECT pid FROM pg_stat_activity WHERE datname "
                f"IN ('{FILE_DB}', '{MEM_DB}') AND backend_type = "
                "'client backend' AND pid <> pg_backend_pid() ORDER BY pid")]
            chosen = self.rng.sample(pids, min(len(pids),
                                               self.rng.randint(1, 3)))
            if chosen:
                self.pg.psql("postgres", "SELECT pg_terminate_backend(p) "
                             f"FROM unnest(ARRAY{chosen}) p")
            self.faults["backend kill (pg_terminate_backend)"] += len(chosen)
        except PgError:
            pass

    def stall_store(self):
        # Jobs are short: look for one in flight for up to a second.
        deadline = time.monotonic() + 1
        while not (busy := sorted(
                p for p in self.file_fleet.busy_workers(STORE_KINDS)
                if p not in self.stalled)):
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)
        pid = self.rng.choice(busy)
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            return
        self.stalled[pid] = time.monotonic() + self.rng.uniform(
            0.3, 2.0) * LEASE_SECS
        self.faults["store stall (SIGSTOP of a busy worker)"] += 1

    def resume_stalls(self, everything=False):
        now = time.monotonic()
        for pid, when in list(self.stalled.items()):
            if everything or when <= now:
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
                del self.stalled[pid]

    def pin_horizon(self):
        if self.pin:
            return
        db = self.rng.choice([FILE_DB, MEM_DB])
        session = Session(self.pg, db)
        try:
            session.query("SET idle_in_transaction_session_timeout = 0; "
                          "BEGIN; SELECT txid_current()", 10)
        except PgError:
            session.close()
            return
        self.pin = (session, time.monotonic() +
                    self.rng.uniform(1.0, 3.0) * LEASE_SECS)
        self.faults["horizon pin (an xid held idle in transaction)"] += 1

    def release_pin(self, everything=False):
        if self.pin and (everything or self.pin[1] <= time.monotonic()):
            try:
                self.pin[0].query("ROLLBACK", 10)
            except PgError:
                pass  # ended by a crash or a backend kill: released too
            self.pin[0].close()
            self.pin = None

    def unmount_store(self):
        """Moves the store's (or the replica's) directory aside and leaves
        an empty one in its place, as unmounting its volume would. Only
        between imports: an import that started before keeps writing to
        the store it opened (a real unmount would refuse a busy volume)."""
        if self.away or self.producer.imports:
            return False
        path = self.rng.choice([self.store, self.replica])
        self.producer.store_away = True
        os.rename(path, path + ".volume")
        os.mkdir(path)
        self.away = (path, time.monotonic() +
                     self.rng.uniform(0.3, 1.5) * LEASE_SECS)
        which = "store" if path == self.store else "repair store"
        self.faults[f"{which} unmounted (an empty mount point)"] += 1
        return True

    def mount_store(self, everything=False):
        if self.away and (everything or self.away[1] <= time.monotonic()):
            path = self.away[0]
            stray = os.listdir(path)
            if stray:
                self.violations.append(
                    f"written into the empty mount point {path}: {stray}")
            shutil.rmtree(path)
            os.rename(path + ".volume", path)
            self.away = None
            self.producer.store_away = False

    def read_only_spell(self):
        """Makes one database's new sessions read-only and ends its
        fleet's sessions, which reconnect into the spell (a failover that
        left the fleet's URL on a standby, a database an operator made
        read-only); end_spell() resets it."""
        if self.spell:
            return
        db = self.rng.choice([FILE_DB, MEM_DB])
        try:
            self.pg.psql("postgres", f"ALTER DATABASE {db} SET "
                         "default_transaction_read_only = on")
        except PgError:
            return  # the server is down: no spell this time
        self.spell = (db, time.monotonic() + self.rng.uniform(1.0, 3.0))
        self.faults["read-only spell (default_transaction_read_only)"] += 1
        try:
            self.pg.psql("postgres", "SELECT pg_terminate_backend(pid) FROM "
                         f"pg_stat_activity WHERE datname = '{db}' AND "
                         f"application_name LIKE '{FLEET_IDS[db]}-%'")
        except PgError:
            pass  # a crash ended them anyway

    def end_spell(self, everything=False):
        if self.spell and (everything or self.spell[1] <= time.monotonic()):
            # Until it is reset the spell goes on: a crash in between is
            # only a reason to try again.
            deadline = time.monotonic() + 60
            while True:
                try:
                    self.pg.psql("postgres", f"ALTER DATABASE {self.spell[0]} "
                                 "RESET default_transaction_read_only")
                    break
                except PgError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            # A producer session opened during the spell keeps it: the next
            # statement gets a new one.
            session = self.pg.sessions.pop(self.spell[0], None)
            if session is not None:
                session.close()
            self.spell = None

    def keep_masters(self):
        for f in self.fleets:
            if not f.master_alive():
                code = f.master.returncode if f.master else None
                self.stats[f"{f.name} master restarts after it exited "
                           f"({code})"] += 1
                f.start()

    # --------------------------------------------------------------- phases
    def chaos(self):
        rng, p = self.rng, self.producer
        start = time.monotonic()
        end = start + self.args.seconds
        next_fault = start + rng.uniform(0.3, 1.2)
        next_crash = start + rng.uniform(0.2, 0.4) * self.args.seconds
        master_kill = start + rng.uniform(0.4, 0.7) * self.args.seconds
        # At least one pin and one unmount a run, however few faults a
        # short run draws.
        first_pin = start + rng.uniform(0.1, 0.4) * self.args.seconds
        first_unmount = start + rng.uniform(0.3, 0.6) * self.args.seconds
        first_spell = start + rng.uniform(0.2, 0.8) * self.args.seconds
        next_backlog, backlog = start, {}
        while (now := time.monotonic()) < end:
            if len(p.imports) < 2 and rng.random() < 0.5:
                p.start_import()
            if now >= next_backlog:
                backlog = self.backlog()
                next_backlog = now + 0.5
            if backlog[MEM_DB] < 300 and rng.random() < 0.8:
                p.effect_jobs(MEM_DB, rng.randint(10, 40))
            if backlog[FILE_DB] < 100 and rng.random() < 0.3:
                p.effect_jobs(FILE_DB, rng.randint(1, 8))
            if rng.random() < 0.3:
                p.storage_jobs()
            if rng.random() < 0.03:
                p.workspace_moves()
            if rng.random() < 0.03:
                p.bad_snapshot()
            if rng.random() < 0.02:
                p.decay()
            if rng.random() < 0.01:
                p.replicate()
            if rng.random() < 0.05:
                p.doomed_jobs()
            p.poll_imports()
            if now >= next_fault:
                rng.choices([self.kill_worker, self.kill_backends,
                             self.stall_store, self.pin_horizon,
                             self.unmount_store, self.read_only_spell],
                            [4, 3, 3, 1, 1, 1])[0]()
                next_fault = now + rng.uniform(0.3, 1.2)
            if now >= next_crash:
                self.crash_postgres()
                next_crash = time.monotonic() + rng.uniform(12, 25)
            if first_pin and now >= first_pin:
                self.pin_horizon()
                first_pin = None
            if first_unmount and now >= first_unmount and (
                    self.away or self.unmount_store()):
                first_unmount = None
            if first_spell and now >= first_spell:
                self.read_only_spell()
                first_spell = None if self.spell else first_spell
            # A master that starts checks the store: not while it is away.
            if master_kill and now >= master_kill and not self.away:
                self.kill_master()
                master_kill = None
            self.resume_stalls()
            self.release_pin()
            self.mount_store()
            self.end_spell()
            self.keep_masters()
            time.sleep(0.02)

    def backlog(self):
        """Ready PENDING jobs per database (the producer keeps the queue
        busy, not flooded: every job must be drained in the end)."""
        out = {}
        for db in (FILE_DB, MEM_DB):
            try:
                out[db] = int(self.pg.psql(db, "SELECT count(*) FROM awc.jobs "
                                           "WHERE state = 'PENDING' AND "
                                           "run_at <= now()")[0][0])
            except PgError:
                out[db] = 10**9
        return out

    def drain(self, deadline, what):
        """Waits until neither database has a PENDING or RUNNING job,
        bringing forward backoffs and deferrals (an operator's retry now)."""
        while time.monotonic() < deadline:
            self.keep_masters()
            self.producer.poll_imports()
            try:
                left = 0
                for db in (FILE_DB, MEM_DB):
                    self.pg.psql(db, "UPDATE awc.jobs SET run_at = now() "
                                 "WHERE state = 'PENDING' AND run_at > now()")
                    left += int(self.pg.psql(db, "SELECT count(*) FROM "
                                             "awc.jobs WHERE state IN "
                                             "('PENDING', 'RUNNING')")[0][0])
                if left == 0 and not self.producer.imports:
                    return True
            except PgError:
                pass
            time.sleep(0.3)
        self.violations.append(f"the queue did not drain ({what}) in time")
        return False

    def final_round(self, deadline):
        """What a producer (or a scheduler) does once things are quiet."""
        self.drain(deadline, "after the faults")
        # A validation that meets an object GC marked waits for GC, and may
        # spend its attempts doing so when the sweeper that marked it died
        # or failed before deleting (a fault): a sweep of each tenant that
        # has such objects first, as the scheduler's gc schedule would run
        # one, resumes its epoch and deletes them.
        marked = [r[0] for r in self.pg.psql(
            FILE_DB, "SELECT DISTINCT tenant_id FROM awc.objects WHERE "
            "state = 'DELETING' ORDER BY 1")]
        stuck = [int(r[0]) for r in self.pg.psql(
            FILE_DB, "SELECT id FROM awc.snapshots WHERE state = "
            "'VALIDATING' ORDER BY id")]
        if stuck and marked:
            self.stats["gc sweeps before the final validations"] += len(
                marked)
            self.pg.psql(FILE_DB, enqueue_sql(
                "gc_sweep", [{"tenant_id": t} for t in marked], "ok"))
            self.drain(deadline, "sweeps before the final validations")
        self.stats["validations re-enqueued for snapshots left "
                   "VALIDATING"] += len(stuck)
        if stuck:
            self.pg.psql(FILE_DB, enqueue_sql(
                "snapshot_validate", [{"snapshot_id": s} for s in stuck],
                "ok"))
            self.drain(deadline, "final validations")
        # Reconciliation once every import has ended and the grace has
        # passed: what a failed import left in the store is an orphan then
        # (during the run it may be an upload on its way to its row).
        time.sleep(2.2)
        self.pg.psql(FILE_DB, enqueue_sql(
            "store_reconcile",
            [{"tenant_id": t} for t in TENANTS + HOSTILE_TENANTS], "ok"))
        self.drain(deadline, "reconciliations")
        self.pg.psql(FILE_DB, "WITH j AS (INSERT INTO awc.jobs (kind, "
                     "payload) SELECT 'snapshot_scrub', jsonb_build_object("
                     "'snapshot_id', id) FROM awc.snapshots WHERE state = "
                     "'READY' RETURNING id) INSERT INTO awc_test.enqueued "
                     "SELECT id, 'ok' FROM j")
        self.drain(deadline, "final scrubs")
        time.sleep(2.2)  # the GC grace: let what was released age
        for _ in range(2):
            self.pg.psql(FILE_DB, enqueue_sql(
                "gc_sweep",
                [{"tenant_id": t} for t in TENANTS + HOSTILE_TENANTS], "ok"))
            self.drain(deadline, "final gc sweeps")

    # ------------------------------------------------------------- summary
    def check(self):
        c = Checker(self.pg, self.store, self.replica)
        for db in (FILE_DB, MEM_DB):
            jobs = c.jobs(db)
            c.effects(db, jobs)
            if db == FILE_DB:
                snaps, live = c.snapshots(db)
                c.gc_safety(db, live, snaps)
                c.orphans(db)
                c.hostile_layout(db, HOSTILE_TENANTS)
                c.audit(db, jobs, snaps)
            else:
                c.mixed_builds(db)
        for f in self.fleets:
            for line in sanitizer_reports(f):
                c.bad(f"{f.name}: {line}")
        return c

    def report(self, c, started):
        out = [f"seed {self.args.seed}; {self.args.seconds:g} s of faults, "
               f"{time.monotonic() - started:.1f} s in all"]
        out.append("faults injected:")
        for k, v in sorted(self.faults.items()):
            out.append(f"  {v:7d}  {k}")
        out.append(f"  {sum(self.faults.values()):7d}  in all")
        out.append("workload:")
        for k, v in sorted(self.stats.items()):
            out.append(f"  {v:7d}  {k}")
        out.append(f"jobs checked: {c.counts['jobs checked']}")
        for (db, kind, state), n in sorted(c.jobs_by.items()):
            out.append(f"  {n:7d}  {db:10s} {kind:20s} {state}")
        out.append("dead letters:")
        for k, v in sorted(c.failed_reasons.items()):
            out.append(f"  {v:7d}  {k}")
        out.append("checked:")
        for k, v in sorted(c.counts.items()):
            if k != "jobs checked":
                out.append(f"  {v:7d}  {k}")
        for e in self.producer.import_errors:
            if not IMPORT_FAULT.search(e) or "Sanitizer" in e:
                c.bad(f"an import failed for no injected fault: {e}")
        violations = self.violations + c.violations
        out.append(f"violations: {len(violations)}")
        for v in violations[:200]:
            out.append(f"  VIOLATION {v}")
        for e in sorted(set(self.producer.import_errors))[:10]:
            out.append(f"  failed import said: {e}")
        print("\n".join("chaos: " + line for line in out), flush=True)
        return not violations

    def cleanup(self, keep):
        tear_down(getattr(self, "fleets", []), self.pg, self.work, keep, log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--seconds", type=float,
                    default=float(os.environ.get("CHAOS_SECONDS") or 300))
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("CHAOS_SEED") or
                                random.SystemRandom().randrange(1, 2**31)))
    ap.add_argument("--keep", action="store_true",
                    help="keep the work directory (kept anyway on failure)")
    args = ap.parse_args()
    log(f"seed {args.seed} (CHAOS_SEED={args.seed} replays its decisions), "
        f"{args.seconds:g} s of faults")
    started = time.monotonic()
    run = Run(args)
    ok = False
    try:
        run.setup()
        log(f"cluster on port {run.pg.port}, work directory {run.work}")
        run.chaos()
        log("faults stopped; draining and final round")
        run.resume_stalls(everything=True)
        run.release_pin(everything=True)
        run.mount_store(everything=True)
        run.end_spell(everything=True)
        run.final_round(time.monotonic() + max(120, args.seconds))
        for f in run.fleets:
            status = f.stop()
            if status != 0:
                run.violations.append(f"{f.name}: master exited with "
                                      f"{status} on SIGTERM")
        ok = run.report(run.check(), started)
    finally:
        run.cleanup(keep=args.keep or not ok)
    print("chaos: PASS" if ok else "chaos: FAIL", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
