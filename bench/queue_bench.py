#!/usr/bin/env python3
"""The queue benchmark of awc-worker (make bench; see bench/README.md).

Runs inside `pg_virtualenv -t` (PGHOST, PGPORT, PGUSER, PGPASSWORD are set)
on a durable cluster (fsync and synchronous_commit on: make bench starts it
so) and measures, on a fresh database per run:

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
     idle fleet; latency = handler start (started_at) - created_at.

Every configuration runs `--repeat` times (interleaved, so slow drift hits
all of them alike); tables show the median and every run. Standard library
only.
"""

import argparse
import atexit
import datetime
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
TEMPLATE_DB = "awc_bench_template"
GRAPHILE_TEMPLATE_DB = "awc_bench_graphile_template"
LIVE_DAEMONS = []  # process groups to kill if the benchmark dies


@atexit.register
def _kill_live_daemons():
    for pid in LIVE_DAEMONS:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr,
          flush=True)


def die(msg):
    log(f"error: {msg}")
    sys.exit(1)


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


def env_list(name, default):
    v = os.environ.get(name, "")
    if not v.strip():
        return default
    return [int(x) for x in re.split(r"[ ,]+", v.strip()) if x]


# --------------------------------------------------------------- PostgreSQL

def psql(db, *commands):
    """Runs each command (its own transaction) with psql; returns stdout."""
    args = ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", db]
    for c in commands:
        args += ["-c", c]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        die(f"psql failed on {db}: {r.stderr.strip()}")
    return r.stdout.strip()


