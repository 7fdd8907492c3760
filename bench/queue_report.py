"""The queue benchmark's report (queue_bench.py): the machine and cluster
it ran on, then the tables of parts 1 (throughput), 2 (per-job costs)
and 3 (idle pickup latency), medians and every run. Standard library
only.
"""

import subprocess

from bench_common import fmt_runs, med, run_header


def machine_info(bench):
    settings = bench.admin.query(
        "SELECT string_agg(name || '=' || current_setting(name), ' ' "
        "ORDER BY name) FROM pg_settings WHERE name IN ('fsync', "
        "'synchronous_commit', 'shared_buffers', 'max_connections', "
        "'full_page_writes', 'wal_level', 'autovacuum')")
    version = bench.admin.query("SHOW server_version")
    pgbench = subprocess.run([bench.pgbench, "--version"], capture_output=True,
                             text=True).stdout.strip()
    return run_header(f"{version}, pg_virtualenv throwaway cluster on "
                      f"localhost (TCP), {settings}",
                      f"pgbench     {pgbench}")



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


def report(a, header, migrations, runs, info, lat, graphile_version):
    out = ["awc-worker queue benchmark (bench/queue_bench.py, make bench)", ""]
    out += header
    out += [f"graphile    {graphile_version or 'not run'}",
            f"migrations  {migrations}",
            f"parameters  jobs={a.jobs} repeat={a.repeat} lease={a.lease}s; "
            "medians of the runs, every run listed below",
            "cluster     DURABLE: fsync=on, synchronous_commit=on, "
            "full_page_writes=on",
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
            "   inserted one per transaction by a server-side loop, "
            f"{a.latency_gap_ms} ms apart. Three intervals per job, in ms "
            "(handler start: CLOCK_REALTIME):",
            "   pickup = the producer's COMMIT returning (the job committed "
            "and announced) -> handler start;",
            "   from the INSERT = clock_timestamp() at the INSERT -> handler "
            "start: the pickup plus the producer's commit;",
            "   producer's commit = its INSERT -> its COMMIT returning "
            "(the WAL flush the job waits for, whoever consumes it).",
            "",
            f"   {'':<18} {'p50':>7} {'p99':>7} {'max':>7}   "
            f"{'p50 of each run':<18} goal p50 <= {GOAL_P50_MS:g}, "
            f"p99 <= {GOAL_P99_MS:g}"]

    def verdict(p50, p99):
        return ", ".join(
            f"{name} {'met' if v <= goal else 'NOT MET'}"
            for name, v, goal in (("p50", p50, GOAL_P50_MS),
                                  ("p99", p99, GOAL_P99_MS)))

    for label, pick, judged in (("pickup", lambda r: r["commit"], True),
                                ("from the INSERT", lambda r: r, True),
                                ("producer's commit", lambda r: r["own"],
                                 False)):
        p50s = [pick(r)["p50"] for r in lat]
        p99 = med([pick(r)["p99"] for r in lat])
        mx = med([pick(r)["max"] for r in lat])
        out.append(f"   {label:<18} {med(p50s):7.2f} {p99:7.2f} {mx:7.2f}   "
                   f"{fmt_runs(p50s, '{:.2f}'):<18} "
                   f"{verdict(med(p50s), p99) if judged else ''}".rstrip())
    out.append("   (a negative pickup: the handler started before the "
               "producer's COMMIT returned to it)")
    out.append("   (workers that picked jobs up, per run: "
               f"{' '.join(str(r['workers_used']) for r in lat)})")
    return out
