#!/bin/sh
# Tests are found by name (docs/ARCHITECTURE.md, "Where code goes"): every
# src/<dir>/foo.cc is tested by src/<dir>/foo_test.cc (a unit test), or by
# tests/<dir>/foo_test.cc or tests/<dir>/foo_<aspect>_test.cc (tests that
# need PostgreSQL, an S3 server or the daemon as a process). A file whose
# tests are named after a group it belongs to, or that has no behaviour of
# its own, is listed below with the test that covers it or the reason; a
# listed test must exist. The files still waiting for a test of their own
# are listed too; that list only shrinks: an entry whose file gained a test
# fails the check until it is removed.
set -eu
root=$1

# "file test-or-reason": where the file's tests are, when not by its name.
covered="
src/main/awc_worker_main.cc main() only: every process test runs it
src/main/awcctl_main.cc main() only: every awcctl test runs it
src/store/memory_store.cc src/store/store_conformance_test.cc
src/store/s3/curl_ev.cc tests/store/s3/s3_store_test.cc
src/common/env_posix.cc src/common/env_test.cc
src/worker/reporter.cc src/worker/worker_test.cc
src/scheduler/pg_scheduler_session.cc tests/scheduler/leader_lease_test.cc
src/scheduler/schedules.cc tests/scheduler/firing_db_test.cc
src/scheduler/schedule_admin.cc tests/scheduler/scheduler_process_test.cc
src/supervisor/notify.cc tests/supervisor/supervisor_test.cc
src/supervisor/supervisor_report.cc tests/obs/observability_test.cc
src/obs/metric_cells.cc src/obs/metrics_test.cc
src/console/dead_page.cc tests/console/console_server_test.cc
src/console/gc_audit_pages.cc tests/console/console_server_test.cc
src/console/jobs_page.cc tests/console/console_server_test.cc
src/console/layout.cc tests/console/console_server_test.cc
src/console/overview_json.cc tests/console/console_server_test.cc
src/console/page_parts.cc tests/console/console_server_test.cc
src/console/pg_session.cc tests/console/console_server_test.cc
src/console/snapshots_page.cc tests/console/console_server_test.cc
src/cli/dlq_cmd.cc tests/cli/jobs_cmd_test.cc
src/cli/enqueue_cmd.cc tests/cli/jobs_cmd_test.cc
src/cli/job_check.cc tests/cli/jobs_cmd_test.cc
src/cli/jobs_output.cc tests/cli/jobs_cmd_test.cc
src/cli/import_cmd.cc tests/cli/awcctl_process_test.cc
src/cli/health_cmd.cc tests/cli/workers_cmd_test.cc
src/cli/stats_cmd.cc tests/cli/workers_cmd_test.cc
src/cli/schedules_cmd.cc tests/scheduler/scheduler_process_test.cc
src/queue/admin.cc tests/cli/jobs_cmd_test.cc
src/queue/dead_letters.cc tests/cli/jobs_cmd_test.cc
src/queue/queue_stats.cc tests/cli/workers_cmd_test.cc
src/fleet/workers.cc tests/cli/workers_cmd_test.cc
src/gc/epochs.cc tests/gc/sweep_test.cc
src/catalog/audit.cc tests/gc/sweep_test.cc
src/catalog/catalog_stats.cc tests/cli/workers_cmd_test.cc
src/catalog/objects.cc tests/handlers/snapshot_validate_test.cc
src/catalog/snapshots.cc tests/handlers/snapshot_validate_test.cc
src/catalog/workspaces.cc tests/handlers/workspace_expire_test.cc
src/handlers/gc_sweep.cc tests/gc/sweep_crash_test.cc
"

# Files with behaviour and no test of their own yet.
untested="
"

entry_of() {
  printf '%s\n' "$2" | awk -v f="$1" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }'
}

status=0
for file in $(cd "$root" && find src -name '*.cc' ! -name '*_test.cc' \
                ! -name '*_testing.cc' | sort); do
  dir=$(dirname "$file")
  base=$(basename "$file" .cc)
  rel=${dir#src/}
  named=""
  if [ -e "$root/$dir/${base}_test.cc" ] || [ -e "$root/tests/$rel/${base}_test.cc" ]; then
    named=1
  else
    for t in "$root/tests/$rel/${base}"_*_test.cc; do
      [ -e "$t" ] && named=1 && break
    done
  fi
  listed=$(entry_of "$file" "$covered")
  waiting=$(printf '%s\n' "$untested" | grep -cx "$file" || true)
  if [ -n "$named" ]; then
    if [ -n "$listed" ] || [ "$waiting" != 0 ]; then
      echo "$file has a test by its name now: remove it from $0" >&2
      status=1
    fi
    continue
  fi
  if [ -n "$listed" ]; then
    case $listed in
      src/*_test.cc | tests/*_test.cc)
        [ -e "$root/$listed" ] || {
          echo "$file: its listed test $listed does not exist" >&2
          status=1
        } ;;
    esac
    continue
  fi
  [ "$waiting" != 0 ] && continue
  echo "$file has no test: add $dir/${base}_test.cc or tests/$rel/${base}_test.cc" >&2
  status=1
done

for entry in $(printf '%s\n' "$covered" | awk 'NF { print $1 }') $untested; do
  [ -e "$root/$entry" ] || {
    echo "$0 lists $entry, which does not exist" >&2
    status=1
  }
done

[ "$status" = 0 ] &&
  echo "tests by name ok: $(printf '%s\n' "$untested" | grep -c . || true) files still untested"
exit "$status"
