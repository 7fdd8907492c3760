"""The processes and sessions of one pinned-horizon run (queue_horizon.py):
the fleet under test (the real daemon, awc-worker-bench with C workers, or
graphile-worker -j C), the producer (queue_horizon_producer.py, a process
of its own), the session that pins the horizon, the monitor's
once-a-second sample, pg_stat_statements' snapshots, and afterwards every
job's insert and done times. Standard library only.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

from bench_common import (CLK_TCK, LIVE_PGIDS, Session, cpu_busy, db_url,
                          die, log, proc_cpu, psql, stat_fields)
from queue_daemon import Daemon

# graphile-worker's task: nothing but noting, per job, its id, its insert
# time (the payload's t, the producer transaction's time) and when the
# handler was done, one line per job in a file per worker process.
GRAPHILE_TASK = r"""const fs = require("fs");
const path = require("path");
let fd = null;
module.exports = async (payload, { job }) => {
  if (fd === null) {
    fd = fs.openSync(path.join(process.env.BENCH_HORIZON_DONE_DIR,
                               `done-${process.pid}.txt`), "a");
  }
  fs.writeSync(fd, `${job.id} ${payload.t} ${Date.now() / 1000}\n`);
};
"""

# Marks the monitor's statements, which the statement tables leave out.
MONITOR = "/* horizon monitor */"

PRODUCER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "queue_horizon_producer.py")


def group_cpu(pgid):
    """CPU seconds of the processes of a process group (with the children
    they reaped): a fleet's master and workers, or node."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = stat_fields(entry)
        if fields is not None and int(fields[2]) == pgid:
            total += sum(int(x) for x in fields[11:15])
    return total / CLK_TCK


def wait_for(session, sql, what, alive, timeout=60):
    """Polls `sql` until it answers t, checking `alive` meanwhile."""
    deadline = time.monotonic() + timeout
    while session.query(sql) != "t":
        alive()
        if time.monotonic() > deadline:
            die(f"{what} within {timeout} s")
        time.sleep(0.05)


class AwcFleet:
    """awc-worker-bench with C workers (AWC_LOG_LEVEL=warn, defaults
    otherwise, as in the queue suite); its jobs stay in awc.jobs once
    COMPLETED, with created_at (the producer's transaction) and
    finished_at (the recording transaction, right after the handler)."""

    title = "awc-worker"
    table = "awc.jobs"

    def __init__(self, bench, db, c):
        self.db = db
        self.d = Daemon(bench.daemon_bin, db, c, "warn", bench.workdir,
                        tag=f"horizon-awc-c{c}")
        self.pgid = self.d.p.pid

    def wait_ready(self, session, c):
        """Every worker connected and idle (LISTEN is issued before the
        first claim)."""
        wait_for(session,
                 f"SELECT count(*) >= {c} FROM pg_stat_activity "
                 "WHERE datname = current_database() AND state = 'idle' "
                 "AND application_name ~ '^bench-[0-9]+$'",
                 "the fleet did not come up", self.check_alive)

    def check_alive(self):
        self.d.check_alive()

    def drained(self, session, n):
        return session.query(
            "SELECT NOT EXISTS (SELECT 1 FROM awc.jobs WHERE kind = "
            "'bench_noop' AND state IN ('PENDING', 'RUNNING'))") == "t"

    def stop(self):
        self.d.stop()

    def records(self):
        """[(insert time, done time or None)], epoch seconds."""
        out = psql(self.db,
                   "SELECT extract(epoch FROM created_at), "
                   "extract(epoch FROM finished_at) FROM awc.jobs "
                   "WHERE kind = 'bench_noop' AND state = 'COMPLETED' "
                   "UNION ALL SELECT extract(epoch FROM created_at), NULL "
                   "FROM awc.jobs WHERE kind = 'bench_noop' "
                   "AND state <> 'COMPLETED'")
        return [(float(i), float(d) if d else None)
                for i, d in (line.split("|") for line in out.splitlines())]


