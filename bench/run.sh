#!/bin/bash
# The queue benchmark (make bench). Runs under `pg_virtualenv -t`, which
# starts a throwaway cluster and exports PGHOST/PGPORT/PGUSER/PGPASSWORD.
#
#   pg_virtualenv -t bench/run.sh BUILD_DIR
#
# Knobs (environment): BENCH_JOBS (20000), BENCH_CONCURRENCY ("1 2 4 8"),
# BENCH_REPEAT (3), BENCH_INFO_WORKERS (2), BENCH_LATENCY_WORKERS (2),
# BENCH_LATENCY_SAMPLES (200), BENCH_LATENCY_GAP_MS (50), BENCH_RESULTS
# (default bench/results/queue-<date>.txt). See bench/README.md.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: pg_virtualenv -t $0 BUILD_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

for v in PGHOST PGPORT PGUSER PGPASSWORD; do
  if [ -z "${!v:-}" ]; then
    echo "$0: $v is not set; run under pg_virtualenv -t (make bench)" >&2
    exit 2
  fi
done
for b in awc-worker-bench awc-bench-pgbench-script; do
  if [ ! -x "$build/bench/$b" ]; then
    echo "$0: $build/bench/$b is missing (cmake -DAWC_BUILD_BENCH=ON)" >&2
    exit 2
  fi
done

exec python3 "$here/queue_bench.py" --build-dir "$build"
