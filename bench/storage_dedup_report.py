"""Part 6 of the storage benchmarks' report (storage_report.py): shared
content (storage_dedup.py, storage_dedup_gc.py), each figure beside its
goal. Standard library only.
"""

import os

from bench_common import med
from storage_report import summarize_explain, table_head

NEW_OBJECTS = 3  # a later snapshot's new objects: root, directory, blob
DEPTH = 2        # root -> directories -> blobs


def daemon_name(build):
    """What "base" is: the commit bench/build_baseline.sh built."""
    if not build:
        return "no baseline (no BENCH_DEDUP_BASELINE_BUILD)"
    try:
        with open(os.path.join(build, "baseline-commit")) as f:
            return f"base = the daemon of {f.read().strip().split()[0]}"
    except OSError:
        return f"base = the daemon built in {build}"


def verdict(ok):
    return "met" if ok else "NOT met"


def reads(v):
    """Objects a validation or scrub read: its `read`; before the DAG
    every object of the closure."""
    return v.get("read", v["objects"])


def validation_lines(store, r):
    out = []
    sides = r["sides"]
    new = sides["new"]["validations"]
    first, later = new[0], new[1:]
    out += table_head(
        f"   {'':<4} | {'snapshot':>8} | {'objects':>7} | {'read':>7} | "
        f"{'trusted':>7} | {'store gets':>10} | {'seconds':>8} | "
        f"{'import s':>8}")
    for name, s in sides.items():
        for k, v in enumerate(s["validations"], 1):
            if 2 < k < len(s["validations"]):
                continue  # the first two and the last
            out.append(
                f"   {name:<4} | {k:>8} | {v['objects']:>7} | {reads(v):>7} "
                f"| {v.get('trusted', 0):>7} | {v['store_gets']:>10.0f} | "
                f"{v['seconds']:>8.3f} | {v['import_seconds']:>8.1f}")
    out.append("")
    if later:
        worst_read = max(reads(v) for v in later)
        worst_gets = max(v["store_gets"] for v in later)
        worst = max(v["seconds"] for v in later)
        bound = NEW_OBJECTS + DEPTH
        out.append(
            f"   goal: a later snapshot reads <= k + depth = {NEW_OBJECTS} + "
            f"{DEPTH} objects: at most {worst_read} (store gets at most "
            f"{worst_gets:.0f}): {verdict(max(worst_read, worst_gets) <= bound)}")
        firsts = [v["seconds"] for v in sides["new"].get("firsts", [first])]
        typical = med(firsts)
        later_med = med([v["seconds"] for v in later])
        out.append(
            f"   goal: a later validation <= 5 % of the first: median "
            f"{later_med:.3f} s (slowest {worst:.3f} s) of {typical:.3f} s "
            f"(the median first validation): {later_med / typical:.1%}: "
            f"{verdict(later_med <= 0.05 * typical)}")
    if "base" in sides:
        b = sides["base"]["validations"]
        nf = [v["seconds"] for v in sides["new"].get("firsts", [first])]
        bf = [v["seconds"] for v in sides["base"].get("firsts", b[:1])]
        ratio = med(nf) / med(bf)
        out.append(
            f"   goal: the first validation <= 1.05 x the baseline's: median "
            f"of {len(nf)} trees {med(nf):.2f} s against {med(bf):.2f} s, "
            f"{ratio:.2f} x: {verdict(ratio <= 1.05)}")
        out.append(
            "   every first validation, new: " +
            ", ".join(f"{x:.2f}" for x in nf) + "; base: " +
            ", ".join(f"{x:.2f}" for x in bf) + " s")
        out.append(
            f"   the baseline's later validations: median "
            f"{med([v['seconds'] for v in b[1:]] or [0]):.2f} s, "
            f"{med([reads(v) for v in b[1:]] or [0]):.0f} objects read each")
    out.append("")
    return out


