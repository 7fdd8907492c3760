"""The pinned-horizon benchmark's report (queue_horizon.py): from every
job's insert and done times and the once-a-second samples, per system and
phase the rate done, the backlog, the end-to-end latency, the dead tuples,
the CPU per job and the recovery time; the goals with met / not met; where
PostgreSQL's time goes (pg_stat_statements, per phase); and, for the
results file, the per-second timeline. Standard library only.
"""

import math
import re
from bisect import bisect_left, bisect_right

from bench_common import percentile

PHASES = ("clean", "pinned", "recovery")
GOAL_RATE, GOAL_CONCURRENCY, GOAL_PINNED_SECS = 1000, 2, 600
GOAL_P99_MS, GOAL_RECOVERY_SECS = 100.0, 10.0
# A window is back at the offered rate when it did this share of it with
# at most a second of work waiting, this many windows in a row.
RECOVERED_SHARE, RECOVERED_WINDOWS = 0.95, 5
TOP_STATEMENTS = 6
# How each system's claim reads in pg_stat_statements (whitespace folded,
# constants replaced by $n): awc's kClaim (src/queue/queue_sql.h), the
# query of graphile-worker's getJobs.
CLAIM = {"awc": r"^UPDATE awc\.jobs j SET state = \S+, attempts = j\.attempts",
         "graphile": r"^with j as \( select jobs\.job_queue_id"}


def count(times, a, b):
    """How many of the sorted `times` fall in (a, b]."""
    return bisect_right(times, b) - bisect_right(times, a)


def backlog_max(ins, done, bounds):
    """The largest backlog (inserted, not done) in each interval between
    consecutive `bounds`, exactly: every insert and completion in order,
    inserts first at equal times."""
    out = []
    for a, b in zip(bounds, bounds[1:]):
        i, j = bisect_right(ins, a), bisect_right(done, a)
        m = i - j
        while True:
            ti = ins[i] if i < len(ins) else math.inf
            tj = done[j] if j < len(done) else math.inf
            if min(ti, tj) >= b:
                break
            if ti <= tj:
                i += 1
                m = max(m, i - j)
            else:
                j += 1
        out.append(m)
    return out


def analyse(run, rate):
    """Adds to `run` its per-second windows and its per-phase figures."""
    recs = sorted(run["records"], key=lambda r: r[0])
    ins = [r[0] for r in recs]
    done = sorted(r[1] for r in recs if r[1] is not None)
    m = run["marks"]
    bounds = [m["t0"], m["pin"], m["release"], m["stop"]]
    samples = run["samples"]
    windows = []
    for s0, s1 in zip(samples, samples[1:]):
        dt = s1["t"] - s0["t"]
        windows.append({
            "k": s1["k"], "phase": s1["phase"], "start": s0["t"],
            "dt": dt, "ins": count(ins, s0["t"], s1["t"]),
            "done": count(done, s0["t"], s1["t"]),
            "backlog": bisect_right(ins, s1["t"]) -
            bisect_right(done, s1["t"]),
            "dead": s1["dead"], "pg": (s1["pg"] - s0["pg"]) / dt,
            "fleet": (s1["fleet"] - s0["fleet"]) / dt})
    run["windows"] = windows
    maxima = backlog_max(ins, done, bounds)
    last_k = {p: max(s["k"] for s in samples if s["phase"] == p)
              for p in PHASES}
    phases = {}
    for i, p in enumerate(PHASES):
        a, b = bounds[i], bounds[i + 1]
        lo, hi = bisect_left(ins, a), bisect_left(ins, b)
        lat = sorted((d - t) * 1000 if d is not None else math.inf
                     for t, d in recs[lo:hi])
        s0 = samples[last_k[PHASES[i - 1]] if i else 0]
        s1 = samples[last_k[p]]
        n_done = bisect_left(done, b) - bisect_left(done, a)
        lags = [t - (m["t0"] + n / rate) for t, n in run["acks"] if a <= t < b]
        end = bisect_left(ins, b) - bisect_left(done, b)
        wall = s1["t"] - s0["t"]
        phases[p] = {
            "secs": b - a, "offered": (hi - lo) / (b - a),
            "done": n_done / (b - a), "backlog_max": maxima[i],
            "backlog_end": end,
            "p50": percentile(lat, 50) if lat else math.nan,
            "p99": percentile(lat, 99) if lat else math.nan,
            "max": lat[-1] if lat else math.nan,
            "not_done": sum(1 for x in lat if x == math.inf),
            "dead": s1["dead"], "mib": s1["bytes"] / 2**20,
            "autovacuums": s1["autovacuums"] - s0["autovacuums"],
            "pg_us": (s1["pg"] - s0["pg"]) / max(n_done, 1) * 1e6,
            "fleet_us": (s1["fleet"] - s0["fleet"]) / max(n_done, 1) * 1e6,
            "other": (s1["busy"] - s0["busy"] - (s1["pg_all"] - s0["pg_all"])
                      - (s1["fleet"] - s0["fleet"])
                      - (s1["producer"] - s0["producer"])) / wall,
            "lag_ms": max(lags) * 1000 if lags else math.nan}
    phases["recovery"]["recovery_s"] = recovery_time(
        windows, m["release"], rate)
    run["phases"] = phases


