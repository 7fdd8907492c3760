#!/usr/bin/env python3
"""The storage benchmarks of awc-worker (make bench-storage; see
bench/README.md, section "Storage").

Runs inside `pg_virtualenv -t -o fsync=on` (PGHOST, PGPORT, PGUSER,
PGPASSWORD are set; only the GC part needs them, and it refuses a cluster
not at PostgreSQL's default durability) and measures:

  1. validation throughput over a file:// store: cas::WalkClosure of a
     generated snapshot tree (awc-bench-storage walk), against sha256sum,
     `openssl dgst -sha256` and a bare read+hash loop (awc-bench-storage
     hash-files) over exactly the same object files; warm page cache, and
     cold (drop_caches before every run) when /proc/sys/vm/drop_caches is
     writable;
  2. validation throughput over s3:// against s3rver on loopback, with
     AWC_S3_MAX_CONCURRENCY=1 and with the default (16), with s3rver's CPU;
  3. GC cost for a tenant with 10k, 100k and 1M objects in awc.objects
     (rows made with generate_series, a realistic mix of referenced,
     pinned, young and eligible objects): a dry run (plan only) and one full
     epoch (plan, canary, delete 1000, verify) with gc::RunSweep, per
     phase; and EXPLAIN (ANALYZE, BUFFERS) of the plan at the largest size;
  4. the walk at scale (awc-bench-scale): peak RSS above idle and
     objects/s for trees of 100k and 1M tiny objects over file:// and 10M
     over memory://, beside the walk of an older commit (BENCH_BASELINE_BUILD);
  5. validation over s3:// through a loopback proxy that adds a time to
     first byte (20 ms) to every s3rver response, at concurrency 1, 4, 16
     and 64 with ~1000 small objects, and MB/s with 64 MiB objects;
  6. dedup, shared content: one tree imported 20 times with one file
     changed between imports, validated and scrubbed by awc-worker beside
     the daemon of the commit before the content DAG, over file:// and
     s3:// (storage_dedup.py); a GC epoch over one DAG shared by 20
     snapshots against part 3's tenant (storage_dedup_gc.py);
  7. reconcile: one store_reconcile job over a tenant of 1M keys, over
     file:// and s3:// behind the latency proxy, keys/s and peak RSS,
     beside the bare listing (storage_reconcile.py).

Every configuration runs --repeat times, interleaved; tables show the
median and every run. Standard library only.
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
from bench_common import env_int, env_list, log, write_report  # noqa: E402
from storage_common import Bench  # noqa: E402
from storage_dedup import dedup_part  # noqa: E402
from storage_dedup_gc import dedup_gc_part  # noqa: E402
from storage_file import file_part  # noqa: E402
from storage_gc import gc_part  # noqa: E402
from storage_reconcile import reconcile_part  # noqa: E402
from storage_report import machine_info, report  # noqa: E402
from storage_s3 import s3_latency_part, s3_part  # noqa: E402
from storage_scale import scale_part  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--parts", default=os.environ.get(
        "BENCH_STORAGE_PARTS", "file s3 gc scale s3-latency dedup reconcile"),
        help="which parts (BENCH_STORAGE_PARTS, 'file s3 gc scale "
             "s3-latency dedup reconcile')")
    ap.add_argument("--repeat", type=int,
                    default=env_int("BENCH_STORAGE_REPEAT", 3))
    ap.add_argument("--file-mib", type=int,
                    default=env_int("BENCH_FILE_MIB", 256))
    ap.add_argument("--s3-mib", type=int, default=env_int("BENCH_S3_MIB", 64))
    ap.add_argument("--large-mib", type=int,
                    default=env_int("BENCH_LARGE_MIB", 32))
    ap.add_argument("--cold", default=os.environ.get("BENCH_COLD", "auto"),
                    choices=["auto", "off"],
                    help="cold-cache file runs when drop_caches is writable "
                         "(BENCH_COLD, auto)")
    ap.add_argument("--gc-sizes", type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_GC_SIZES", [100000, 1000000, 10000000]))
    ap.add_argument("--gc-per-snapshot", type=int,
                    default=env_int("BENCH_GC_OBJECTS_PER_SNAPSHOT", 10000),
                    help="objects per READY snapshot (BENCH_GC_OBJECTS_PER_"
                         "SNAPSHOT, 10000)")
    ap.add_argument("--gc-batch", type=int,
                    default=env_int("BENCH_GC_BATCH", 1000))
    ap.add_argument("--scale-sizes",
                    type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_SCALE_SIZES",
                                     [100000, 1000000, 10000000]))
    ap.add_argument("--scale-file-max", type=int,
                    default=env_int("BENCH_SCALE_FILE_MAX", 1000000),
                    help="largest scale tree over file:// (BENCH_SCALE_FILE_"
                         "MAX); larger ones use memory://")
    ap.add_argument("--scale-fanout", type=int,
                    default=env_int("BENCH_SCALE_FANOUT", 1000))
    ap.add_argument("--scale-repeat", type=int,
                    default=env_int("BENCH_SCALE_REPEAT", 3),
                    help="runs per file:// scale size (memory:// ones run once)")
    ap.add_argument("--s3-ttfb-ms", type=int,
                    default=env_int("BENCH_S3_TTFB_MS", 20))
    ap.add_argument("--s3-concurrency",
                    type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_S3_CONCURRENCY", [1, 4, 16, 64]))
    ap.add_argument("--s3-small-objects", type=int,
                    default=env_int("BENCH_S3_SMALL_OBJECTS", 1000))
    ap.add_argument("--s3-large-count", type=int,
                    default=env_int("BENCH_S3_LARGE_COUNT", 16),
                    help="objects of 64 MiB for the MB/s figure")
    ap.add_argument("--s3-servers", type=int,
                    default=env_int("BENCH_S3_SERVERS", 2),
                    help="s3rver processes behind the latency proxy")
    ap.add_argument("--s3-latency-repeat", type=int,
                    default=env_int("BENCH_S3_LATENCY_REPEAT", 3))
    ap.add_argument("--baseline-build",
                    default=os.environ.get("BENCH_BASELINE_BUILD", ""),
                    help="a bench build of the code to compare the scale walk "
                         "with (BENCH_BASELINE_BUILD)")
    ap.add_argument("--dedup-files", type=int,
                    default=env_int("BENCH_DEDUP_FILES", 100000),
                    help="part 6's tree over file:// (in directories of 200)")
    ap.add_argument("--dedup-s3-files", type=int,
                    default=env_int("BENCH_DEDUP_S3_FILES", 20000),
                    help="part 6's tree over s3:// (0: no s3 half)")
    ap.add_argument("--dedup-snapshots", type=int,
                    default=env_int("BENCH_DEDUP_SNAPSHOTS", 20))
    ap.add_argument("--dedup-firsts", type=int,
                    default=env_int("BENCH_DEDUP_FIRSTS", 5),
                    help="first validations measured over file:// (trees "
                         "that share nothing)")
    ap.add_argument("--dedup-s3-baseline-snapshots", type=int,
                    default=env_int("BENCH_DEDUP_S3_BASELINE_SNAPSHOTS", 2),
                    help="snapshots the baseline validates and scrubs over "
                         "s3:// (file://: all)")
    ap.add_argument("--dedup-gc-sizes",
                    type=lambda s: [int(x) for x in s.split(",")],
                    default=env_list("BENCH_DEDUP_GC_SIZES", [1000000, 10000000]))
    ap.add_argument("--dedup-baseline-build",
                    default=os.environ.get("BENCH_DEDUP_BASELINE_BUILD", ""),
                    help="a build of awc-worker and awcctl before the content "
                         "DAG (BENCH_DEDUP_BASELINE_BUILD)")
    ap.add_argument("--reconcile-keys", type=int,
                    default=env_int("BENCH_RECONCILE_KEYS", 1000000),
                    help="part 7's tenant over file://")
    ap.add_argument("--reconcile-s3-keys", type=int,
                    default=env_int("BENCH_RECONCILE_S3_KEYS", 1000000),
                    help="part 7's tenant over s3:// (0: no s3 half)")
    ap.add_argument("--s3rver", default=os.environ.get("AWC_S3RVER") or
                    os.path.join(os.path.dirname(here), "build-deps",
                                 "node_modules", "s3rver", "bin", "s3rver.js"))
    ap.add_argument("--tmpdir", default=os.environ.get("BENCH_TMPDIR", ""),
                    help="scratch directory for the stores (BENCH_TMPDIR; "
                         "default $TMPDIR or /tmp)")
    ap.add_argument("--results", default=os.environ.get(
        "BENCH_STORAGE_RESULTS", ""),
        help="results file (BENCH_STORAGE_RESULTS; default "
             "bench/results/storage-<date>.txt)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results = a.results or os.path.join(
        here, "results", f"storage-{datetime.date.today().isoformat()}.txt")
    parts = a.parts.replace(",", " ").split()

    started = time.monotonic()
    bench = Bench(a)
    header = machine_info(a)
    log("\n  ".join(["machine:"] + header))
    try:
        file_r = file_part(bench) if "file" in parts else None
        s3_r = s3_part(bench) if "s3" in parts else None
        gc_r = gc_part(bench) if "gc" in parts else None
        scale_r = scale_part(bench) if "scale" in parts else None
        s3l_r = s3_latency_part(bench) if "s3-latency" in parts else None
        dedup_r = dedup_part(bench) if "dedup" in parts else None
        a.dedup_gc_sizes = [n for n in a.dedup_gc_sizes if n > 0]
        if dedup_r is not None and a.dedup_gc_sizes:
            dedup_r["gc"] = dedup_gc_part(bench)
        rec_r = reconcile_part(bench) if "reconcile" in parts else None
    finally:
        shutil.rmtree(bench.workdir, ignore_errors=True)

    write_report(report(a, header, bench.notes, file_r, s3_r, gc_r, scale_r,
                        s3l_r, dedup_r, rec_r),
                 started,
                 results)


if __name__ == "__main__":
    main()
