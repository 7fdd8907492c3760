"""The storage benchmarks' report (storage_bench.py): the machine, the
tools and the cluster they ran on, then the tables of parts 1 (file://),
2 (s3://), 3 (GC, with the plan's EXPLAIN), 4 (the walk at scale) and 5
(s3:// at a real object store's latency) and 6 (shared content, in
storage_dedup_report.py), medians and every run. Standard library only.
"""

import datetime
import json
import os
import platform
import subprocess
import tempfile

from bench_common import git_commit, load_avg, med, psql


def machine_info(a):
    model, flags = "?", []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1].split()
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])

    def first_line(args):
        try:
            r = subprocess.run(args, capture_output=True, text=True)
            return (r.stdout or r.stderr).strip().split("\n")[0]
        except OSError:
            return "?"

    s3rver_version = "not installed"
    pkg = os.path.join(os.path.dirname(os.path.dirname(a.s3rver)),
                       "package.json")
    try:
        with open(pkg) as f:
            s3rver_version = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        pass
    pg = "not used"  # only the GC part uses it
    if "PGHOST" in os.environ and {"gc", "dedup"} & set(
            a.parts.replace(",", " ").split()):
        pg = psql("postgres", "SELECT version()").split(" on ")[0] + ", " + \
            psql("postgres",
                 "SELECT string_agg(name || '=' || current_setting(name), ' ' "
                 "ORDER BY name) FROM pg_settings WHERE name IN ('fsync', "
                 "'shared_buffers', 'work_mem', 'jit', "
                 "'max_parallel_workers_per_gather', 'synchronous_commit')")
    fs = first_line(["stat", "-f", "-c", "%T", a.tmpdir or tempfile.gettempdir()])
    commit = os.environ.get("BENCH_COMMIT") or git_commit()
    # Uncommitted changes to what is measured (bench/ itself is not).
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", ":/src", ":/migrations",
         ":/CMakeLists.txt"], capture_output=True, text=True,
        cwd=os.path.dirname(os.path.abspath(__file__))).stdout.split("\n")
    changed = [line[3:] for line in changed if line.strip()]
    return [
        f"date        {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"commit      {commit}; uncommitted changes in "
        f"src/, migrations/: {', '.join(changed) if changed else 'none'}",
        f"machine     {os.cpu_count()} CPUs ({model}; sha_ni "
        f"{'yes' if 'sha_ni' in flags else 'no'}), {mem_kb / 1048576:.1f} GiB, "
        f"Linux {platform.release()}",
        f"scratch     {a.tmpdir or tempfile.gettempdir()} ({fs})",
        f"postgresql  {pg}",
        f"s3rver      {s3rver_version} on node {first_line(['node', '--version'])}"
        " (--silent), loopback",
        f"hashers     {first_line(['sha256sum', '--version'])}; "
        f"{first_line(['openssl', 'version'])}",
        f"load avg    {load_avg()} at start",
    ]


def summarize_explain(lines):
    """One line: the eligible scan's filter, the loops of a per-object
    snapshot_objects probe, the statement's buffers and execution time."""
    filt, loops, bufs, exe, workers = "?", "", "?", "?", ""
    anti = [line.strip().lstrip("-> ").split("  (")[0] for line in lines
            if "Anti Join" in line]
    if anti:
        filt = f"{len(anti)} anti-joins ({', '.join(sorted(set(anti)))})"
    for line in lines:
        t = line.strip()
        if t.startswith("Filter:") and "SubPlan" in t and filt == "?":
            filt = t[len("Filter: "):]
        if "snapshot_objects_digest_idx" in t and "loops=" in t:
            loops = t[t.rindex("loops=") + 6:].rstrip(")")
        if t.startswith("Buffers:") and bufs == "?":
            bufs = t[len("Buffers: "):]
        if t.startswith("Workers Launched:") and not workers:
            workers = f", {t[len('Workers Launched: '):]} parallel workers"
        if t.startswith("Execution Time:"):
            exe = t[len("Execution Time: "):]
    probe = f", snapshot_objects probed {loops} times" if loops else ""
    return f"{filt}{probe}{workers}; {bufs}; {exe}"


def table_head(hdr):
    """A table's header line and the rule under it."""
    return [hdr, "   " + "-" * (len(hdr) - 3)]


