#!/bin/sh
# The demo as a newcomer sees it with its output in a file (make demo >
# log): it ends well, and what it prints is a summary, not a stream of
# JSON events or terminal escape codes, with one "awcctl: target" line.
# Runs under the tests' cluster (pg_virtualenv sets PGHOST and the rest).
# usage: demo_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
out=$(mktemp "${TMPDIR:-/tmp}/awc-demo-test.XXXXXX")
trap 'rm -f "$out"' EXIT
fail() { echo "demo_test: $*" >&2; cat "$out" >&2; exit 1; }

# The demo's database is its own; a cluster left with one from a run
# before (a kept cluster) gets a clean one.
dropdb --if-exists awc_demo
unset NO_COLOR
"$src/contrib/demo/run.sh" "$build" >"$out" 2>&1 </dev/null ||
  fail "the demo failed"

grep -q "fleet exited cleanly" "$out" || fail "no clean end"
esc=$(printf '\033')
if grep -q "$esc" "$out"; then fail "escape codes in redirected output"; fi
if grep -q '^{"ts"' "$out"; then fail "the fleet's JSON events in the output"; fi
n=$(grep -c "awcctl: target " "$out" || true)
[ "$n" -eq 1 ] || fail "\"awcctl: target\" shown $n times, not once"
events=$(sed -n 's/^the fleet.s events: //p' "$out" | head -n 1)
[ -s "$events" ] || fail "the events log it names ($events) is missing"
rm -f "$events"
echo "demo_test: ok"
