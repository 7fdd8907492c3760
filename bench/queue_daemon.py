"""The daemon side of the queue benchmark (queue_bench.py): the real
daemon (awc-worker-bench) as a process, and part 1, N pre-filled
bench_noop jobs drained by it with C workers. Standard library only.
"""

import os
import signal
import subprocess
import time

from bench_common import LIVE_PGIDS, Session, cpu_busy, db_url, die, drop_db
from queue_costs import Costs

class Daemon:
    """The daemon as a process of its own group, on database `db` with C
    workers, a memory:// store and the given log level; its stdout and
    stderr go to files in `workdir`. stop() stops it and records the CPU
    time of its whole tree (cpu_s)."""

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
        LIVE_PGIDS.append(self.p.pid)
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
                LIVE_PGIDS.remove(self.p.pid)
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


# -- 1. the daemon drains N jobs

def run_daemon(bench, c, log_level="warn", binary=None):
    n = bench.a.jobs
    db = bench.fresh_db(n)
    s = Session(db)
    costs = Costs(bench, db)
    costs.exclude_session(s)
    pg0, busy0 = bench.pg_cpu.now(), cpu_busy()
    t0 = time.monotonic()
    d = Daemon(binary or bench.daemon_bin, db, c, log_level, bench.workdir,
               tag=f"drain-c{c}-{log_level}")
    deadline = t0 + bench.a.timeout
    while s.query("SELECT EXISTS (SELECT 1 FROM awc.jobs "
                  "WHERE state IN ('PENDING', 'RUNNING'))") == "t":
        d.check_alive()
        if time.monotonic() > deadline:
            d.stop()
            die(f"C={c}: the queue was not drained in {bench.a.timeout}s")
        time.sleep(0.1)
    costs.sample()
    s.close()
    d.stop()
    wall = time.monotonic() - t0
    bench.pg_cpu.settle(db)
    pg_cpu = bench.pg_cpu.now() - pg0
    others = (cpu_busy() - busy0 - pg_cpu - d.cpu_s) / wall
    rate, vacuums = bench.drain_stats(db, n)
    event_bytes = os.path.getsize(d.stderr_path)
    per_job = costs.finish(n)
    drop_db(db)
    return {"rate": rate, "client_cpu_us": d.cpu_s / n * 1e6,
            "pg_cpu_us": pg_cpu / n * 1e6, "wall": wall,
            "others": others, "vacuums": vacuums,
            "stderr_bytes_per_job": event_bytes / n, **per_job}