def recovery_time(windows, release, rate):
    """Seconds from the release to the start of the first of
    RECOVERED_WINDOWS windows in a row, within the recovery phase, that
    each did RECOVERED_SHARE of the offered rate and ended with at most a
    second of work waiting; None when there is none."""
    rec = [w for w in windows if w["phase"] == "recovery"]
    good = [w["done"] / w["dt"] >= RECOVERED_SHARE * rate and
            w["backlog"] <= rate for w in rec]
    for i in range(len(rec) - RECOVERED_WINDOWS + 1):
        if all(good[i:i + RECOVERED_WINDOWS]):
            return max(0.0, rec[i]["start"] - release)
    return None


def ms(v):
    return "not done" if v == math.inf else f"{v:.1f}"


def verdict(ok):
    return "met" if ok else "NOT MET"


def goal_lines(a, runs):
    """The goals, judged on awc-worker's pinned and recovery phases, with
    graphile-worker's figures beside."""
    rate = a.rate
    hdr = f"  {'goal':<52} " + " ".join(f"{r['title']:>26}" for r in runs)
    out = [f"Goals: at {GOAL_RATE} jobs/s offered, C = {GOAL_CONCURRENCY}, "
           f"a {GOAL_PINNED_SECS // 60}-minute pinned horizon "
           "(judged for awc-worker; the others' figures beside).", hdr,
           "  " + "-" * (len(hdr) - 2)]

    def line(goal, figure, ok):
        cells = [(figure(r) + (f" {verdict(ok(r))}"
                               if r["system"] == "awc" else "")).rjust(26)
                 for r in runs]
        out.append(f"  {goal:<52} " + " ".join(cells))

    def backlog(r):
        p = r["phases"]["pinned"]
        return p["backlog_max"]

    line(f"the fleet keeps up: backlog <= 1 s of work ({rate} jobs)",
         lambda r: f"max {backlog(r)} ({backlog(r) / rate:.2f} s)",
         lambda r: backlog(r) <= rate)
    line(f"end-to-end p99 < {GOAL_P99_MS:.0f} ms while pinned",
         lambda r: f"p99 {ms(r['phases']['pinned']['p99'])} ms",
         lambda r: r["phases"]["pinned"]["p99"] < GOAL_P99_MS)

    def rec(r):
        v = r["phases"]["recovery"]["recovery_s"]
        return f"> {a.recovery} s" if v is None else f"{v:.1f} s"

    line(f"back at the offered rate <= {GOAL_RECOVERY_SECS:.0f} s after "
         "the release", rec,
         lambda r: (r["phases"]["recovery"]["recovery_s"] is not None and
                    r["phases"]["recovery"]["recovery_s"]
                    <= GOAL_RECOVERY_SECS))
    if (a.rate, a.concurrency, a.pinned) != \
            (GOAL_RATE, GOAL_CONCURRENCY, GOAL_PINNED_SECS):
        out.append(f"  (this run: {a.rate} jobs/s, C = {a.concurrency}, "
                   f"{a.pinned} s pinned; the goal's shape is {GOAL_RATE} "
                   f"jobs/s, C = {GOAL_CONCURRENCY}, {GOAL_PINNED_SECS} s, "
                   "so these verdicts are indicative only)")
    return out


