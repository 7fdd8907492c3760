#!/bin/sh
# Runs every fuzz target of BUILD for SECONDS each, JOBS of them at once
# (default: one per CPU; each fuzzer uses one), starting from the seed
# corpus in fuzz/corpus/<target> and keeping what it finds in
# BUILD/fuzz-corpus/<target> (not committed). Prints one line per target
# with the executions and exits 1 if any target found a crash, a leak, a
# timeout or a violated property (the input is saved under
# BUILD/fuzz-artifacts/).
set -u
build=$1
seconds=${2:-60}
jobs=${3:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)

# One target: its summary line into BUILD/fuzz-artifacts/<target>.result,
# and the first lines of what it found on stderr.
run_target() {
  bin=$1
  name=$(basename "$bin" _fuzz)
  corpus="$build/fuzz-corpus/$name"
  artifacts="$build/fuzz-artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  set -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/"
  [ -f "$here/dict/$name.dict" ] && set -- "$@" -dict="$here/dict/$name.dict"
  log="$build/fuzz-artifacts/$name.log"
  "$bin" "$@" "$corpus" "$here/corpus/$name" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $rc; see $log and $artifacts/)"
    grep -E 'ERROR:|property violated|SUMMARY' "$log" | head -n 5 >&2
  fi
  printf '%-10s %10s %8s  %s\n' "$name" "${execs:-?}" "${rate:-?}" \
    "$result" >"$build/fuzz-artifacts/$name.result"
}

mkdir -p "$build/fuzz-artifacts"
targets=
running=0
for bin in "$build"/fuzz/*_fuzz; do
  [ -x "$bin" ] || continue
  targets="$targets $bin"
  rm -f "$build/fuzz-artifacts/$(basename "$bin" _fuzz).result"
  run_target "$bin" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait
    running=0
  fi
done
wait

status=0
printf '%-10s %10s %8s  %s\n' TARGET EXECS EXEC/S RESULT
for bin in $targets; do
  result="$build/fuzz-artifacts/$(basename "$bin" _fuzz).result"
  if [ -f "$result" ]; then
    cat "$result"
  else
    printf '%-10s %10s %8s  %s\n' "$(basename "$bin" _fuzz)" ? ? \
      "FAILED (no result)"
  fi
  grep -q '  ok$' "$result" 2>/dev/null || status=1
done
exit $status