def tree_line(a, g, nbytes):
    """What a generated snapshot tree holds (awc-bench-storage gen)."""
    return (f"   tree: {g['objects']} objects, {nbytes} bytes "
            f"({nbytes / 2**20:.0f} MiB): {g['large_blobs']} blob(s) of "
            f"{a.large_mib} MiB, {g['small_blobs']} of 4-64 KiB, "
            f"{g['manifests']} manifests")


def file_part(a, r):
    """Part 1 of the report: validation throughput over file://."""
    out = []
    g = r["gen"]
    out += [
        "1. Validation throughput, file:// store.",
        tree_line(a, g, r["bytes"]) + " (root -> 8 -> 64 leaves);",
        f"   written with the store's Put (fsync each) in {g['seconds']:.1f} s.",
        "   walk       = cas::WalkClosure (awc-bench-storage walk), the "
        "validate handler's walk; its own clock",
        "   hash-files = read every object file in 64 KiB chunks + "
        "digest::Sha256 (OpenSSL), no store, no closure",
        "   sha256sum  = find DIR -type f -print0 | xargs -0 sha256sum "
        "(GNU coreutils, its own SHA-256 code)",
        "   openssl    = find DIR -type f -print0 | xargs -0 openssl dgst "
        "-sha256 -r",
        "   all four read exactly the same files (every object of the "
        "closure, manifests included).",
        ""]
    hdr = (f"   {'cache':<5} | {'walk MB/s':>9} | {'hash-files':>10} | "
           f"{'sha256sum':>9} | {'openssl':>7} | {'walk/sha256sum':>14} | "
           f"{'walk/hash-files':>15}")
    out += table_head(hdr)
    for mode in r["modes"]:
        rr = r["runs"][mode]
        m = {k: med([x["mbps"] for x in rr[k]]) for k in rr}
        out.append(
            f"   {mode:<5} | {m['walk']:>9.0f} | {m['hash-files']:>10.0f} | "
            f"{m['sha256sum']:>9.0f} | {m['openssl']:>7.0f} | "
            f"{m['walk'] / m['sha256sum']:>14.2f} | "
            f"{m['walk'] / m['hash-files']:>15.2f}")
    out += ["", "   every run: MB/s (CPU seconds of the process, other = "
            "CPUs busy outside it)"]
    for mode in r["modes"]:
        for k, rr in r["runs"][mode].items():
            out.append(f"   {mode:<5} {k:<10} " + "  ".join(
                f"{x['mbps']:6.0f} ({x['cpu']:.2f} s, other {x['others']:.2f})"
                for x in rr))
    out.append("")
    return out


def s3_part(a, r):
    """Part 2 of the report: validation throughput over s3:// (s3rver)."""
    out = []
    g = r["gen"]
    out += [
        "2. Validation throughput, s3:// store against s3rver on loopback.",
        tree_line(a, g, g["bytes"]) + ";",
        f"   uploaded with the store's Put, one object at a time, in "
        f"{g['seconds']:.1f} s (s3rver CPU {g['server_cpu']:.1f} s).",
        "   walk = cas::WalkClosure; s3rver CPU = its CPU seconds during "
        "the walk / the walk's seconds.",
        ""]
    hdr = (f"   {'AWC_S3_MAX_CONCURRENCY':<22} | {'MB/s':>6} | "
           f"{'objects/s':>9} | {'seconds':>7} | {'client CPU':>10} | "
           f"{'s3rver CPU':>10} | {'in flight':>9} | {'conns':>5}")
    out += table_head(hdr)
    for name, rr in r["runs"].items():
        label = name if name != "default" else \
            f"default ({rr[0]['parallelism']})"
        out.append(
            f"   {label:<22} | {med([x['mbps'] for x in rr]):>6.1f} | "
            f"{med([x['objps'] for x in rr]):>9.0f} | "
            f"{med([x['seconds'] for x in rr]):>7.2f} | "
            f"{med([x['_cpu'] for x in rr]):>8.2f} s | "
            f"{med([x['server_cpu'] / x['seconds'] for x in rr]):>10.2f} | "
            f"{max(x['max_in_flight'] for x in rr):>9} | "
            f"{max(x['connections'] for x in rr):>5}")
    out += ["", "   every run: MB/s (s3rver CPU, other)"]
    for name, rr in r["runs"].items():
        out.append(f"   {name:<8} " + "  ".join(
            f"{x['mbps']:5.1f} ({x['server_cpu'] / x['seconds']:.2f}, "
            f"{x['others']:.2f})" for x in rr))
    out.append("")
    return out


