#!/usr/bin/env bash
# The awc-worker demo: a worker fleet over a file:// store on a throwaway
# PostgreSQL cluster. Run it with `make demo`, which builds first and calls
#   pg_virtualenv -t contrib/demo/run.sh BUILD_DIR
# so PGHOST, PGPORT, PGUSER and PGPASSWORD point at the throwaway cluster.
set -euo pipefail

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
worker="$top/$build/awc-worker"
awcctl="$top/$build/awcctl"

work=$(mktemp -d "${TMPDIR:-/tmp}/awc-demo.XXXXXX")
fleet_pid=
cleanup() {
  if [ -n "$fleet_pid" ] && kill -0 "$fleet_pid" 2>/dev/null; then
    kill -TERM "$fleet_pid"
    wait "$fleet_pid" || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
sql() { psql -X -q -v ON_ERROR_STOP=1 -d awc_demo "$@"; }

createdb awc_demo
export DATABASE_URL="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/awc_demo"
export AWC_CAS_URL="file://$work/cas"

say "schema and store"
"$awcctl" migrate
"$awcctl" store init "$AWC_CAS_URL"

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
app1=$("$awcctl" import --tenant demo --workspace "$ws_app" "$work/app-v1")
app2=$("$awcctl" import --tenant demo --workspace "$ws_app" "$work/app-v2")
docs=$("$awcctl" import --tenant demo --workspace "$ws_docs" "$work/docs")
sql -c "UPDATE awc.snapshots SET created_at = now() - interval '1 hour'
        WHERE id = $app1"

say "starting a fleet of 3 workers"
AWC_WORKER_CONCURRENCY=3 AWC_WORKER_ID=demo AWC_LOG_LEVEL=warn \
AWC_GC_GRACE_SECS=60 AWC_RETENTION_GRACE_SECS=0 \
  "$worker" 2>"$work/events.log" &
fleet_pid=$!

drained() {
  [ "$(sql -tA -c "SELECT count(*) FROM awc.jobs
                   WHERE state IN ('PENDING', 'RUNNING')
                     AND run_at <= now() + interval '5 seconds'")" = 0 ]
}
wait_drained() {
  for _ in $(seq 1 600); do
    drained && return 0
    sleep 0.2
  done
  echo "the queue did not drain; events:" >&2
  tail -20 "$work/events.log" >&2
  return 1
}
wait_drained
sql -c "SELECT id, workspace_id, state, object_count, byte_count
        FROM awc.snapshots ORDER BY id"

say "corrupting one stored object of the docs snapshot"
victim=$(sql -tA -c "SELECT substr(so.digest, 8) FROM awc.snapshot_objects so
  JOIN awc.objects o ON o.digest = so.digest
  WHERE so.snapshot_id = $docs AND o.size > 100 ORDER BY so.digest LIMIT 1")
path="$work/cas/demo/sha256/${victim:0:2}/$victim"
printf 'X' | dd of="$path" bs=1 seek=10 conv=notrunc status=none
echo "flipped a byte of sha256:$victim"

say "enqueueing scrub, retention, expiry and gc"
sql -c "INSERT INTO awc.jobs (kind, payload) SELECT 'snapshot_scrub',
        jsonb_build_object('snapshot_id', id) FROM awc.snapshots"
wait_drained
sql -c "INSERT INTO awc.jobs (kind, payload) SELECT 'snapshot_retain',
        jsonb_build_object('snapshot_id', id) FROM awc.snapshots"
wait_drained
# The docs workspace expires: EXPIRING now, EXPIRED on the next run.
sql -c "UPDATE awc.workspaces SET expires_at = now() WHERE id = $ws_docs"
"$awcctl" enqueue workspace_expire "{\"workspace_id\": $ws_docs}" >/dev/null
wait_drained
"$awcctl" enqueue workspace_expire "{\"workspace_id\": $ws_docs}" >/dev/null
wait_drained
# Let the released objects age past the GC grace, then collect.
sql -c "UPDATE awc.objects SET created_at = now() - interval '1 hour',
                              last_seen_at = now() - interval '1 hour'"
"$awcctl" enqueue gc_sweep '{"tenant_id": "demo"}' >/dev/null
wait_drained

say "summary: jobs by kind and state"
sql -c "SELECT kind, state, count(*) AS jobs FROM awc.jobs
        GROUP BY 1, 2 ORDER BY 1, 2"
say "summary: snapshots"
sql -c "SELECT s.id, w.id AS workspace, s.state, s.object_count AS objects,
               coalesce(s.failure->>'code', '') AS failure
        FROM awc.snapshots s LEFT JOIN awc.workspaces w ON w.id = s.workspace_id
        ORDER BY s.id"
say "summary: garbage collection"
sql -c "SELECT id AS epoch, state, planned_count AS planned,
               deleted_count AS deleted, deleted_bytes, kept_count AS kept
        FROM awc.gc_epochs ORDER BY id"
sql -c "SELECT (SELECT count(*) FROM awc.objects) AS objects_left,
               (SELECT count(*) FROM awc.gc_pins) AS pinned_digests"
say "summary: audit trail"
sql -c "SELECT event, count(*) FROM awc.audit_events GROUP BY 1 ORDER BY 1"

say "stopping the fleet (SIGTERM)"
kill -TERM "$fleet_pid"
wait "$fleet_pid"
fleet_pid=
echo "fleet exited cleanly"