class Session:
    """One long-lived psql connection, for polling without spawning."""

    def __init__(self, db):
        self.p = subprocess.Popen(
            ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1",
             "-d", db],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            bufsize=1)

    def query(self, sql):
        self.p.stdin.write(sql.rstrip().rstrip(";") + ";\n\\echo __awc_end__\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if line == "":
                die(f"psql session ended during: {sql}")
            line = line.rstrip("\n")
            if line == "__awc_end__":
                return "\n".join(lines)
            lines.append(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def db_url(db):
    return (f"postgresql://{os.environ['PGUSER']}:{os.environ['PGPASSWORD']}"
            f"@{os.environ['PGHOST']}:{os.environ['PGPORT']}/{db}")


def create_db(name, template=None, strategy=None):
    args = ["createdb"] + (["-T", template] if template else [])
    args += (["-S", strategy] if strategy else []) + [name]
    for attempt in range(50):
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0:
            return
        # The template's last backend may still be exiting.
        if "being accessed by other users" in r.stderr and attempt < 49:
            time.sleep(0.1)
            continue
        die(f"createdb {name}: {r.stderr.strip()}")


def drop_db(name):
    subprocess.run(["dropdb", "--if-exists", "--force", name], check=True)


class PgCpu:
    """CPU seconds spent by the PostgreSQL cluster (postmaster, its live
    children, and the children it has reaped: exited backends)."""

    def __init__(self, postmaster_pid):
        self.pm = postmaster_pid

    @staticmethod
    def _stat(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                s = f.read()
        except OSError:
            return None
        fields = s[s.rindex(")") + 2:].split()
        # fields[0] is state (field 3): utime is field 14, cutime field 16.
        return int(fields[1]), [int(x) for x in fields[11:15]]

    def settle(self, db, timeout=10.0):
        """Waits until the backends of `db` have exited and been reaped: an
        exited, unreaped backend (a zombie) shows no CPU time at all."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            busy = False
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        s = f.read()
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        cmd = f.read().decode(errors="replace")
                except OSError:
                    continue
                fields = s[s.rindex(")") + 2:].split()
                if int(fields[1]) != self.pm:
                    continue
                # An exiting process has an empty cmdline.
                if fields[0] in ("Z", "X") or not cmd or f" {db} " in cmd:
                    busy = True
                    break
            if not busy:
                return
            time.sleep(0.01)
        log(f"warning: backends of {db} still present after {timeout}s; "
            "PostgreSQL CPU figures may be low")

    def now(self):
        # A child reaped while /proc is scanned would be counted neither as
        # a live child nor in the postmaster's cutime, and an exited child
        # not reaped yet shows no CPU time: sample until neither happened.
        for _ in range(100):
            before = self._stat(self.pm)
            total, zombie = self._children()
            after = self._stat(self.pm)
            if (before and after and before[1][2:] == after[1][2:]
                    and not zombie):
                break
            time.sleep(0.01)
        return (sum(after[1]) if after else 0) / CLK_TCK + total

    def _children(self):
        """(CPU seconds of the live children, whether one has exited)"""
        total, zombie = 0, False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) != self.pm:
                continue
            if fields[0] in ("Z", "X"):
                zombie = True
            total += int(fields[11]) + int(fields[12])
        return total / CLK_TCK, zombie


def cpu_busy():
    """CPU seconds the whole machine has been busy (all CPUs, /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    return (sum(v[:8]) - v[3] - v[4]) / CLK_TCK


def tcp_data_segments_in(port):
    """{(server address, client address): TCP segments with data the server
    received} for the established connections to `port` (ss -ti)."""
    r = subprocess.run(["ss", "-tinH", "state", "established",
                        f"( sport = :{port} )"], capture_output=True,
                       text=True)
    out, key = {}, None
    for line in r.stdout.splitlines():
        if not line.startswith((" ", "\t")):
            f = line.split()
            key = (f[-2], f[-1]) if len(f) >= 2 else None
            continue
        m = re.search(r"\bdata_segs_in:(\d+)", line)
        if key and m:
            out[key] = int(m.group(1))
    return out


class Costs:
    """What one run cost the cluster, per job: commits (pg_stat_database),
    WAL bytes (pg_current_wal_lsn), WAL flushes (pg_stat_wal.wal_sync), and
    round trips: TCP segments carrying data into the server on the
    connections opened during the run (ss), less the benchmark's own polling
    session. sample() keeps the largest count seen per connection, so a
    client whose connections close (pgbench) is counted up to its last
    sample."""

    def __init__(self, bench, db):
        self.b, self.db = bench, db
        self.port = os.environ["PGPORT"]
        self.segs0 = tcp_data_segments_in(self.port)
        self.segs = {}
        self.exclude = set()
        self.commits0 = self._commits()
        self.lsn0, self.syncs0 = self._wal()

    def _commits(self):
        return int(self.b.admin.query(
            "SELECT pg_stat_force_next_flush(); "
            "SELECT xact_commit FROM pg_stat_database "
            f"WHERE datname = '{self.db}'").split("\n")[-1] or 0)

    def _wal(self):
        row = self.b.admin.query(
            "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, wal_sync "
            "FROM pg_stat_wal").split("|")
        return int(float(row[0])), int(row[1])

    def exclude_session(self, session):
        """Leaves out the connection of a polling psql `session`."""
        port = session.query("SELECT inet_client_port()")
        self.exclude.add(port)

    def sample(self):
        for k, v in tcp_data_segments_in(self.port).items():
            if k[1].rsplit(":", 1)[-1] in self.exclude:
                continue
            self.segs[k] = max(self.segs.get(k, 0), v)

    def finish(self, n):
        """Per-job costs; call once the run's backends have exited (their
        statistics are flushed then; the WAL writer's within a second)."""
        time.sleep(1.1)
        commits = self._commits() - self.commits0
        lsn, syncs = self._wal()
        segs = sum(v - self.segs0.get(k, 0) for k, v in self.segs.items())
        return {"commits": commits / n, "round_trips": segs / n,
                "wal_bytes": (lsn - self.lsn0) / n,
                "wal_flushes": (syncs - self.syncs0) / n}


# ------------------------------------------------------------------ daemon

class Daemon:
    def __init__(self, binary, db, concurrency, log_level, workdir,
                 extra_env=None, tag="daemon"):
        env = {k: v for k, v in os.environ.items()
               if not (k.startswith("AWC_") or k == "DATABASE_URL"
                       or k == "NOTIFY_SOCKET")}
        env.update({
            "DATABASE_URL": db_url(db),
            "AWC_CAS_URL": "memory://",
            "AWC_WORKER_ID": "bench",
            "AWC_WORKER_CONCURRENCY": str(concurrency),
            "AWC_LOG_LEVEL": log_level,
        })
        env.update(extra_env or {})
        self.stderr_path = os.path.join(workdir, f"{tag}.stderr")
        self.stdout_path = os.path.join(workdir, f"{tag}.stdout")
        with open(self.stdout_path, "wb") as out, \
                open(self.stderr_path, "wb") as err:
            self.p = subprocess.Popen([binary], env=env, stdin=subprocess.DEVNULL,
                                      stdout=out, stderr=err,
                                      start_new_session=True)
        LIVE_DAEMONS.append(self.p.pid)
        self.cpu_s = None

    def check_alive(self):
        if self.p.poll() is not None:
            die(f"the daemon exited early (status {self.p.returncode}): "
                f"{self.stderr_tail()}")

    def stderr_tail(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()[-2000:]

    def stop(self, timeout=30):
        """SIGTERM, wait; records the CPU time of the whole process tree."""
        if self.p.returncode is not None:
            return
        self.p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, ru = os.wait4(self.p.pid, os.WNOHANG)
            if pid == self.p.pid:
                LIVE_DAEMONS.remove(self.p.pid)
                self.p.returncode = os.waitstatus_to_exitcode(status)
                # wait4's rusage includes the workers the master reaped.
                self.cpu_s = ru.ru_utime + ru.ru_stime
                break
            if time.monotonic() > deadline:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
                die("the daemon did not stop within "
                    f"{timeout}s of SIGTERM")
            time.sleep(0.02)
        if self.p.returncode != 0:
            die(f"the daemon exited with {self.p.returncode}: "
                f"{self.stderr_tail()}")


# --------------------------------------------------------------- the bench

class Bench:
    def __init__(self, args):
        self.a = args
        self.daemon_bin = os.path.join(args.build_dir, "bench", "awc-worker-bench")
        script_bin = os.path.join(args.build_dir, "bench",
                                  "awc-bench-pgbench-script")
        for b in (self.daemon_bin, script_bin):
            if not os.access(b, os.X_OK):
                die(f"{b} is missing; build with -DAWC_BUILD_BENCH=ON")
        bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True,
                                text=True).stdout.strip()
        self.pgbench = os.path.join(bindir, "pgbench") if bindir else "pgbench"
        if not os.access(self.pgbench, os.X_OK):
            self.pgbench = shutil.which("pgbench") or die("pgbench not found")
        self.workdir = tempfile.mkdtemp(prefix="awc-bench-")
        # The worker's statements per job, lease sweep included, with one
        # synchronous commit per job ("sync") or an asynchronous one, as
        # the daemon commits them ("async"); "bare": the claim and the
        # record only, synchronous.
        self.scripts = {}
        for variant, args in (("sync", []), ("async", ["--async"]),
                              ("bare", ["--no-reclaim"])):
            path = os.path.join(self.workdir, f"queue-{variant}.pgbench")
            with open(path, "w") as f:
                subprocess.run([script_bin] + args, stdout=f, check=True)
            self.scripts[variant] = path
        self.graphile = self.a.graphile
        if self.graphile and not os.access(self.graphile, os.X_OK):
            die(f"{self.graphile} is missing: make deps-bench installs "
                "graphile-worker (or set BENCH_GRAPHILE=off)")
        self.graphile_version = ""
        self.seq = 0
        self.admin = Session("postgres")
        settings = dict(x.split("=", 1) for x in self.admin.query(
            "SELECT name || '=' || setting FROM pg_settings WHERE name IN "
            "('fsync', 'synchronous_commit')").split("\n"))
        self.durable = (settings.get("fsync") == "on" and
                        settings.get("synchronous_commit") == "on")
        if not self.durable and not self.a.allow_nondurable:
            die("the cluster does not flush its commits (fsync="
                f"{settings.get('fsync')}, synchronous_commit="
                f"{settings.get('synchronous_commit')}): make bench starts "
                "one with fsync on; --allow-nondurable measures anyway")
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

    # -- 1. the daemon drains N jobs

    def run_daemon(self, c, log_level="warn", binary=None):
        n = self.a.jobs
        db = self.fresh_db(n)
        s = Session(db)
        costs = Costs(self, db)
        costs.exclude_session(s)
        pg0, busy0 = self.pg_cpu.now(), cpu_busy()
        t0 = time.monotonic()
        d = Daemon(binary or self.daemon_bin, db, c, log_level, self.workdir,
                   tag=f"drain-c{c}-{log_level}")
        deadline = t0 + self.a.timeout
        while s.query("SELECT EXISTS (SELECT 1 FROM awc.jobs "
                      "WHERE state IN ('PENDING', 'RUNNING'))") == "t":
            d.check_alive()
            if time.monotonic() > deadline:
                d.stop()
                die(f"C={c}: the queue was not drained in {self.a.timeout}s")
            time.sleep(0.1)
        costs.sample()
        s.close()
        d.stop()
        wall = time.monotonic() - t0
        self.pg_cpu.settle(db)
        pg_cpu = self.pg_cpu.now() - pg0
        others = (cpu_busy() - busy0 - pg_cpu - d.cpu_s) / wall
        rate, vacuums = self.drain_stats(db, n)
        event_bytes = os.path.getsize(d.stderr_path)
        per_job = costs.finish(n)
        drop_db(db)
        return {"rate": rate, "client_cpu_us": d.cpu_s / n * 1e6,
                "pg_cpu_us": pg_cpu / n * 1e6, "wall": wall,
                "others": others, "vacuums": vacuums,
                "stderr_bytes_per_job": event_bytes / n, **per_job}

    # -- 2a. graphile-worker drains N jobs

    def make_graphile_template(self):
        """A database with graphile-worker's schema; every run copies it."""
        drop_db(GRAPHILE_TEMPLATE_DB)
        create_db(GRAPHILE_TEMPLATE_DB)
        self.graphile_dir = os.path.join(self.workdir, "graphile")
        os.makedirs(os.path.join(self.graphile_dir, "tasks"), exist_ok=True)
        with open(os.path.join(self.graphile_dir, "tasks", "noop.js"),
                  "w") as f:
            f.write("module.exports = async () => {};\n")
        r = subprocess.run(
            [self.graphile, "-c", db_url(GRAPHILE_TEMPLATE_DB),
             "--schema-only"], cwd=self.graphile_dir, capture_output=True,
            text=True)
        if r.returncode != 0:
            die(f"graphile-worker --schema-only failed: {r.stderr.strip()}")
        self.graphile_version = subprocess.run(
            [self.graphile, "--version"], cwd=self.graphile_dir,
            capture_output=True, text=True).stdout.strip()

    def run_graphile(self, c):
        n = self.a.jobs
        self.seq += 1
        db = f"awc_bench_{self.seq}"
        drop_db(db)
        create_db(db, GRAPHILE_TEMPLATE_DB)
        psql(db,
             "SELECT count(graphile_worker.add_job('noop')) "
             f"FROM generate_series(1, {n})",
             "VACUUM ANALYZE graphile_worker._private_jobs",
             "CHECKPOINT")
        s = Session(db)
        costs = Costs(self, db)
        costs.exclude_session(s)
        pg0, busy0 = self.pg_cpu.now(), cpu_busy()
        t0 = time.monotonic()
        err = open(os.path.join(self.workdir, f"graphile-c{c}.stderr"), "wb")
        p = subprocess.Popen(
            [self.graphile, "-c", db_url(db), "-j", str(c),
             "-m", str(max(10, c + 2)), "--once"],
            cwd=self.graphile_dir, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        err.close()
        LIVE_DAEMONS.append(p.pid)
        # graphile-worker deletes a job when it completes: the rate is the
        # jobs done between the first poll that saw progress and the poll
        # that saw none left, over the time between them (50 ms polls).
        first = last = None
        deadline = t0 + self.a.timeout
        cpu_s = None
        while True:
            left = int(s.query(
                "SELECT count(*) FROM graphile_worker._private_jobs"))
            now = time.monotonic()
            if first is None and left < n:
                first = (now, left)
            if left == 0:
                last = now
                costs.sample()
                break
            if p.poll() is not None:
                die(f"graphile-worker exited with {left} jobs left")
            if now > deadline:
                die(f"graphile-worker C={c}: not drained in "
                    f"{self.a.timeout}s")
            costs.sample()
            time.sleep(0.05)
        s.close()
        while True:  # --once: it exits once nothing is runnable
            pid, status, ru = os.wait4(p.pid, 0)
            if pid == p.pid:
                LIVE_DAEMONS.remove(p.pid)
                cpu_s = ru.ru_utime + ru.ru_stime
                if os.waitstatus_to_exitcode(status) != 0:
                    die(f"graphile-worker exited with "
                        f"{os.waitstatus_to_exitcode(status)}")
                break
        wall = time.monotonic() - t0
        self.pg_cpu.settle(db)
        pg_cpu = self.pg_cpu.now() - pg0
        others = (cpu_busy() - busy0 - pg_cpu - cpu_s) / wall
        rate = first[1] / (last - first[0]) if last > first[0] else \
            float("nan")
        per_job = costs.finish(n)
        drop_db(db)
        return {"rate": rate, "client_cpu_us": cpu_s / n * 1e6,
                "pg_cpu_us": pg_cpu / n * 1e6, "wall": wall,
                "others": others, "vacuums": 0, **per_job}

    # -- 2. pgbench runs the worker's SQL

    def run_pgbench(self, c, variant):
        # Each client's transaction records the job its previous transaction
        # claimed, then claims the next (as JobQueue::Finish): T transactions
        # complete T-1 jobs and leave the last claim RUNNING. So the queue
        # holds n + c jobs and each client runs n/c + 1 transactions.
        per_client = self.a.jobs // c
        n = per_client * c
        db = self.fresh_db(n + c)
        costs = Costs(self, db)
        pg0, busy0 = self.pg_cpu.now(), cpu_busy()
        ru0 = os.times()
        r = self.sampled_run(costs,
            [self.pgbench, "-n", "-f", self.scripts[variant], "-c", str(c),
             "-j", str(c),
             "-t", str(per_client + 1), "-M", "prepared",
             "-D", "wid=bench-pgbench", "-D", f"lease={self.a.lease}",
             "-D", "result={}", "-D", "id=0", "-D", "lease_token=0",
             "-D", f"reclaim_every={self.a.reclaim_every}",
             "-D", "reclaim_batch=100", "-D", "k=0", "-D", "next_reclaim=0",
             db])
        ru1 = os.times()
        wall = ru1.elapsed - ru0.elapsed
        self.pg_cpu.settle(db)
        pg_cpu = self.pg_cpu.now() - pg0
        client = (ru1.children_user + ru1.children_system
                  - ru0.children_user - ru0.children_system)
        others = (cpu_busy() - busy0 - pg_cpu - client) / wall
        if r.returncode != 0:
            die(f"pgbench {variant} C={c} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
        m = re.search(r"^tps = ([0-9.]+) \(without initial connection time\)",
                      r.stdout, re.M)
        if not m:
            die(f"cannot find tps in pgbench's output:\n{r.stdout}")
        rate_db, vacuums = self.drain_stats(db, n)
        per_job = costs.finish(n)
        drop_db(db)
        return {"rate": float(m.group(1)), "rate_db": rate_db,
                "client_cpu_us": client / n * 1e6, "pg_cpu_us": pg_cpu / n * 1e6,
                "others": others, "vacuums": vacuums, **per_job}

    @staticmethod
    def sampled_run(costs, args):
        """Runs `args` to completion, sampling `costs` every 50 ms."""
        with tempfile.TemporaryFile("w+") as out, \
                tempfile.TemporaryFile("w+") as err:
            p = subprocess.Popen(args, stdout=out, stderr=err, text=True)
            while p.poll() is None:
                costs.sample()
                time.sleep(0.05)
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess(args, p.returncode, out.read(),
                                               err.read())

    # -- 3. idle pickup latency

    def run_latency(self):
        c, samples, gap = self.a.latency_workers, self.a.latency_samples, \
            self.a.latency_gap_ms
        db = self.fresh_db(0)
        d = Daemon(self.daemon_bin, db, c, "warn", self.workdir,
                   tag="latency")
        s = Session(db)
        deadline = time.monotonic() + 60
        # Every worker connected and waiting (LISTEN is issued before its
        # first claim), then let the fleet settle into its idle wait.
        while int(s.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                "current_database() AND application_name LIKE 'bench-%' "
                "AND state = 'idle'")) < c:
            d.check_alive()
            if time.monotonic() > deadline:
                die("the latency fleet did not come up within 60 s")
            time.sleep(0.05)
        time.sleep(1.5)
        # One committed INSERT per sample; NOTIFY is sent at each COMMIT,
        # once its WAL is flushed. When the COMMIT returned is noted too
        # (committed with the next sample), to tell the producer's flush
        # from the pickup.
        psql(db, "CREATE TABLE bench_committed (id bigint, at timestamptz)")
        psql(db, f"""
DO $$
DECLARE jid bigint;
BEGIN
  FOR i IN 1..{samples} LOOP
    INSERT INTO awc.jobs (kind, payload, created_at)
    VALUES ('bench_stamp', '{{}}', clock_timestamp()) RETURNING id INTO jid;
    COMMIT;
    INSERT INTO bench_committed VALUES (jid, clock_timestamp());
    PERFORM pg_sleep({gap / 1000.0});
  END LOOP;
END
$$""")
        deadline = time.monotonic() + 60
        while s.query("SELECT count(*) FROM awc.jobs WHERE state = 'COMPLETED'") \
                != str(samples):
            d.check_alive()
            if time.monotonic() > deadline:
                die("latency jobs were not all completed within 60 s")
            time.sleep(0.05)
        lat = [float(x) for x in s.query(
            "SELECT ((result->>'started_at')::numeric "
            "        - extract(epoch FROM created_at)) * 1000 "
            "FROM awc.jobs ORDER BY id").split("\n")]
        after = sorted(float(x) for x in s.query(
            "SELECT ((j.result->>'started_at')::numeric "
            "        - extract(epoch FROM c.at)) * 1000 "
            "FROM awc.jobs j JOIN bench_committed c USING (id)").split("\n"))
        workers = s.query("SELECT count(DISTINCT locked_by) FROM awc.jobs")
        s.close()
        d.stop()
        drop_db(db)
        lat.sort()
        return {"p50": percentile(lat, 50), "p99": percentile(lat, 99),
                "max": lat[-1], "min": lat[0], "workers_used": int(workers),
                "commit_p50": percentile(after, 50),
                "commit_p99": percentile(after, 99)}


def percentile(sorted_values, p):
    """Nearest-rank percentile."""
    k = max(0, min(len(sorted_values) - 1,
                   -(-len(sorted_values) * p // 100) - 1))
    return sorted_values[int(k)]


def med(values):
    return statistics.median(values)


# ------------------------------------------------------------------ report

def cpu_and_memory():
    """The CPU model name and the memory in kB, from /proc."""
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    return model, mem_kb


def machine_info(bench):
    model, mem_kb = cpu_and_memory()
    settings = bench.admin.query(
        "SELECT string_agg(name || '=' || current_setting(name), ' ' "
        "ORDER BY name) FROM pg_settings WHERE name IN ('fsync', "
        "'synchronous_commit', 'shared_buffers', 'max_connections', "
        "'full_page_writes', 'wal_level', 'autovacuum')")
    version = bench.admin.query("SHOW server_version")
    pgbench = subprocess.run([bench.pgbench, "--version"], capture_output=True,
                             text=True).stdout.strip()
    commit = subprocess.run(["git", "describe", "--always", "--dirty"],
                            capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__)))
    return [
        f"date        {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"commit      {commit.stdout.strip() or '?'}",
        f"machine     {os.cpu_count()} CPUs ({model}), "
        f"{mem_kb / 1048576:.1f} GiB, Linux {platform.release()}",
        f"postgresql  {version}, pg_virtualenv throwaway cluster on localhost "
        f"(TCP), {settings}",
        f"pgbench     {pgbench}",
        f"load avg    {' '.join(open('/proc/loadavg').read().split()[0:3])} "
        "at start",
    ]


def fmt_runs(values, spec="{:.0f}"):
    return " ".join(spec.format(v) for v in values)


def write_report(lines, started, results):
    """Prints the report with the total time and writes it to `results`."""
    lines = lines + ["", f"total benchmark time {time.monotonic() - started:.0f} s"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    os.makedirs(os.path.dirname(results), exist_ok=True)
    with open(results, "w") as f:
        f.write(text)
    log(f"results written to {results}")


KIND_TITLES = {
    "daemon": "awc-worker (the daemon)",
    "before": "awc-worker built from another tree (--daemon-before)",
    "graphile": "graphile-worker, no-op task",
    "pgbench-sync": "pgbench, worker SQL, synchronous commit",
    "pgbench-async": "pgbench, worker SQL, asynchronous commit",
    "pgbench-bare": "pgbench, claim + record only, synchronous",
}
GOAL_RATIO = 2.0
GOAL_P50_MS, GOAL_P99_MS = 1.0, 5.0


def report(a, header, migrations, runs, info, lat, durable, graphile_version):
    out = ["awc-worker queue benchmark (bench/queue_bench.py, make bench)", ""]
    out += header
    out += [f"graphile    {graphile_version or 'not run'}",
            f"migrations  {migrations}",
            f"parameters  jobs={a.jobs} repeat={a.repeat} lease={a.lease}s; "
            "medians of the runs, every run listed below",
            "cluster     " + ("DURABLE: fsync=on, synchronous_commit=on" if
                              durable else "NOT DURABLE (--allow-nondurable):"
                              " commits are not flushed"),
            ""]
    conc = a.concurrency
    out += [
        "1. Throughput, N pre-filled no-op jobs, same cluster, same N, "
        "runs interleaved.",
        "  daemon:   awc-worker-bench, C workers, bench_noop, "
        "AWC_LOG_LEVEL=warn; (N-1) / (last - first finished_at).",
        "  graphile: graphile-worker -j C --once, task noop (async () => {}); "
        "jobs done / time, from 50 ms polls",
        "            of graphile_worker._private_jobs (it deletes a job when "
        "done).",
        "  pgbench:  C clients, -M prepared, tps without connection time, "
        "the worker's SQL (queue_sql.h):",
        "            record the previous job + claim the next in one "
        "transaction, the lease sweep every",
        f"            {a.reclaim_every} jobs per client; sync = one "
        "synchronous commit per job (the daemon before",
        "            it committed asynchronously), async = SET LOCAL "
        "synchronous_commit = off (the daemon now,",
        "            but 5 round trips where the daemon pipelines them into "
        "one).",
        ""]
    kinds = [k for k in KIND_TITLES if runs.get(k)]
    has_gw = bool(runs.get("graphile"))
    hdr = f"{'C':>3} | " + " | ".join(f"{k:>13}" for k in kinds)
    if has_gw:
        hdr += f" | {'daemon/graphile':>15} | goal"
    out += [hdr, "-" * len(hdr)]
    for c in conc:
        line = f"{c:>3} | " + " | ".join(
            f"{med([r['rate'] for r in runs[k][c]]):>13.0f}" for k in kinds)
        if has_gw:
            ratio = (med([r["rate"] for r in runs["daemon"][c]]) /
                     med([r["rate"] for r in runs["graphile"][c]]))
            line += (f" | {ratio:>15.2f} | >= {GOAL_RATIO:.1f} "
                     f"{'met' if ratio >= GOAL_RATIO else 'NOT MET'}")
        out.append(line)
    out += ["  (jobs/s for daemon and graphile, tps = jobs/s for pgbench)", ""]

    out += [
        "2. Per job: commits (pg_stat_database.xact_commit), round trips "
        "(TCP segments with data into the",
        "   server, ss -ti), WAL bytes (pg_current_wal_lsn) and flushes "
        "(pg_stat_wal.wal_sync), CPU in us",
        "   of the client (daemon master + workers, node, or pgbench) and of "
        "PostgreSQL (all its processes).",
        "   Medians over the runs.",
        ""]
    hdr = (f"{'run':>14} {'C':>3} | {'commits':>7} {'round trips':>11} "
           f"{'WAL bytes':>9} {'WAL flushes':>11} | {'CPU client':>10} "
           f"{'CPU pg':>7} {'total':>6}")
    out += [hdr, "-" * len(hdr)]
    for c in conc:
        for k in kinds:
            rs = runs[k][c]
            m = {key: med([r[key] for r in rs]) for key in
                 ("commits", "round_trips", "wal_bytes", "wal_flushes",
                  "client_cpu_us", "pg_cpu_us")}
            out.append(
                f"{k:>14} {c:>3} | {m['commits']:>7.2f} "
                f"{m['round_trips']:>11.2f} {m['wal_bytes']:>9.0f} "
                f"{m['wal_flushes']:>11.3f} | {m['client_cpu_us']:>10.0f} "
                f"{m['pg_cpu_us']:>7.0f} "
                f"{m['client_cpu_us'] + m['pg_cpu_us']:>6.0f}")
    if info:
        c = a.info_workers
        ir = med([r["rate"] for r in info])
        ic = med([r["client_cpu_us"] for r in info])
        out += ["",
                f"Events: C={c} with AWC_LOG_LEVEL=info (one JSON line per job "
                f"on stderr, to a file, {med([r['stderr_bytes_per_job'] for r in info]):.0f} "
                f"bytes/job): {ir:.0f} jobs/s, daemon CPU {ic:.0f} us/job"]
        if c in runs["daemon"]:
            d = runs["daemon"][c]
            out[-1] += (f" (warn: {med([r['rate'] for r in d]):.0f} "
                        f"jobs/s, {med([r['client_cpu_us'] for r in d]):.0f} "
                        "us/job)")

    out += ["",
            "Every run. other = average CPUs kept busy by processes outside "
            "the benchmark during the run",
            "(other engineers' builds and tests on a shared machine); av = "
            "autovacuum + autoanalyze runs on awc.jobs.",
            ""]
    hdr = (f"{'run':>14} {'C':>3} {'rep':>3} {'rate/s':>8} {'by fin.':>8} "
           f"{'client':>7} {'pg':>5} {'other':>5} {'av':>3}")
    out += [hdr, "-" * len(hdr)]
    rows = []
    for c in conc:
        for k in kinds:
            for i, r in enumerate(runs[k][c]):
                rows.append((k, c, i + 1, r, r.get("rate_db", r["rate"])))
    for i, r in enumerate(info):
        rows.append(("daemon-info", a.info_workers, i + 1, r, r["rate"]))
    for kind, c, i, r, by_fin in rows:
        out.append(f"{kind:>14} {c:>3} {i:>3} {r['rate']:>8.0f} {by_fin:>8.0f} "
                   f"{r['client_cpu_us']:>7.0f} {r['pg_cpu_us']:>5.0f} "
                   f"{max(0.0, r['others']):>5.2f} {r['vacuums']:>3}")

    out += ["",
            f"3. Idle pickup latency: C={a.latency_workers} idle workers, poll "
            "interval 1000 ms (default), "
            f"{a.latency_samples} bench_stamp jobs,",
            f"   inserted one per transaction {a.latency_gap_ms} ms apart; "
            "latency = handler start (CLOCK_REALTIME)",
            "   - created_at (clock_timestamp() at INSERT, so the producer's "
            "own commit is included), in ms.",
            ""]
    goals = {"p50": GOAL_P50_MS, "p99": GOAL_P99_MS}
    for key in ("p50", "p99", "max"):
        vals = [r[key] for r in lat]
        line = f"   {key} {med(vals):8.2f} ms   runs {fmt_runs(vals, '{:.2f}')}"
        if key in goals:
            line += (f"   goal <= {goals[key]:g} ms: "
                     f"{'met' if med(vals) <= goals[key] else 'NOT MET'}")
        out.append(line)
    cp50 = med([r["commit_p50"] for r in lat])
    cp99 = med([r["commit_p99"] for r in lat])
    out.append(f"   from the producer's COMMIT returning (its WAL flush "
               f"excluded): p50 {cp50:.2f} ms, p99 {cp99:.2f} ms")
    out.append("   (negative: the handler started before the producer's "
               "COMMIT returned to it)")
    out.append("   (workers that picked jobs up, per run: "
               f"{' '.join(str(r['workers_used']) for r in lat)})")
    return out


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
    default_gw = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "build-deps", "graphile-worker", "node_modules", ".bin",
        "graphile-worker")
    ap.add_argument("--graphile", default=os.environ.get(
                        "BENCH_GRAPHILE", default_gw),
                    help="the graphile-worker CLI (BENCH_GRAPHILE; 'off' "
                         "skips it)")
    ap.add_argument("--daemon-before", default=os.environ.get(
                        "BENCH_DAEMON_BEFORE", ""),
                    help="another awc-worker-bench (say, built from the "
                         "previous commit) to run beside this one "
                         "(BENCH_DAEMON_BEFORE)")
    ap.add_argument("--allow-nondurable", action="store_true",
                    default=os.environ.get("BENCH_ALLOW_NONDURABLE") == "1",
                    help="measure on a cluster without fsync or "
                         "synchronous_commit (BENCH_ALLOW_NONDURABLE=1)")
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
        bench.make_graphile_template()

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
                    r = bench.run_daemon(c)
                elif k == "before":
                    r = bench.run_daemon(c, binary=a.daemon_before)
                elif k == "graphile":
                    r = bench.run_graphile(c)
                else:
                    r = bench.run_pgbench(c, k[len("pgbench-"):])
                log(f"run {rep}/{a.repeat} C={c} {k:<13} {r['rate']:8.0f}/s "
                    f"commits {r['commits']:.2f} round trips "
                    f"{r['round_trips']:.2f} WAL {r['wal_bytes']:.0f} B "
                    f"flushes {r['wal_flushes']:.3f} CPU "
                    f"{r['client_cpu_us']:.0f}+{r['pg_cpu_us']:.0f} us")
                runs[k][c].append(r)
        if a.info_workers > 0:
            r = bench.run_daemon(a.info_workers, "info")
            log(f"run {rep}/{a.repeat} C={a.info_workers} daemon, log level "
                f"info {r['rate']:8.0f} jobs/s")
            info.append(r)
        r = bench.run_latency()
        log(f"run {rep}/{a.repeat} pickup p50 {r['p50']:.2f} ms "
            f"p99 {r['p99']:.2f} ms max {r['max']:.2f} ms")
        lat.append(r)
    drop_db(TEMPLATE_DB)
    if a.graphile:
        drop_db(GRAPHILE_TEMPLATE_DB)
    bench.admin.close()
    shutil.rmtree(bench.workdir, ignore_errors=True)

    write_report(report(a, header, bench.migrations, runs, info, lat,
                        bench.durable, bench.graphile_version),
                 started, results)


if __name__ == "__main__":
    main()