def gc_part(a, r):
    """Part 3 of the report: GC cost."""
    out = []
    out += [
        "3. GC cost for one tenant (gc::RunSweep in-process, "
        f"AWC_GC_BATCH_SIZE={a.gc_batch}, canary 10, grace 86400 s), on "
        "a durable cluster.",
        "   Mix by i % 100: 80 % in READY snapshots' closures (a quarter "
        "in two), 5 % only in RELEASED ones, 2 % pinned,",
        "   10 % unreferenced and old, 3 % unreferenced and young: 15 % "
        f"eligible. One READY snapshot per {a.gc_per_snapshot} "
        "objects (at least 4), one RELEASED per 10 READY.",
        "   dry run = one RunSweep with dry_run (lock, plan, record; "
        "after a warm-up dry run); full = one whole epoch:",
        "   plan | mark = re-check under row locks + DELETING, per batch "
        "| store = select + DeleteMany (file://, real files)",
        "   | finish = rows removed | canary = live check of the 10 "
        "deleted | complete = epoch, audit, unlock. Seconds.",
        ""]
    hdr = (f"   {'objects':>9} | {'eligible':>8} | {'dry run':>7} | "
           f"{'full':>7} | {'plan':>7} | {'mark':>6} | {'store':>6} | "
           f"{'finish':>6} | {'canary':>6} | {'complete':>8} | "
           f"{'plan us/object':>14}")
    out += table_head(hdr)
    for n in r["sizes"]:
        rr = r["runs"][n]
        m = {k: med([x[k] for x in rr]) for k in (
            "dry_seconds", "full_seconds", "plan", "mark", "store_delete",
            "finish", "canary_check", "complete")}
        out.append(
            f"   {n:>9} | {rr[0]['eligible']:>8} | {m['dry_seconds']:>7.3f} | "
            f"{m['full_seconds']:>7.3f} | {m['plan']:>7.3f} | "
            f"{m['mark']:>6.3f} | {m['store_delete']:>6.3f} | "
            f"{m['finish']:>6.3f} | {m['canary_check']:>6.3f} | "
            f"{m['complete']:>8.3f} | {m['plan'] / n * 1e6:>14.2f}")
    sizes = r["sizes"]
    if len(sizes) > 1:
        out.append("")
        out.append("   growth (median plan time ratio / object count "
                   "ratio): " + ", ".join(
            f"{sizes[i]}->{sizes[i + 1]}: x{med([x['plan'] for x in r['runs'][sizes[i + 1]]]) / med([x['plan'] for x in r['runs'][sizes[i]]]):.1f}"
            f" / x{sizes[i + 1] / sizes[i]:.0f}"
            for i in range(len(sizes) - 1)))
    big = [n for n in sizes if n >= 10_000_000]
    if big:
        n = big[0]
        full = med([x["full_seconds"] for x in r["runs"][n]])
        out.append(
            f"   goal: a full epoch (plan + {a.gc_batch} deletions) at "
            f"{n} objects <= 15 s: {full:.1f} s, "
            f"{'met' if full <= 15 else 'NOT met'}")
    out += ["", "   databases (objects | snapshot_objects | snapshots | "
            "pins | database | awc.objects | awc.snapshot_objects), "
            "fill time:"]
    for n in sizes:
        out.append(f"   {n:>9}: {' | '.join(r['db'][n])}, filled in "
                   f"{r['populate'][n]:.0f} s")
    out += ["", "   every run: warm-up dry run / dry run / full epoch "
            "(its plan) in s, deleted; CPU s of the whole gc program",
            "   run (client + PostgreSQL: warm-up, dry run, filling the "
            "store, full epoch); other = CPUs busy outside both"]
    for n in sizes:
        out.append(f"   {n:>9} " + "  ".join(
            f"{x['dry_first_seconds']:.3f}/{x['dry_seconds']:.3f}/"
            f"{x['full_seconds']:.3f} ({x['plan']:.3f}) {x['deleted']}; "
            f"{x['_cpu']:.2f} + {x['pg_cpu']:.2f}, other {x['others']:.2f}"
            for x in r["runs"][n]))
    if r.get("explain"):
        out += ["", "   The plan statement (gc::sql::kEligible) by size, from "
                "EXPLAIN (ANALYZE, BUFFERS) after the last run:",
                "   the filter of the eligible objects' scan (a 'hashed "
                "SubPlan' is built once, a plain 'SubPlan' runs once",
                "   per object), the loops of the snapshot_objects "
                "probe, shared buffers touched, execution time."]
        for n in sizes:
            lines = r["explain"][n]
            out.append(f"   {n:>9}: " + summarize_explain(lines))
        n = sizes[-1]
        out += ["", f"   EXPLAIN (ANALYZE, BUFFERS) of gc::sql::kEligible at "
                f"{n} objects (custom plan, as the sweep's unnamed "
                "statement gets):", ""]
        out += ["   " + line for line in r["explain"][n]]
    out.append("")
    return out


