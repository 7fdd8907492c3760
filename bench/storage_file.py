"""Part 1 of the storage benchmarks (storage_bench.py): validation
throughput over a file:// store, the walk (awc-bench-storage walk) against
sha256sum, `openssl dgst -sha256` and a bare read+hash loop
(awc-bench-storage hash-files) over exactly the same object files; warm
page cache, and cold when /proc/sys/vm/drop_caches is writable. Standard
library only.
"""

import os
import shutil
import subprocess
import time

from bench_common import cpu_busy, die, log
from storage_common import MB, TENANT, run_json


def run_shell_timed(cmd):
    """(wall seconds, CPU seconds of the children, machine busy CPU s)."""
    t0, c0, b0 = time.monotonic(), os.times(), cpu_busy()
    r = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd],
                       capture_output=True, text=True)
    t1, c1, b1 = time.monotonic(), os.times(), cpu_busy()
    if r.returncode != 0:
        die(f"`{cmd}` failed ({r.returncode}): {r.stderr.strip()}")
    cpu = (c1.children_user + c1.children_system
           - c0.children_user - c0.children_system)
    return t1 - t0, cpu, b1 - b0


def tree_bytes(path):
    files, total = 0, 0
    for d, _, names in os.walk(path):
        for n in names:
            files += 1
            total += os.path.getsize(os.path.join(d, n))
    return files, total


def drop_caches_available():
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


# -- 1. file://

def file_part(bench):
    a = bench.a
    root_dir = os.path.join(bench.workdir, "file-cas")
    env = bench.env(AWC_CAS_URL=f"file://{root_dir}")
    log(f"file: generating a {a.file_mib} MiB tree in {root_dir}")
    gen = run_json([bench.prog, "gen", "--tenant", TENANT, "--total-mib",
                    str(a.file_mib), "--large-mib", str(a.large_mib)],
                   env, "gen (file)")
    objdir = os.path.join(root_dir, TENANT)
    files, nbytes = tree_bytes(objdir)
    if files != gen["objects"] or nbytes != gen["bytes"]:
        die(f"the file store holds {files} files, {nbytes} bytes; the "
            f"generator wrote {gen['objects']} objects, {gen['bytes']} bytes")
    q = objdir.replace("'", "'\\''")
    refs = {
        "sha256sum": f"find '{q}' -type f -print0 | xargs -0 sha256sum "
                     ">/dev/null",
        "openssl": f"find '{q}' -type f -print0 | xargs -0 openssl dgst "
                   "-sha256 -r >/dev/null",
    }
    modes = ["warm"]
    # (The probe drops the caches: before the warm-up, not after it.)
    if a.cold == "auto" and drop_caches_available():
        modes.append("cold")
    elif a.cold == "auto":
        bench.notes.append("cold-cache runs skipped: /proc/sys/vm/"
                          "drop_caches is not writable")
    # Warm the page cache (and check that the walk succeeds).
    bench.walk(env, gen["root"])
    run_shell_timed(refs["sha256sum"])
    runs = {m: {k: [] for k in ("walk", "hash-files", "sha256sum",
                                "openssl")} for m in modes}
    for rep in range(1, a.repeat + 1):
        for mode in modes:
            for kind in ("walk", "hash-files", "sha256sum", "openssl"):
                if mode == "cold":
                    drop_caches()
                if kind == "walk":
                    r = bench.walk(env, gen["root"])
                    secs, cpu, others = (r["seconds"], r["_cpu"],
                                         (r["_busy"] - r["_cpu"]) / r["_wall"])
                elif kind == "hash-files":
                    r = run_json([bench.prog, "hash-files", objdir],
                                 env, "hash-files")
                    if r["bytes"] != nbytes:
                        die("hash-files read a different number of bytes")
                    secs, cpu, others = (r["seconds"], r["_cpu"],
                                         (r["_busy"] - r["_cpu"]) / r["_wall"])
                else:
                    wall, cpu, busy = run_shell_timed(refs[kind])
                    secs, others = wall, (busy - cpu) / wall
                run = {"seconds": secs, "mbps": nbytes / secs / MB,
                       "cpu": cpu, "others": max(0.0, others)}
                runs[mode][kind].append(run)
                log(f"file run {rep}/{a.repeat} {mode:<4} {kind:<10} "
                    f"{run['mbps']:8.1f} MB/s ({secs:.3f} s)")
    shutil.rmtree(root_dir, ignore_errors=True)
    return {"gen": gen, "files": files, "bytes": nbytes, "runs": runs,
            "modes": modes}
