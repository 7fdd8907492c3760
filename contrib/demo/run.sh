#!/usr/bin/env bash
# The awc-worker demo: a worker fleet over a file:// store on a throwaway
# PostgreSQL cluster. Run it with `make demo`, which builds first and calls
#   pg_virtualenv -t contrib/demo/run.sh BUILD_DIR
# so PGHOST, PGPORT, PGUSER and PGPASSWORD point at the throwaway cluster.
# The fleet's events (JSON lines) go to a log file the demo names and
# keeps; its own output is the summary. Headings are bold on a terminal,
# unless NO_COLOR is set (https://no-color.org).
set -euo pipefail

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
case "$build" in
  /*) bin=$build ;;      # an absolute build directory (the tests' own)
  *) bin=$top/$build ;;  # one of the source tree's
esac
worker="$bin/awc-worker"
awcctl="$bin/awcctl"

work=$(mktemp -d "${TMPDIR:-/tmp}/awc-demo.XXXXXX")
events=$(mktemp "${TMPDIR:-/tmp}/awc-demo-events.XXXXXX")
fleet_pid=
cleanup() {
  if [ -n "$fleet_pid" ] && kill -0 "$fleet_pid" 2>/dev/null; then
    kill -TERM "$fleet_pid"
    wait "$fleet_pid" || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

bold= plain=
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  bold=$(printf '\033[1m') plain=$(printf '\033[0m')
fi
say() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
sql() { psql -X -q -v ON_ERROR_STOP=1 -d awc_demo "$@"; }

# awcctl. Every call acts on the same database: its "awcctl: target ..."
# line is shown by the first call only (its other errors always are).
target_shown=
ctl() {
  if [ -z "$target_shown" ]; then
    target_shown=1
    "$awcctl" "$@"
  else
    { "$awcctl" "$@" 2>&1 1>&3 3>&- | sed '/^awcctl: target /d' >&2; } 3>&1
  fi
}

createdb awc_demo
export DATABASE_URL="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/awc_demo"
export AWC_CAS_URL="file://$work/cas"

say "schema and store"
ctl migrate
ctl store init "$AWC_CAS_URL"

say "a tenant with two workspaces"
sql -c "INSERT INTO awc.tenants (id) VALUES ('demo')"
ws_app=$(sql -tA -c "INSERT INTO awc.workspaces (tenant_id, retention)
  VALUES ('demo', '{\"keep_last\": 1}') RETURNING id")
ws_docs=$(sql -tA -c "INSERT INTO awc.workspaces (tenant_id)
  VALUES ('demo') RETURNING id")
echo "workspace $ws_app (app, keep_last 1), workspace $ws_docs (docs, no policy)"

say "importing sample trees (this project's own sources)"
mkdir -p "$work/app-v1" "$work/app-v2" "$work/docs"
cp -r "$top/src/." "$work/app-v1/"
cp -r "$top/src/." "$work/app-v2/"
echo "// release 2" >> "$work/app-v2/main/awc_worker_main.cc"
cp -r "$top/man" "$top/README.md" "$work/docs/"
app1=$(ctl import --tenant demo --workspace "$ws_app" "$work/app-v1")
app2=$(ctl import --tenant demo --workspace "$ws_app" "$work/app-v2")
docs=$(ctl import --tenant demo --workspace "$ws_docs" "$work/docs")
sql -c "UPDATE awc.snapshots SET created_at = now() - interval '1 hour'
        WHERE id = $app1"

say "shortening the built-in schedules (minutes and hours become seconds)"
ctl schedules set expire '@every 2s'
ctl schedules set retain '@every 3s'
ctl schedules set scrub '@every 4s'
ctl schedules set gc '@every 5s'
ctl schedules set prune '@every 10s'

say "starting a fleet of 3 workers and its scheduler; nothing is enqueued by hand from here"
AWC_WORKER_CONCURRENCY=3 AWC_WORKER_ID=demo AWC_LOG_LEVEL=info \
AWC_GC_GRACE_SECS=60 AWC_RETENTION_GRACE_SECS=0 \
AWC_SCHEDULER_LEASE_SECS=6 AWC_SCRUB_INTERVAL_SECS=5 AWC_JOB_RETENTION_SECS=15 \
  "$worker" 2>"$events" &
fleet_pid=$!
echo "the fleet's events: $events"

# Waits (up to 2 minutes) until the SQL condition holds.
wait_for() {
  local what=$1 cond=$2
  for _ in $(seq 1 600); do
    [ "$(sql -tA -c "SELECT ($cond)")" = t ] && { echo "$what"; return 0; }
    sleep 0.2
  done
  echo "timed out waiting for: $what; the last events:" >&2
  tail -20 "$events" >&2
  return 1
}

wait_for "validated: the imports' own jobs ran" \
  "SELECT bool_and(state <> 'VALIDATING') FROM awc.snapshots"
wait_for "retain released app v1 (keep_last 1)" \
  "SELECT state = 'RELEASED' FROM awc.snapshots WHERE id = $app1"
sql -c "SELECT id, workspace_id, state, object_count, byte_count
        FROM awc.snapshots ORDER BY id"

say "corrupting one stored object of the docs snapshot"
victim=$(sql -tA -c "SELECT substr(so.digest, 8) FROM awc.snapshot_objects so
  JOIN awc.objects o ON o.digest = so.digest
  WHERE so.snapshot_id = $docs AND o.size > 100 ORDER BY so.digest LIMIT 1")
path="$work/cas/demo/sha256/${victim:0:2}/$victim"
printf 'X' | dd of="$path" bs=1 seek=10 conv=notrunc status=none
echo "flipped a byte of sha256:$victim"
wait_for "scrub found it: the docs snapshot is DEGRADED, its closure pinned" \
  "SELECT state = 'DEGRADED' FROM awc.snapshots WHERE id = $docs"

say "the docs workspace's deadline passes"
sql -c "UPDATE awc.workspaces SET expires_at = now() WHERE id = $ws_docs"
wait_for "expire moved it to EXPIRING, then (grace 0) to EXPIRED" \
  "SELECT state = 'EXPIRED' FROM awc.workspaces WHERE id = $ws_docs"

say "the released objects age past the GC grace"
sql -c "UPDATE awc.objects SET created_at = now() - interval '1 hour',
                              last_seen_at = now() - interval '1 hour'"
wait_for "gc collected them" \
  "SELECT count(*) > 0 FROM awc.gc_epochs WHERE deleted_count > 0"
wait_for "prune deleted the jobs older than 15 s" \
  "SELECT (last_result ->> 'jobs')::int > 0 FROM awc.schedules
    WHERE name = 'prune'"

say "the schedules: every run was the scheduler's"
ctl schedules
sql -c "SELECT name, runs, last_result ->> 'result' AS result,
               coalesce(last_result ->> 'enqueued', '-') AS last_enqueued
        FROM awc.schedules ORDER BY name"
echo "schedule run events in the fleet's log, by schedule:"
grep '"msg":"schedule run"' "$events" |
  sed -n 's/.*"schedule":"\([^"]*\)".*"enqueued":\([0-9]*\).*/\1 \2/p' |
  awk '{ runs[$1]++; jobs[$1] += $2 }
       END { for (s in runs) printf "  %-10s %3d runs, %4d jobs enqueued\n", s, runs[s], jobs[s] }' |
  sort

