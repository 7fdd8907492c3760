#!/usr/bin/env python3
"""The queue under a pinned horizon (make bench-horizon; see
bench/README.md, "The queue under a pinned horizon").

A long transaction elsewhere in the same database, a session idle in
transaction that holds an xid, pins the MVCC horizon: vacuum reclaims
nothing, every claim walks an ever-growing tail of dead index entries, and
queues collapse. This measures what that does to awc-worker (the real
daemon, awc-worker-bench, as a process) and to graphile-worker, each in a
fresh database of one cluster, under the same steady load:

  1. clean (BENCH_HORIZON_CLEAN_SECS): a producer process inserts RATE
     jobs/s, one autocommitted multi-row INSERT every 10 ms, for a fleet
     of C workers;
  2. pinned (BENCH_HORIZON_PINNED_SECS): a session of the same database
     runs BEGIN; SELECT txid_current(); and stays idle in transaction;
  3. recovery (BENCH_HORIZON_RECOVERY_SECS): the pin rolled back;
then the producer stops and the fleet gets up to DRAIN_SECS to drain.

A monitoring session samples once a second the queue table's dead tuples
(pg_stat_user_tables) and the CPU of PostgreSQL, of the fleet and of the
machine; pg_stat_statements, when loaded, is read at each phase's ends.
Each job's insert and done times are read after the run (awc.jobs keeps
COMPLETED jobs; graphile-worker's task writes them to a file), so that
nothing counts the bloated table during the run: jobs done per second,
the backlog and the end-to-end latency (the producer's INSERT transaction
to the handler done) come from them. It requires a cluster at
PostgreSQL's default durability (fsync and synchronous_commit on).
Standard library only.
"""

import argparse
import datetime
import os
import shutil
import signal
import sys
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from the imports below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (create_db, die, drop_db, env_int, log,  # noqa: E402
                          run_header, write_report)
from queue_bench import TEMPLATE_DB, Bench  # noqa: E402
from queue_graphile import (GRAPHILE_TEMPLATE_DB,  # noqa: E402
                            add_graphile_argument,
                            make_graphile_template)
from queue_horizon_fleet import (GRAPHILE_TASK, AwcFleet,  # noqa: E402
                                 GraphileFleet, Monitor, Pin, Producer,
                                 enable_statements, statements)
from queue_horizon_report import report, timeline  # noqa: E402

SYSTEMS = ("awc", "graphile")
TICK_MS = 10
DRAIN_SECS = 120