class GraphileFleet:
    """graphile-worker -j C -m max(10, C+2) (as the queue suite runs it,
    without --once), task GRAPHILE_TASK; it deletes a job once done, so
    the task's files say when each job was done."""

    title = "graphile-worker"
    table = "graphile_worker._private_jobs"

    def __init__(self, bench, db, c):
        self.db = db
        self.dir = tempfile.mkdtemp(prefix="done-", dir=bench.workdir)
        env = dict(os.environ, BENCH_HORIZON_DONE_DIR=self.dir)
        with open(os.path.join(bench.workdir, f"horizon-graphile-c{c}.stderr"),
                  "wb") as err:
            self.p = subprocess.Popen(
                [bench.graphile, "-c", db_url(db), "-j", str(c),
                 "-m", str(max(10, c + 2))],
                cwd=bench.graphile_dir, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        LIVE_PGIDS.append(self.p.pid)
        self.pgid = self.p.pid

    def wait_ready(self, session, c):
        """Its listening connection is up."""
        wait_for(session,
                 "SELECT count(*) >= 1 FROM pg_stat_activity WHERE datname = "
                 "current_database() AND query LIKE 'LISTEN%'",
                 "graphile-worker did not come up", self.check_alive)
        time.sleep(1)

    def check_alive(self):
        if self.p.poll() is not None:
            die(f"graphile-worker exited early ({self.p.returncode})")

    def _lines(self):
        for name in os.listdir(self.dir):
            with open(os.path.join(self.dir, name)) as f:
                yield from f

    def drained(self, session, n):
        return sum(1 for _ in self._lines()) >= n

    def stop(self, timeout=30):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            log(f"warning: graphile-worker did not stop within {timeout} s "
                "of SIGTERM; killed")
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        LIVE_PGIDS.remove(self.p.pid)

    def records(self):
        """[(insert time, done time or None)], epoch seconds: the task's
        lines, and the jobs left in the table that it never ran."""
        out, seen = [], set()
        for line in self._lines():
            jid, t, done = line.split()
            seen.add(jid)
            out.append((float(t), float(done)))
        left = psql(self.db, "SELECT id, payload->>'t' FROM "
                    "graphile_worker._private_jobs")
        for line in left.splitlines():
            jid, t = line.split("|")
            if jid not in seen:
                out.append((float(t), None))
        return out


class Producer:
    """queue_horizon_producer.py as a process group of its own (with its
    psql); backend_pid is its PostgreSQL backend."""

    def __init__(self, db, system, rate, tick_ms, workdir):
        self.acks_path = os.path.join(workdir, f"acks-{system}.txt")
        self.p = subprocess.Popen(
            [sys.executable, PRODUCER, db, system, str(rate), str(tick_ms),
             self.acks_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            bufsize=1, start_new_session=True)
        LIVE_PGIDS.append(self.p.pid)
        self.pgid = self.p.pid
        line = self.p.stdout.readline().split()
        if line[:1] != ["ready"]:
            die(f"the producer did not start ({line})")
        self.backend_pid = int(line[1])

    def go(self, t0):
        self.p.stdin.write(f"go {t0!r}\n")
        self.p.stdin.flush()

    def check_alive(self):
        if self.p.poll() is not None:
            die(f"the producer exited early ({self.p.returncode})")

    def stop(self):
        """(jobs inserted, [(COMMIT time, jobs so far)]) once every INSERT
        it sent has committed."""
        self.p.stdin.write("stop\n")
        self.p.stdin.flush()
        done = self.p.stdout.readline().split()
        if self.p.wait(60) != 0 or done[:1] != ["done"]:
            die(f"the producer failed ({self.p.returncode}, {done})")
        LIVE_PGIDS.remove(self.p.pid)
        with open(self.acks_path) as f:
            next(f)
            acks = [(float(t), int(n)) for t, n in map(str.split, f)]
        return int(done[1]), acks


class Pin:
    """A session of the run's database (the horizon of ordinary tables
    counts only backends of their own database) that takes an xid and
    stays idle in its transaction until released."""

    def __init__(self, db):
        self.s = Session(db)
        self.s.query("SET idle_in_transaction_session_timeout = 0")
        self.pid = int(self.s.query("SELECT pg_backend_pid()"))
        self.xid = None

    def begin(self):
        self.s.query("BEGIN")
        self.xid = self.s.query("SELECT txid_current()")
        return time.time()

    def release(self):
        self.s.query("ROLLBACK")
        return time.time()

    def close(self):
        self.s.close()


class Monitor:
    """The once-a-second sample, from a session of its own: the queue
    table's statistics (pg_stat_user_tables: no scan of the table), and
    the CPU seconds so far of PostgreSQL (the cluster less the backends of
    the producer, the pin and this session), of the whole cluster, of the
    fleet, of the producer, and of the machine."""

    def __init__(self, bench, db, table, fleet_pgid, producer, pin_pid):
        self.b, self.table = bench, table
        self.fleet_pgid, self.producer = fleet_pgid, producer
        self.s = Session(db)
        self.own = [producer.backend_pid, pin_pid,
                    int(self.s.query("SELECT pg_backend_pid()"))]

    def sample(self, k, phase):
        t = time.time()
        row = self.s.query(
            f"SELECT {MONITOR} n_dead_tup, n_live_tup, autovacuum_count, "
            "pg_total_relation_size(relid) FROM pg_stat_user_tables "
            f"WHERE relid = '{self.table}'::regclass").split("|")
        pg_all = self.b.pg_cpu.now()
        return {"k": k, "phase": phase, "t": t,
                "dead": int(row[0]), "live": int(row[1]),
                "autovacuums": int(row[2]), "bytes": int(row[3]),
                "pg_all": pg_all,
                "pg": pg_all - sum(proc_cpu(p) for p in self.own),
                "fleet": group_cpu(self.fleet_pgid),
                "producer": group_cpu(self.producer.pgid),
                "busy": cpu_busy()}

    def close(self):
        self.s.close()


def enable_statements(db):
    """CREATE EXTENSION pg_stat_statements in `db`; None when its view
    answers, else why not (not installed, or not in
    shared_preload_libraries)."""
    r = subprocess.run(
        ["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", db,
         "-c", "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
         "-c", "SELECT count(*) FROM pg_stat_statements"],
        capture_output=True, text=True)
    return None if r.returncode == 0 else r.stderr.strip().splitlines()[-1]


def statements(session):
    """{queryid: (calls, total ms, shared_blks_hit, text)}: the top-level
    statements of the session's database so far."""
    out = session.query(
        f"SELECT {MONITOR} queryid, calls, total_exec_time, "
        "shared_blks_hit, regexp_replace(query, '\\s+', ' ', 'g') "
        "FROM pg_stat_statements WHERE toplevel AND dbid = (SELECT oid "
        "FROM pg_database WHERE datname = current_database()) "
        f"AND query NOT LIKE '%{MONITOR}%'")
    snap = {}
    for line in out.splitlines():
        qid, calls, ms, hits, text = line.split("|", 4)
        snap[qid] = (int(calls), float(ms), int(hits), text)
    return snap