def book_lines(r, goal_files=100000):
    out = []
    sides = r["sides"]
    nb = sides["new"]["book"]
    kept = sum(nb["rows"].values())
    # The goal is stated for the tree of 100,000 files; a smaller tree has
    # the same entries per snapshot (its roots and changed directories)
    # over fewer objects.
    judged = (f": {verdict(kept <= 1.2 * nb['objects'])}"
              if r["files"] >= goal_files else
              f" (the goal is stated at {goal_files} files)")
    out.append(
        f"   goal: closure rows (object_edges + legacy_closures) <= 1.2 x "
        f"unique objects: {kept} ({nb['rows']['awc.object_edges']} + "
        f"{nb['rows']['awc.legacy_closures']}) for {nb['objects']} objects,"
        f" {kept / nb['objects']:.3f} x" + judged)
    for name, s in sides.items():
        bk = s["book"]
        out.append(f"   {name}: {bk['snapshots']} READY snapshots, "
                   f"{bk['objects']} objects; rows " + ", ".join(
                       f"{t} {n}" for t, n in bk["rows"].items()) +
                   "; on disk (tables + indexes) " + ", ".join(
                       f"{t} {n / 2**20:.1f} MiB"
                       for t, n in bk["bytes"].items()))
    if "base" in sides:
        bb = sides["base"]["book"]["bytes"]
        nbb = nb["bytes"]
        closure_b = sum(v for t, v in bb.items() if t != "awc.objects")
        closure_n = sum(v for t, v in nbb.items() if t != "awc.objects")
        out.append(
            f"   closure bookkeeping on disk: {closure_b / 2**20:.1f} MiB "
            f"before, {closure_n / 2**20:.1f} MiB after; with awc.objects "
            f"{sum(bb.values()) / 2**20:.1f} -> "
            f"{sum(nbb.values()) / 2**20:.1f} MiB")
    out.append("")
    return out


def scrub_lines(r):
    out = []
    sides = r["sides"]
    for name, s in sides.items():
        sc = s["scrub"]
        jobs = sc["jobs"]
        read = sum(reads(j) for j in jobs)
        line = (f"   {name}: {len(jobs)} scrubs read {read} objects "
                f"(store gets {sc['store_gets']:.0f}; {read / len(jobs):.0f}"
                f" a snapshot, first {reads(jobs[0])}, then at most "
                f"{max([reads(j) for j in jobs[1:]] or [0])}), "
                f"{sum(j['seconds'] for j in jobs):.1f} s of handlers")
        if "fresh" in jobs[0]:
            line += f", fresh {sum(j['fresh'] for j in jobs)}"
        out.append(line)
    n = sides["new"]
    objs = n["book"]["objects"]
    read = sum(reads(j) for j in n["scrub"]["jobs"])
    worst = max(read, n["scrub"]["store_gets"])
    out.append(
        f"   goal: a cycle reads <= 1.05 x unique objects: {read} (store "
        f"gets {n['scrub']['store_gets']:.0f}) of {objs}, "
        f"{worst / objs:.3f} x: {verdict(worst <= 1.05 * objs)}")
    if "base" in sides:
        b = sides["base"]["scrub"]["jobs"]
        per = med([reads(j) for j in b])
        out.append(
            f"   the baseline reads {per:.0f} objects a snapshot: "
            f"{len(n['scrub']['jobs'])} snapshots x {per:.0f} = "
            f"{len(n['scrub']['jobs']) * per:.0f} a cycle, "
            f"{len(n['scrub']['jobs']) * per / max(read, 1):.1f} x now")
    out.append("")
    return out