def run_system(bench, system):
    """One run: the fleet, the producer through the three phases, the
    drain; returns what the report needs."""
    a = bench.a
    if system == "awc":
        db = bench.fresh_db(0)
    else:
        bench.seq += 1
        db = f"awc_bench_{bench.seq}"
        drop_db(db)
        create_db(db, GRAPHILE_TEMPLATE_DB)
    statements_error = enable_statements(db)
    fleet = (AwcFleet if system == "awc" else GraphileFleet)(
        bench, db, a.concurrency)
    pin = Pin(db)
    producer = Producer(db, system, a.rate, TICK_MS, bench.workdir)
    mon = Monitor(bench, db, fleet.table, fleet.pgid, producer, pin.pid)
    fleet.wait_ready(mon.s, a.concurrency)
    snaps = [statements(mon.s)] if statements_error is None else []
    ends = (a.clean, a.clean + a.pinned, a.clean + a.pinned + a.recovery)
    t0 = time.time() + 0.5
    producer.go(t0)
    log(f"{fleet.title}: producing {a.rate} jobs/s for C={a.concurrency}, "
        f"phases {a.clean} + {a.pinned} + {a.recovery} s")
    marks, samples = {"t0": t0}, []
    for k in range(ends[-1] + 1):
        time.sleep(max(0.0, t0 + k - time.time()))
        phase = "clean" if k <= ends[0] else \
            "pinned" if k <= ends[1] else "recovery"
        samples.append(mon.sample(k, phase))
        fleet.check_alive()
        producer.check_alive()
        if k in ends and snaps:
            snaps.append(statements(mon.s))
        if k == ends[0]:
            marks["pin"] = pin.begin()
            log(f"{fleet.title}: horizon pinned by xid {pin.xid}")
        elif k == ends[1]:
            marks["release"] = pin.release()
            log(f"{fleet.title}: horizon released")
        if k % 10 == 0:
            s = samples[-1]
            log(f"{fleet.title} t={k:>4}s {phase:<8} dead tuples "
                f"{s['dead']:>9} table {s['bytes'] / 2**20:7.1f} MiB "
                f"autovacuums {s['autovacuums']}")
    n, acks = producer.stop()
    marks["stop"] = time.time()
    deadline = marks["stop"] + DRAIN_SECS
    k = ends[-1]
    marks["drained"] = None
    while time.time() < deadline:
        if fleet.drained(mon.s, n):
            marks["drained"] = time.time()
            break
        k += 1
        time.sleep(max(0.0, t0 + k - time.time()))
        samples.append(mon.sample(k, "drain"))
        fleet.check_alive()
    if marks["drained"] is None:
        log(f"warning: {fleet.title} did not drain within {DRAIN_SECS} s")
    fleet.stop()
    mon.close()
    pin.close()
    records = fleet.records()
    if len(records) != n:
        log(f"warning: {fleet.title}: {len(records)} jobs found, the "
            f"producer inserted {n}")
    drop_db(db)
    return {"system": system, "title": fleet.title, "db": db,
            "inserted": n, "acks": acks, "marks": marks,
            "samples": samples, "records": records, "xid": pin.xid,
            "statements": snaps, "statements_error": statements_error}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--rate", type=int,
                    default=env_int("BENCH_HORIZON_RATE", 1000),
                    help="jobs/s offered (BENCH_HORIZON_RATE, 1000)")
    ap.add_argument("--concurrency", type=int,
                    default=env_int("BENCH_HORIZON_CONCURRENCY", 2),
                    help="workers / graphile-worker -j "
                         "(BENCH_HORIZON_CONCURRENCY, 2)")
    ap.add_argument("--clean", type=int,
                    default=env_int("BENCH_HORIZON_CLEAN_SECS", 30),
                    help="seconds before the pin (BENCH_HORIZON_CLEAN_SECS, "
                         "30)")
    ap.add_argument("--pinned", type=int,
                    default=env_int("BENCH_HORIZON_PINNED_SECS", 600),
                    help="seconds pinned (BENCH_HORIZON_PINNED_SECS, 600)")
    ap.add_argument("--recovery", type=int,
                    default=env_int("BENCH_HORIZON_RECOVERY_SECS", 60),
                    help="seconds after the release "
                         "(BENCH_HORIZON_RECOVERY_SECS, 60)")
    ap.add_argument("--systems", default=os.environ.get(
                        "BENCH_HORIZON_SYSTEMS", "awc graphile"),
                    help="awc and/or graphile (BENCH_HORIZON_SYSTEMS, "
                         "'awc graphile')")
    ap.add_argument("--daemon", default=os.environ.get(
                        "BENCH_HORIZON_DAEMON", ""),
                    help="another awc-worker-bench to run instead of the "
                         "build's (BENCH_HORIZON_DAEMON)")
    add_graphile_argument(ap)
    ap.add_argument("--results", default=os.environ.get(
                        "BENCH_HORIZON_RESULTS", ""),
                    help="results file (BENCH_HORIZON_RESULTS; default "
                         "bench/results/horizon-<date>.txt)")
    a = ap.parse_args()
    systems = [s for s in SYSTEMS if s in a.systems.split()]
    for s in a.systems.split():
        if s not in SYSTEMS:
            die(f"unknown system {s!r} (awc, graphile)")
    if a.graphile == "off" and "graphile" in systems:
        systems.remove("graphile")
    if not systems:
        die("no system to run (BENCH_HORIZON_SYSTEMS, BENCH_GRAPHILE)")
    if min(a.rate, a.concurrency, a.clean, a.pinned, a.recovery) <= 0:
        die("the rate, the concurrency and every phase must be positive")
    a.graphile = a.graphile if "graphile" in systems else ""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for k in ("PGHOST", "PGPORT", "PGUSER", "PGPASSWORD"):
        if k not in os.environ:
            die(f"{k} is not set: run under pg_virtualenv (make "
                "bench-horizon)")
    results = a.results or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results",
        f"horizon-{datetime.date.today().isoformat()}.txt")

    started = time.monotonic()
    bench = Bench(a, pgbench=False, make_target="make bench-horizon")
    if a.daemon:
        if not os.access(a.daemon, os.X_OK):
            die(f"{a.daemon} is not an executable")
        bench.daemon_bin = os.path.abspath(a.daemon)
    header = run_header(
        f"{bench.admin.query('SHOW server_version')}, pg_virtualenv "
        "throwaway cluster on localhost (TCP), " + bench.admin.query(
            "SELECT string_agg(name || '=' || current_setting(name), ' ' "
            "ORDER BY name) FROM pg_settings WHERE name IN ('fsync', "
            "'synchronous_commit', 'full_page_writes', 'shared_buffers', "
            "'autovacuum', 'autovacuum_naptime', "
            "'autovacuum_vacuum_scale_factor', 'shared_preload_libraries')"))
    log("\n  ".join(["machine:"] + header))
    if "awc" in systems:
        bench.make_template()
    if a.graphile:
        make_graphile_template(bench, GRAPHILE_TASK)

    runs = [run_system(bench, s) for s in systems]
    if "awc" in systems:
        drop_db(TEMPLATE_DB)
    if a.graphile:
        drop_db(GRAPHILE_TEMPLATE_DB)
    bench.admin.close()
    shutil.rmtree(bench.workdir, ignore_errors=True)
    write_report(report(a, header, bench, runs, TICK_MS, DRAIN_SECS),
                 started, results, timeline(a, runs))


if __name__ == "__main__":
    main()
