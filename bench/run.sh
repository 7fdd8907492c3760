#!/bin/bash
# The benchmarks (make bench, make bench-storage, make bench-horizon). Runs
# under `pg_virtualenv -t -o fsync=on`, which starts a throwaway cluster at
# PostgreSQL's default durability (pg_virtualenv's own default is fsync
# off) and exports PGHOST/PGPORT/PGUSER/PGPASSWORD.
#
#   pg_virtualenv -t -o fsync=on bench/run.sh BUILD_DIR [SUITE...]
#
# SUITE is `queue` (queue_bench.py), `storage` (storage_bench.py),
# `scheduler` (scheduler_bench.py), `console` (console_bench.py) or
# `fairness` (fairness_bench.py, validations beside a wave of scrubs),
# `horizon` (queue_horizon.py, the queue under a pinned MVCC horizon; its
# cluster also wants `-o shared_preload_libraries=pg_stat_statements`:
# without it the suite runs and reports its statement tables missing); the
# default is queue and storage, queue first. Every suite that uses
# PostgreSQL refuses a cluster with fsync, synchronous_commit or
# full_page_writes off (bench_common.require_durable).
# Knobs (environment): for the queue,
# BENCH_JOBS (20000), BENCH_CONCURRENCY ("2 4 8"), BENCH_REPEAT (3),
# BENCH_GRAPHILE (the graphile-worker CLI, or off), BENCH_PGBENCH ("sync
# async"), BENCH_DAEMON_BEFORE,
# BENCH_INFO_WORKERS (2), BENCH_LATENCY_WORKERS (2), BENCH_LATENCY_SAMPLES
# (200), BENCH_LATENCY_GAP_MS (50), BENCH_RESULTS (default
# bench/results/queue-<date>.txt); for storage, BENCH_STORAGE_PARTS
# ("file s3 gc scale s3-latency dedup reconcile"), BENCH_STORAGE_REPEAT (3),
# BENCH_FILE_MIB (256),
# BENCH_S3_MIB (64), BENCH_GC_SIZES ("100000 1000000 10000000"), BENCH_COLD
# (auto), BENCH_SCALE_SIZES ("100000 1000000 10000000"),
# BENCH_SCALE_FILE_MAX (1000000), BENCH_SCALE_FANOUT (1000),
# BENCH_SCALE_REPEAT (3), BENCH_BASELINE_BUILD, BENCH_S3_TTFB_MS (20),
# BENCH_S3_CONCURRENCY ("1 4 16 64"), BENCH_S3_SMALL_OBJECTS (1000),
# BENCH_S3_LARGE_COUNT (16), BENCH_S3_LATENCY_REPEAT (3), BENCH_S3_SERVERS (2),
# BENCH_DEDUP_FILES (100000), BENCH_DEDUP_S3_FILES (20000),
# BENCH_DEDUP_SNAPSHOTS (20), BENCH_DEDUP_FIRSTS (5),
# BENCH_DEDUP_S3_BASELINE_SNAPSHOTS (2), BENCH_DEDUP_GC_SIZES (1000000
# 10000000; 0: none), BENCH_DEDUP_BASELINE_BUILD, BENCH_RECONCILE_KEYS
# (1000000), BENCH_RECONCILE_S3_KEYS (1000000),
# BENCH_TMPDIR, BENCH_STORAGE_RESULTS (default
# bench/results/storage-<date>.txt); for the scheduler,
# BENCH_SCHED_SNAPSHOTS (1000000), BENCH_SCHED_JOBS (1000000),
# BENCH_SCHED_REPEAT (5), BENCH_SCHED_RESULTS (default
# bench/results/scheduler-<date>.txt); for the console, BENCH_CONSOLE_JOBS
# (1000000), BENCH_CONSOLE_SNAPSHOTS (100000), BENCH_CONSOLE_PENDING (5000),
# BENCH_CONSOLE_EPOCHS (5000), BENCH_CONSOLE_REQUESTS (30),
# BENCH_CONSOLE_RESULTS (default bench/results/console-<date>.txt); for the
# pinned horizon, BENCH_HORIZON_RATE (1000), BENCH_HORIZON_CONCURRENCY (2),
# BENCH_HORIZON_CLEAN_SECS (30), BENCH_HORIZON_PINNED_SECS (600),
# BENCH_HORIZON_RECOVERY_SECS (60), BENCH_HORIZON_SYSTEMS ("awc
# graphile"), BENCH_HORIZON_DAEMON (another awc-worker-bench to run
# instead), BENCH_GRAPHILE as for the queue, BENCH_HORIZON_RESULTS
# (default bench/results/horizon-<date>.txt); for fairness,
# BENCH_FAIR_SNAPSHOTS (100), BENCH_FAIR_FILES (32), BENCH_FAIR_IMPORTS (50),
# BENCH_FAIR_GAP_MS (400), BENCH_FAIR_BUDGET_MB (40),
# BENCH_FAIR_CONCURRENCY ("2 4"), BENCH_FAIR_RESULTS (default
# bench/results/fairness-<date>.txt). See bench/README.md.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: pg_virtualenv -t -o fsync=on $0 BUILD_DIR [queue] [storage] [scheduler] [console] [horizon] [fairness]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  suites=(queue storage)
fi

for v in PGHOST PGPORT PGUSER PGPASSWORD; do
  if [ -z "${!v:-}" ]; then
    echo "$0: $v is not set; run under pg_virtualenv -t (make bench)" >&2
    exit 2
  fi
done

for suite in "${suites[@]}"; do
  case "$suite" in
    queue) programs=(awc-worker-bench awc-bench-pgbench-script) ;;
    storage) programs=(awc-bench-storage awc-bench-scale) ;;
    scheduler) programs=(awc-bench-scheduler) ;;
    horizon) programs=(awc-worker-bench) ;;
    console | fairness)
      if [ ! -x "$build/awcctl" ]; then
        echo "$0: $build/awcctl is missing" >&2
        exit 2
      fi
      programs=()
      ;;
    *)
      echo "$0: unknown suite \"$suite\" (queue, storage, scheduler, console, horizon, fairness)" >&2
      exit 2
      ;;
  esac
  for b in "${programs[@]+"${programs[@]}"}"; do
    if [ ! -x "$build/bench/$b" ]; then
      echo "$0: $build/bench/$b is missing (cmake -DAWC_BUILD_BENCH=ON)" >&2
      exit 2
    fi
  done
done

for suite in "${suites[@]}"; do
  case "$suite" in
    queue) python3 "$here/queue_bench.py" --build-dir "$build" ;;
    storage) python3 "$here/storage_bench.py" --build-dir "$build" ;;
    scheduler) python3 "$here/scheduler_bench.py" --build-dir "$build" ;;
    console) python3 "$here/console_bench.py" --build-dir "$build" ;;
    horizon) python3 "$here/queue_horizon.py" --build-dir "$build" ;;
    fairness) python3 "$here/fairness_bench.py" --build-dir "$build" ;;
  esac
done
