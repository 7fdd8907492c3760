"""The pgbench peer of the queue benchmark (queue_bench.py): pgbench runs
the worker's own SQL (record + claim in one transaction per job, and the
lease sweep), from the scripts awc-bench-pgbench-script prints, with C
clients. Standard library only.
"""

import os
import re
import subprocess
import tempfile
import time

from bench_common import cpu_busy, die, drop_db
from queue_costs import Costs


def write_scripts(script_bin, workdir):
    """{variant: path} of the pgbench scripts written into `workdir`."""
    # The worker's statements per job, lease sweep included, with one
    # synchronous commit per job ("sync") or an asynchronous one, as
    # the daemon commits them ("async"); "bare": the claim and the
    # record only, synchronous.
    scripts = {}
    for variant, args in (("sync", []), ("async", ["--async"]),
                          ("bare", ["--no-reclaim"])):
        path = os.path.join(workdir, f"queue-{variant}.pgbench")
        with open(path, "w") as f:
            subprocess.run([script_bin] + args, stdout=f, check=True)
        scripts[variant] = path
    return scripts


# -- 2. pgbench runs the worker's SQL

def run_pgbench(bench, c, variant):
    # Each client's transaction records the job its previous transaction
    # claimed, then claims the next (as JobQueue::Finish): T transactions
    # complete T-1 jobs and leave the last claim RUNNING. So the queue
    # holds n + c jobs and each client runs n/c + 1 transactions.
    per_client = bench.a.jobs // c
    n = per_client * c
    db = bench.fresh_db(n + c)
    costs = Costs(bench, db)
    pg0, busy0 = bench.pg_cpu.now(), cpu_busy()
    ru0 = os.times()
    r = sampled_run(costs,
        [bench.pgbench, "-n", "-f", bench.scripts[variant], "-c", str(c),
         "-j", str(c),
         "-t", str(per_client + 1), "-M", "prepared",
         "-D", "wid=bench-pgbench", "-D", f"lease={bench.a.lease}",
         "-D", "result={}", "-D", "id=0", "-D", "lease_token=0",
         "-D", f"reclaim_every={bench.a.reclaim_every}",
         "-D", "reclaim_batch=100", "-D", "silent_secs=30",
         "-D", "k=0", "-D", "next_reclaim=0", "-D", "sweep_back_secs=3",
         "-D", "jobs_ready_micros=0",
         db])
    ru1 = os.times()
    wall = ru1.elapsed - ru0.elapsed
    bench.pg_cpu.settle(db)
    pg_cpu = bench.pg_cpu.now() - pg0
    client = (ru1.children_user + ru1.children_system
              - ru0.children_user - ru0.children_system)
    others = (cpu_busy() - busy0 - pg_cpu - client) / wall
    if r.returncode != 0:
        die(f"pgbench {variant} C={c} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    m = re.search(r"^tps = ([0-9.]+) \(without initial connection time\)",
                  r.stdout, re.M)
    if not m:
        die(f"cannot find tps in pgbench's output:\n{r.stdout}")
    rate_db, vacuums = bench.drain_stats(db, n)
    per_job = costs.finish(n)
    drop_db(db)
    return {"rate": float(m.group(1)), "rate_db": rate_db,
            "client_cpu_us": client / n * 1e6, "pg_cpu_us": pg_cpu / n * 1e6,
            "others": others, "vacuums": vacuums, **per_job}


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