def gc_lines(a, g):
    out = [
        "   GC: one epoch (plan + " f"{a.gc_batch} deletions, gc::RunSweep) "
        "at N objects, 15 % eligible, 2 % pinned, 3 % young:",
        "   dag = 80 % live in one DAG shared by 20 READY snapshots (refs > 0, "
        "object_edges), the rest refs = 0;",
        "   closure rows = part 3's tenant (closure rows per snapshot, "
        "refs = 0 everywhere). Medians, seconds.", ""]
    out += table_head(
        f"   {'objects':>9} | {'shape':<12} | {'eligible':>8} | "
        f"{'dry run':>7} | {'full':>7} | {'plan':>7} | {'mark':>6} | "
        f"{'store':>6} | {'finish':>6} | {'canary':>6} | "
        f"{'x closure rows':>14}")
    for n in g["sizes"]:
        ref = med([x["full_seconds"] for x in g["runs"]["closure rows", n]])
        for shape in ("dag", "closure rows"):
            rr = g["runs"][shape, n]
            full = med([x["full_seconds"] for x in rr])
            out.append(
                f"   {n:>9} | {shape:<12} | {rr[0]['eligible']:>8} | "
                f"{med([x['dry_seconds'] for x in rr]):>7.3f} | "
                f"{full:>7.3f} | {med([x['plan'] for x in rr]):>7.3f} | "
                + " | ".join(f"{med([x[k] for x in rr]):>6.3f}" for k in (
                    "mark", "store_delete", "finish", "canary_check"))
                + f" | {full / ref:>14.2f}")
    n = max(g["sizes"])
    dag = med([x["full_seconds"] for x in g["runs"]["dag", n]])
    ref = med([x["full_seconds"] for x in g["runs"]["closure rows", n]])
    # The store's part deletes the same number of files in both shapes;
    # on a shared disk its directory fsyncs vary by seconds from run to
    # run, so the epoch's own work is given without it too.
    def own(rr):
        return med([x["full_seconds"] - x["store_delete"] for x in rr])
    dag_own = own(g["runs"]["dag", n])
    ref_own = own(g["runs"]["closure rows", n])
    out += ["", f"   goal: the DAG's epoch at {n} objects no slower than "
            f"closure rows': {dag:.2f} s against {ref:.2f} s, "
            f"{dag / ref:.2f} x: {verdict(dag <= ref)}",
            f"   without the store's deletes ({a.gc_batch} files in both): "
            f"{dag_own:.2f} s against {ref_own:.2f} s, "
            f"{dag_own / ref_own:.2f} x", "",
            "   databases (objects | refs > 0 | object_edges | "
            "legacy_closures | READY snapshots | size), fill time:"]
    for (shape, n), (secs, counts) in g["db"].items():
        out.append(f"   {n:>9} {shape:<12}: {' | '.join(counts)}, "
                   f"filled in {secs:.0f} s")
    out += ["", "   every run: full epoch (plan) s"]
    for (shape, n), rr in g["runs"].items():
        out.append(f"   {n:>9} {shape:<12} " + "  ".join(
            f"{x['full_seconds']:.3f} ({x['plan']:.3f})" for x in rr))
    out += ["", "   the plan statement, EXPLAIN (ANALYZE, BUFFERS) after "
            "the last run:"]
    for (shape, n), lines in g["explain"].items():
        out.append(f"   {n:>9} {shape:<12}: " + summarize_explain(lines))
    out.append("")
    return out


def dedup_part(a, r):
    """Part 6 of the report: shared content."""
    out = [
        "6. Shared content: one tree imported "
        f"{a.dedup_snapshots} times with one file changed between imports "
        "(awcctl import), validated and",
        "   scrubbed by awc-worker (one worker, no scheduler; the scrubs "
        "enqueued together as the scheduler's planner does,",
        f"   reverify_after_secs = {30 * 86400} after every verification "
        "was aged 31 days), beside "
        + daemon_name(r.get("baseline")) + ".",
        "   seconds = the handler's run (the worker's duration_s); read = "
        "the job's result (before the DAG: every object);",
        "   store gets = awc_store_requests_total{op=\"get\"} on /metrics "
        "during the job.", ""]
    for store in ("file", "s3"):
        x = r.get(store)
        if not x:
            continue
        where = "file://" if store == "file" else (
            f"s3:// ({a.s3_servers} s3rver behind the {a.s3_ttfb_ms} ms "
            "proxy; imports straight to s3rver)")
        out.append(f"   {where}: {x['files']} files in {x['dirs']} "
                   f"directories of 200")
        out += validation_lines(store, x)
        out += book_lines(x)
        out += scrub_lines(x)
    if r.get("gc"):
        out += gc_lines(a, r["gc"])
    return out