def baseline_name(build):
    """What the scale part's "old" walk is: the commit bench/build_baseline.sh
    built, else the build directory given."""
    if not build:
        return "none (no baseline build)"
    try:
        with open(os.path.join(build, "baseline-commit")) as f:
            return f"the walk of commit {f.read().strip()}"
    except OSError:
        return f"the walk of the build in {build}"


def scale_part(a, scale_r):
    """Part 4 of the report: the walk at scale."""
    out = []
    out += [
        "4. The walk at scale: memory and objects/s (awc-bench-scale).",
        f"   tree: N tiny blobs (about 20 bytes) under manifests of "
        f"{a.scale_fanout} entries (root -> mids -> leaves -> blobs);",
        "   file:// trees are written once as plain files and walked warm; "
        f"above {a.scale_file_max} objects the store is memory:// in the "
        "walking process",
        "   (ten million files would need ~40 GB of 4 KiB blocks), its "
        "objects part of the idle size.",
        "   idle = VmRSS before the walk (store open, tree made); peak = "
        "VmHWM after it, reset just before it",
        "   (/proc/self/clear_refs); new = this tree, old = "
        + baseline_name(a.baseline_build) + ".",
        "   goals: peak - idle <= 64 MiB at 10M objects; new objects/s >= "
        "0.90 x old at 1M.",
        ""]
    hdr = (f"   {'objects':>9} | {'store':<6} | {'walk':<4} | "
           f"{'objects/s':>9} | {'seconds':>8} | {'idle MiB':>8} | "
           f"{'peak MiB':>8} | {'peak-idle':>9} | goal")
    out += table_head(hdr)
    for r in scale_r:
        for name, runs in r["runs"].items():
            ops = med([x["objects"] / x["seconds"] for x in runs])
            secs = med([x["seconds"] for x in runs])
            idle = med([x["idle_kib"] / 1024 for x in runs])
            peak = med([x["peak_kib"] / 1024 for x in runs])
            grow = med([(x["peak_kib"] - x["idle_kib"]) / 1024 for x in runs])
            goal = ""
            if name == "new":
                goal = f"<= 64 MiB: {'met' if grow <= 64 else 'NOT met'}"
                old = r["runs"].get("old")
                if old:
                    ratio = ops / med([x["objects"] / x["seconds"] for x in old])
                    goal += f"; {ratio:.2f} x old"
                    if r["n"] == 1000000:
                        goal += (" (>= 0.90: "
                                 f"{'met' if ratio >= 0.90 else 'NOT met'})")
            out.append(f"   {r['runs'][name][0]['objects']:>9} | "
                       f"{r['store']:<6} | {name:<4} | {ops:>9.0f} | "
                       f"{secs:>8.2f} | {idle:>8.1f} | {peak:>8.1f} | "
                       f"{grow:>9.1f} | {goal}")
    out += ["", "   every run: objects/s (peak - idle MiB; CPU s of the "
            "walk; other = CPUs busy outside the process)"]
    for r in scale_r:
        for name, runs in r["runs"].items():
            cells = "  ".join(
                f"{x['objects'] / x['seconds']:.0f} ({(x['peak_kib'] - x['idle_kib']) / 1024:.1f}; "
                f"{x['cpu_user'] + x['cpu_sys']:.2f} s, other {x['others']:.2f})"
                for x in runs)
            out.append(f"   {r['n']:>9} {name:<4} {cells}")
    gens = ", ".join(f"{r['n']}: {r['gen']['gen_seconds']:.0f} s"
                     for r in scale_r)
    out += [f"   trees made in {gens}.", ""]
    return out


