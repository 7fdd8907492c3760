"""Part 4 of the storage benchmarks (storage_bench.py): the walk at scale
(awc-bench-scale), peak RSS above idle and objects/s for trees of
tiny objects over file:// and, above --scale-file-max, over memory://,
beside a baseline build (BENCH_BASELINE_BUILD). Standard library only.
"""

import os
import shutil

from bench_common import die, log
from storage_common import TENANT, run_json


# -- 4. the walk at scale: memory and objects/s

def scale_runs(bench, prog, env, n):
    return run_json([prog, "--tenant", TENANT, "--objects",
                     str(n), "--fanout", str(bench.a.scale_fanout)],
                    env, f"scale {n} ({os.path.basename(prog)})")


def scale_part(bench):
    a = bench.a
    progs = [("new", bench.scale_prog)]
    if a.baseline_build:
        old = os.path.join(a.baseline_build, "bench", "awc-bench-scale")
        if not os.access(old, os.X_OK):
            die(f"{old} is missing (BENCH_BASELINE_BUILD)")
        progs.insert(0, ("old", old))
    else:
        bench.notes.append("scale: no BENCH_BASELINE_BUILD, so no old walk "
                          "to compare with")
    spill = os.path.join(bench.workdir, "spill")
    os.makedirs(spill, exist_ok=True)
    root_dir = os.path.join(bench.workdir, "scale-cas")
    results = []
    for n in a.scale_sizes:
        if n <= a.scale_file_max:
            env = bench.env(AWC_CAS_URL=f"file://{root_dir}", TMPDIR=spill)
            store = "file"
        else:
            env = bench.env(AWC_CAS_URL="memory://", TMPDIR=spill)
            store = "memory"
        reps = a.scale_repeat if n <= a.scale_file_max else 1
        if store == "file":
            log(f"scale: {n} objects over file:// (tree made once, then "
                "a warm-up walk)")
            gen = scale_runs(bench, bench.scale_prog, env, n)
        else:
            log(f"scale: {n} objects over memory:// (made by every run)")
            gen = None
        runs = {name: [] for name, _ in progs}
        for rep in range(1, reps + 1):
            for name, prog in progs:
                r = scale_runs(bench, prog, env, n)
                r["others"] = max(0.0, (r["_busy"] - r["_cpu"]) / r["_wall"])
                runs[name].append(r)
                log(f"scale run {rep}/{reps} {n} {name}: "
                    f"{r['objects'] / r['seconds']:.0f} objects/s, peak "
                    f"{(r['peak_kib'] - r['idle_kib']) / 1024:.1f} MiB "
                    f"above idle")
                if os.listdir(spill):
                    die(f"the walk left files in {spill}")
        if gen is None:
            gen = runs[progs[-1][0]][0]
        results.append({"n": n, "store": store, "gen": gen, "runs": runs,
                        "reps": reps})
    shutil.rmtree(root_dir, ignore_errors=True)
    return results
