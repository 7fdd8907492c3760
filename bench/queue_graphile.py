"""The graphile-worker peer of the queue benchmark (queue_bench.py):
graphile-worker (npm, a no-op task, `-j C --once`) drains the same N jobs
on the same cluster, from a template database with its schema. Standard
library only.
"""

import os
import subprocess
import time

from bench_common import (LIVE_PGIDS, Session, cpu_busy, create_db, db_url,
                          die, drop_db, psql)
from queue_costs import Costs

GRAPHILE_TEMPLATE_DB = "awc_bench_graphile_template"


def add_graphile_argument(ap):
    """--graphile: the graphile-worker CLI (BENCH_GRAPHILE), by default the
    one make deps-bench-npm installs into build-deps/."""
    default = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "build-deps", "graphile-worker", "node_modules", ".bin",
        "graphile-worker")
    ap.add_argument("--graphile", default=os.environ.get(
                        "BENCH_GRAPHILE", default),
                    help="the graphile-worker CLI (BENCH_GRAPHILE; 'off' "
                         "skips it)")
NOOP_TASK = "module.exports = async () => {};\n"


# -- 2a. graphile-worker drains N jobs

def make_graphile_template(bench, task=NOOP_TASK):
    """A database with graphile-worker's schema; every run copies it. The
    task `noop` (JavaScript source; by default one that does nothing) is
    written to the tasks directory graphile-worker runs from."""
    drop_db(GRAPHILE_TEMPLATE_DB)
    create_db(GRAPHILE_TEMPLATE_DB)
    bench.graphile_dir = os.path.join(bench.workdir, "graphile")
    os.makedirs(os.path.join(bench.graphile_dir, "tasks"), exist_ok=True)
    with open(os.path.join(bench.graphile_dir, "tasks", "noop.js"),
              "w") as f:
        f.write(task)
    r = subprocess.run(
        [bench.graphile, "-c", db_url(GRAPHILE_TEMPLATE_DB),
         "--schema-only"], cwd=bench.graphile_dir, capture_output=True,
        text=True)
    if r.returncode != 0:
        die(f"graphile-worker --schema-only failed: {r.stderr.strip()}")
    bench.graphile_version = subprocess.run(
        [bench.graphile, "--version"], cwd=bench.graphile_dir,
        capture_output=True, text=True).stdout.strip()


def run_graphile(bench, c):
    n = bench.a.jobs
    bench.seq += 1
    db = f"awc_bench_{bench.seq}"
    drop_db(db)
    create_db(db, GRAPHILE_TEMPLATE_DB)
    psql(db,
         "SELECT count(graphile_worker.add_job('noop')) "
         f"FROM generate_series(1, {n})",
         "VACUUM ANALYZE graphile_worker._private_jobs",
         "CHECKPOINT")
    s = Session(db)
    costs = Costs(bench, db)
    costs.exclude_session(s)
    pg0, busy0 = bench.pg_cpu.now(), cpu_busy()
    t0 = time.monotonic()
    err = open(os.path.join(bench.workdir, f"graphile-c{c}.stderr"), "wb")
    p = subprocess.Popen(
        [bench.graphile, "-c", db_url(db), "-j", str(c),
         "-m", str(max(10, c + 2)), "--once"],
        cwd=bench.graphile_dir, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    err.close()
    LIVE_PGIDS.append(p.pid)
    # graphile-worker deletes a job when it completes: the rate is the
    # jobs done between the first poll that saw progress and the poll
    # that saw none left, over the time between them (50 ms polls).
    first = last = None
    deadline = t0 + bench.a.timeout
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
                f"{bench.a.timeout}s")
        costs.sample()
        time.sleep(0.05)
    s.close()
    while True:  # --once: it exits once nothing is runnable
        pid, status, ru = os.wait4(p.pid, 0)
        if pid == p.pid:
            LIVE_PGIDS.remove(p.pid)
            cpu_s = ru.ru_utime + ru.ru_stime
            if os.waitstatus_to_exitcode(status) != 0:
                die(f"graphile-worker exited with "
                    f"{os.waitstatus_to_exitcode(status)}")
            break
    wall = time.monotonic() - t0
    bench.pg_cpu.settle(db)
    pg_cpu = bench.pg_cpu.now() - pg0
    others = (cpu_busy() - busy0 - pg_cpu - cpu_s) / wall
    rate = first[1] / (last - first[0]) if last > first[0] else \
        float("nan")
    per_job = costs.finish(n)
    drop_db(db)
    return {"rate": rate, "client_cpu_us": cpu_s / n * 1e6,
            "pg_cpu_us": pg_cpu / n * 1e6, "wall": wall,
            "others": others, "vacuums": 0, **per_job}