def s3_latency_part(a, r):
    """Part 5 of the report: s3:// at a real object store's latency."""
    out = []
    g = r["small"]
    out += [
        "5. Validation over s3:// at a real object store's latency: "
        f"{a.s3_servers} s3rver processes (one data directory) behind a",
        f"   loopback proxy (bench/storage_s3rver.py LatencyProxy) that "
        f"holds the first bytes of every response {a.s3_ttfb_ms} ms",
        "   (time to first byte) and hands client connections to the "
        "servers in turn.",
        f"   tree: {g['objects']} objects, {g['bytes']} bytes: "
        f"{g['small_blobs']} blobs of 4-64 KiB under {g['manifests']} "
        "manifests; walk = cas::WalkClosure.",
        "   goals: objects/s at 16 >= 12 x at 1; no collapse at 64 "
        "(at least the figure at 16).",
        ""]
    hdr = (f"   {'AWC_S3_MAX_CONCURRENCY':<22} | {'objects/s':>9} | "
           f"{'x conc. 1':>9} | {'seconds':>7} | {'in flight':>9} | "
           f"{'conns':>5} | {'client ms/obj':>13} | {'s3rver CPU':>10} | "
           "goal")
    out += table_head(hdr)
    one = med([x["objps"] for x in r["runs"][a.s3_concurrency[0]]])
    at16 = None
    for c in a.s3_concurrency:
        rs = r["runs"][c]
        ops = med([x["objps"] for x in rs])
        ratio = ops / one
        goal = ""
        if c == 16:
            at16 = ops
            goal = f">= 12: {'met' if ratio >= 12 else 'NOT met'}"
        elif c == 64 and at16:
            goal = (f">= at 16: "
                    f"{'met' if ops >= 0.95 * at16 else 'NOT met'}")
        out.append(
            f"   {c:<22} | {ops:>9.0f} | {ratio:>9.1f} | "
            f"{med([x['seconds'] for x in rs]):>7.2f} | "
            f"{max(x.get('max_in_flight', 0) for x in rs):>9} | "
            f"{max(x.get('connections', 0) for x in rs):>5} | "
            f"{med([(x['cpu_user'] + x['cpu_sys']) * 1000 / x['objects'] for x in rs]):>13.3f} | "
            f"{med([x['server_cpu'] / x['seconds'] for x in rs]):>10.2f} | "
            f"{goal}")
    out += ["", "   client ms/obj = CPU of the walking process per object; "
            "s3rver CPU = their CPUs busy during the walk.",
            "   every run: objects/s"]
    for c in a.s3_concurrency:
        out.append(f"   {c:>4}  " + "  ".join(
            f"{x['objps']:.0f}" for x in r["runs"][c]))
    L = r["large"]
    out += ["",
            f"   64 MiB objects: {L['large_blobs']} blobs of 64 MiB "
            f"({L['bytes'] / 2**20:.0f} MiB), AWC_S3_MAX_CONCURRENCY=16: "
            f"{med([x['mbps'] for x in r['big']]):.1f} MB/s "
            f"(every run: " + ", ".join(
                f"{x['mbps']:.1f}" for x in r["big"]) + ")", ""]
    return out


def report(a, header, notes, file_r, s3_r, gc_r, scale_r=None, s3l_r=None,
           dedup_r=None, rec_r=None):
    # Imported here: storage_dedup_report uses this module's helpers.
    from storage_dedup_report import dedup_part
    from storage_reconcile import report_lines as reconcile_part
    out = ["awc-worker storage benchmarks (bench/storage_bench.py, "
           "make bench-storage)", ""]
    out += header
    out += [f"parameters  repeat={a.repeat}; medians of the runs, every run "
            "listed; MB = 10^6 bytes", ""]
    for n in notes:
        out.append(f"note: {n}")
    if notes:
        out.append("")
    for part, r in ((file_part, file_r), (s3_part, s3_r), (gc_part, gc_r),
                    (scale_part, scale_r), (s3_latency_part, s3l_r),
                    (dedup_part, dedup_r), (reconcile_part, rec_r)):
        if r:
            out += part(a, r)
    return out
