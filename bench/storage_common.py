"""What the parts of the storage benchmarks (storage_bench.py) share: the
tenant and MB, running a program that prints one JSON object, and the
run's context (the awc-bench-storage program, the scratch directory, the
report's notes, the environment of a run, one walk). Standard library
only.
"""

import json
import os
import subprocess
import tempfile
import time

from bench_common import cpu_busy, die

TENANT = "bench"
MB = 1e6  # throughput figures are in MB/s = 10^6 bytes per second


def run_json(args, env=None, what=""):
    """Runs a program that prints one JSON object; returns it, with the
    wall time and CPU (user+sys of the child) of the whole process."""
    t0, c0, b0 = time.monotonic(), os.times(), cpu_busy()
    r = subprocess.run(args, env=env, capture_output=True, text=True)
    t1, c1, b1 = time.monotonic(), os.times(), cpu_busy()
    if r.returncode != 0:
        die(f"{what or args[0]} failed ({r.returncode}): {r.stderr.strip()}")
    try:
        out = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        die(f"{what or args[0]}: no JSON in its output: {r.stdout!r}")
    wall = t1 - t0
    cpu = (c1.children_user + c1.children_system
           - c0.children_user - c0.children_system)
    out["_wall"], out["_cpu"], out["_busy"] = wall, cpu, b1 - b0
    return out


class Bench:
    """What every part shares: the arguments, awc-bench-storage and
    awc-bench-scale (checked), a scratch directory (removed by
    storage_bench.py when the parts are done) and the notes the report
    prints first."""

    def __init__(self, a):
        self.a = a
        self.prog = os.path.join(a.build_dir, "bench", "awc-bench-storage")
        self.scale_prog = os.path.join(a.build_dir, "bench",
                                       "awc-bench-scale")
        for prog in (self.prog, self.scale_prog):
            if not os.access(prog, os.X_OK):
                die(f"{prog} is missing; build with -DAWC_BUILD_BENCH=ON")
        self.workdir = tempfile.mkdtemp(prefix="awc-storage-bench-",
                                        dir=a.tmpdir or None)
        self.notes = []

    def env(self, **extra):
        """The environment of a run: the benchmark's own less AWC_* and
        DATABASE_URL, with AWC_LOG_LEVEL=warn and `extra` (those not
        None)."""
        env = {k: v for k, v in os.environ.items()
               if not (k.startswith("AWC_") or k == "DATABASE_URL")}
        env["AWC_LOG_LEVEL"] = "warn"
        env.update({k: str(v) for k, v in extra.items() if v is not None})
        return env

    def walk(self, env, root):
        """One `awc-bench-storage walk` of `root` with `env`."""
        r = run_json([self.prog, "walk", "--tenant", TENANT, "--root", root],
                     env, "walk")
        return r