say "summary: jobs by kind and state (what prune has left)"
sql -c "SELECT kind, state, count(*) AS jobs FROM awc.jobs
        GROUP BY 1, 2 ORDER BY 1, 2"
say "summary: snapshots"
sql -c "SELECT s.id, w.id AS workspace, s.state, s.object_count AS objects,
               coalesce(s.failure->>'code', '') AS failure
        FROM awc.snapshots s LEFT JOIN awc.workspaces w ON w.id = s.workspace_id
        ORDER BY s.id"
echo "The docs snapshot went READY -> DEGRADED (scrub) -> RELEASED: when its workspace"
echo "became EXPIRED, expire released every snapshot of it, whatever its state. Its"
echo "failure code stays, and so do the pins scrub wrote for its closure: GC keeps them."
say "summary: garbage collection"
sql -c "SELECT id AS epoch, state, planned_count AS planned,
               deleted_count AS deleted, deleted_bytes, kept_count AS kept
        FROM awc.gc_epochs ORDER BY id"
echo "kept = candidates an epoch planned but found live again when it re-checked them"
echo "under row locks before deleting (touched, referenced or pinned since the plan);"
echo "0 when nothing changed in between. Pinned and live objects are never planned."
sql -c "SELECT (SELECT count(*) FROM awc.objects) AS objects_left,
               (SELECT count(*) FROM awc.gc_pins) AS pinned_digests"
say "summary: audit trail"
sql -c "SELECT event, count(*) FROM awc.audit_events GROUP BY 1 ORDER BY 1"

say "stopping the fleet (SIGTERM)"
kill -TERM "$fleet_pid"
wait "$fleet_pid"
fleet_pid=
echo "fleet exited cleanly; its events are in $events"