def phase_tables(a, runs, tick_ms):
    out = ["1. Per phase. offered = jobs inserted / s; done = jobs done / s; "
           "backlog = jobs inserted and not",
           "   done (at most C of them in a handler), its largest value in "
           "the phase and at its end, (s) in",
           f"   seconds of work at {a.rate} jobs/s; latency = end to end, "
           "of the jobs inserted in the phase;",
           "   recovery = seconds from the release to the first of "
           f"{RECOVERED_WINDOWS} one-second windows in a row that did",
           f"   >= {RECOVERED_SHARE:.0%} of the offered rate with <= 1 s of "
           "work left.", ""]
    hdr = (f"{'system':<16} {'phase':<8} {'secs':>5} | {'offered':>7} "
           f"{'done':>7} | {'backlog max':>11} {'(s)':>6} {'end':>7} "
           f"{'(s)':>6} | {'p50 ms':>7} {'p99 ms':>8} {'max ms':>8} | "
           "recovery")
    out += [hdr, "-" * len(hdr)]
    for r in runs:
        for p in PHASES:
            f = r["phases"][p]
            rec = ""
            if p == "recovery":
                rec = (f"> {a.recovery} s" if f["recovery_s"] is None
                       else f"{f['recovery_s']:.1f} s")
            out.append(
                f"{r['title']:<16} {p:<8} {f['secs']:>5.0f} | "
                f"{f['offered']:>7.1f} {f['done']:>7.1f} | "
                f"{f['backlog_max']:>11} {f['backlog_max'] / a.rate:>6.2f} "
                f"{f['backlog_end']:>7} {f['backlog_end'] / a.rate:>6.2f} | "
                f"{ms(f['p50']):>7} {ms(f['p99']):>8} {ms(f['max']):>8} | "
                f"{rec}".rstrip())
            if f["not_done"]:
                out.append(f"{'':<16} {'':<8} {f['not_done']} jobs "
                           "inserted in this phase were never done")
    out += ["",
            "   dead = n_dead_tup of the queue table at the phase's end "
            "(pg_stat_user_tables); MiB = the table",
            "   with its indexes and TOAST then; av = autovacuum runs in "
            "the phase; CPU in us per job done: PostgreSQL",
            "   (the cluster less the backends of the producer, the pin and "
            "the monitor: the fleet's backends,",
            "   autovacuum, the WAL writer, the checkpointer...) and the "
            "fleet (its processes); other = CPUs kept",
            "   busy outside PostgreSQL, the fleet and the producer (the "
            "monitor, other work); lag = how late the",
            f"   producer's last INSERT in the phase committed after its "
            f"last job was due (ticks of {tick_ms} ms).", ""]
    hdr = (f"{'system':<16} {'phase':<8} | {'dead':>9} {'MiB':>8} {'av':>3} "
           f"| {'PG us/job':>9} {'fleet us/job':>12} {'other':>6} | "
           f"{'lag ms':>7}")
    out += [hdr, "-" * len(hdr)]
    behind = []
    for r in runs:
        for p in PHASES:
            f = r["phases"][p]
            out.append(
                f"{r['title']:<16} {p:<8} | {f['dead']:>9} {f['mib']:>8.1f} "
                f"{f['autovacuums']:>3} | {f['pg_us']:>9.0f} "
                f"{f['fleet_us']:>12.0f} {max(0.0, f['other']):>6.2f} | "
                f"{f['lag_ms']:>7.1f}")
            if f["lag_ms"] > 100 or f["offered"] < 0.98 * a.rate:
                behind.append(f"{r['title']} {p}")
    if behind:
        out.append("   THE PRODUCER FELL BEHIND (a commit > 100 ms late, or "
                   "< 98 % of the rate offered): " + ", ".join(behind))
    else:
        out.append("   The producer kept its pace in every phase (every "
                   "commit <= 100 ms after its jobs were due).")
    return out


def statement_tables(runs):
    out = ["2. Where the time goes: pg_stat_statements, top-level "
           "statements of each run's database, per phase",
           "   (differences between reads at the phase's ends); hits = "
           "shared_blks_hit, the buffers a call touched."]
    for r in runs:
        snaps = r["statements"]
        if len(snaps) != len(PHASES) + 1:
            out += ["", f"{r['title']}: pg_stat_statements not available "
                    f"({r['statements_error'] or 'not read'})"]
            continue
        per_phase = []
        for s0, s1 in zip(snaps, snaps[1:]):
            per_phase.append(sorted(
                ((c - s0.get(q, (0, 0, 0))[0], t - s0.get(q, (0, 0, 0))[1],
                  h - s0.get(q, (0, 0, 0))[2], text)
                 for q, (c, t, h, text) in s1.items()),
                key=lambda x: -x[1]))
        claim = re.compile(CLAIM[r["system"]])
        texts = {x[3][:60] for rows in per_phase for x in rows
                 if claim.search(x[3])}
        out += ["", f"{r['title']}: the claim, per phase ("
                + ("; ".join(sorted(texts)) or "no statement matched "
                   f"/{CLAIM[r['system']]}/") + "...)",
                f"   {'phase':<9} {'calls':>9} {'ms/call':>9} "
                f"{'hits/call':>10} {'ms per job done':>16}"]
        for p, rows in zip(PHASES, per_phase):
            cl = [x for x in rows if claim.search(x[3])]
            calls = sum(x[0] for x in cl)
            total = sum(x[1] for x in cl)
            hits = sum(x[2] for x in cl)
            jobs = r["phases"][p]["done"] * r["phases"][p]["secs"]
            out.append(f"   {p:<9} {calls:>9} "
                       f"{total / max(calls, 1):>9.3f} "
                       f"{hits / max(calls, 1):>10.1f} "
                       f"{total / max(jobs, 1):>16.3f}")
        for p, rows in zip(PHASES, per_phase):
            phase_total = sum(x[1] for x in rows) or 1.0
            out += ["", f"   {r['title']}, {p}: top {TOP_STATEMENTS} of "
                    f"{phase_total:.0f} ms",
                    f"   {'total ms':>10} {'share':>6} {'calls':>9} "
                    f"{'ms/call':>9} {'hits/call':>10}  statement"]
            for calls, total, hits, text in rows[:TOP_STATEMENTS]:
                if calls <= 0:
                    continue
                out.append(f"   {total:>10.1f} {total / phase_total:>6.1%} "
                           f"{calls:>9} {total / calls:>9.3f} "
                           f"{hits / calls:>10.1f}  {text[:70]}")
    return out


def report(a, header, bench, runs, tick_ms, drain_secs):
    for r in runs:
        analyse(r, a.rate)
    out = ["The queue under a pinned MVCC horizon (bench/queue_horizon.py, "
           "make bench-horizon)", ""]
    out += header
    statements = next((r["statements_error"] for r in runs
                       if r["statements_error"]), None)
    daemon = bench.daemon_bin if any(r["system"] == "awc" for r in runs) \
        else "not run"
    out += [f"graphile    {bench.graphile_version or 'not run'}",
            f"daemon      {daemon}",
            f"migrations  {getattr(bench, 'migrations', 'not run')}",
            "statements  pg_stat_statements " +
            (f"NOT AVAILABLE: {statements}" if statements else "loaded"),
            f"parameters  {a.rate} jobs/s offered, C = {a.concurrency}; "
            f"clean {a.clean} s, pinned {a.pinned} s, recovery "
            f"{a.recovery} s;",
            f"            one multi-row INSERT every {tick_ms} ms; then a "
            f"drain of up to {drain_secs} s; one run per system",
            "cluster     DURABLE: fsync=on, synchronous_commit=on, "
            "full_page_writes=on", ""]
    out += ["Each system in a fresh database of the same cluster. The pin: "
            "a session of that database runs",
            "BEGIN; SELECT txid_current(); as the pinned phase starts and "
            "stays idle in transaction",
            "(idle_in_transaction_session_timeout = 0) until its ROLLBACK "
            "as the phase ends. End to end =",
            "the producer's INSERT transaction (awc-worker: created_at; "
            "graphile-worker: now() in the payload,",
            "written by the same INSERT) to the handler done (awc-worker: "
            "finished_at, set by the recording",
            "transaction right after the handler; graphile-worker: "
            "Date.now() as its task ends).", ""]
    for r in runs:
        d = r["marks"]["drained"]
        out.append(f"{r['title']}: {r['inserted']} jobs inserted, pinned by "
                   f"xid {r['xid']}, " +
                   (f"drained {d - r['marks']['stop']:.1f} s after the "
                    "producer stopped" if d else
                    f"NOT drained {drain_secs} s after the producer stopped"))
    out += [""] + goal_lines(a, runs) + [""]
    out += phase_tables(a, runs, tick_ms) + [""]
    out += statement_tables(runs)
    out += ["", "The per-second timeline of each run follows in the results "
            "file."]
    return out


def timeline(a, runs):
    """One row per second, the systems side by side."""
    out = ["3. Timeline, one row per second since the producer started (a "
           "window ends at t): ins, done = jobs",
           "   inserted, done in the window; backlog = inserted and not done "
           "at t; dead = n_dead_tup; pg, fleet =",
           "   CPUs busy in the window (PostgreSQL as in 1.)."]
    cols = f"{'ins':>6} {'done':>6} {'backlog':>8} {'dead':>9} {'pg':>5} " \
        f"{'fleet':>5}"
    out += ["", f"{'':>5} {'':<8} " + " | ".join(
        f"{r['title']:<{len(cols)}}" for r in runs),
        f"{'t':>5} {'phase':<8} " + " | ".join(cols for _ in runs)]
    out.append("-" * len(out[-1]))
    for i in range(max(len(r["windows"]) for r in runs)):
        ws = [r["windows"][i] if i < len(r["windows"]) else None
              for r in runs]
        first = next(w for w in ws if w)
        cells = [f"{w['ins']:>6} {w['done']:>6} {w['backlog']:>8} "
                 f"{w['dead']:>9} {w['pg']:>5.2f} {w['fleet']:>5.2f}"
                 if w else " " * len(cols) for w in ws]
        out.append(f"{first['k']:>5} {first['phase']:<8} " +
                   " | ".join(cells).rstrip())
    return out
