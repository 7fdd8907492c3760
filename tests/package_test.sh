#!/bin/sh
# The Debian package of DIR (make deb), installed for real with dpkg on this
# machine: its files, the system user and state directory, the conffile,
# both units (systemd-analyze verify, hardening exposure), then the
# installed daemon run as the service's user (no new privileges, no
# capabilities, as the unit runs it) against the test cluster: refused
# without its store, then, once awcctl (as that user) has made it, run
# until it is ready and its scheduler has led and fired every built-in
# schedule, and stopped with SIGTERM. Then an upgrade to the same package
# with a higher version keeps the edited conffile, the user and the state
# directory, and the package is removed and purged. What the maintainer
# scripts ask of systemd is checked at each step: the first install starts
# nothing, the upgrade stops nothing and restarts the running instances
# once the new files are in place, the removal stops them.
#
# Needs root (make check runs it through sudo when not root), mount
# namespaces (unshare), and the cluster of pg_virtualenv (PGHOST, PGPORT,
# PGUSER, PGPASSWORD). Refuses to run where awc-worker is already installed.
set -eu
dir=$1
arch=$(dpkg --print-architecture)
deb=$(ls "$dir"/awc-worker_*_"$arch".deb)
max_exposure=1.2

fail() {
  echo "package test: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || fail "must run as root"
[ -n "${PGPORT:-}" ] || fail "needs the test cluster (PGPORT is not set)"
if dpkg-query -W -f='${Status}' awc-worker 2>/dev/null | grep -q installed; then
  fail "awc-worker is already installed here; not touching it"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/awc-package.XXXXXX")
# The store of this run, in the state directory, where the service keeps
# one; a name of its own, so that nothing left there before is used.
store=/var/lib/awc-worker/cas-package-test-$$
daemon=
cleanup() {
  [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null
  dpkg --purge awc-worker >/dev/null 2>&1 || true
  rm -rf "$work" "$store"
}
trap cleanup EXIT

# The maintainer scripts as under systemd, which is not PID 1 here: in a
# mount namespace of their own /run/systemd/system exists (their test for
# a running systemd), and systemctl and deb-systemd-invoke only write what
# they are asked to do to $work/systemd.log, one call a line.
fakebin=$work/bin
mkdir "$fakebin"
for tool in systemctl deb-systemd-invoke; do
  printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$tool" "$work/systemd.log" \
    >"$fakebin/$tool"
  chmod +x "$fakebin/$tool"
done
under_systemd() {
  : >"$work/systemd.log"
  unshare --mount --propagation private sh -c '
    mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system &&
    PATH="$0:$PATH" exec "$@"' "$fakebin" "$@" </dev/null
}
# Fails unless systemd was asked to do exactly the lines of $1, in order
# ($2 names the step).
systemd_asked() {
  if [ -n "$1" ]; then printf '%s\n' "$1"; fi >"$work/systemd.want"
  diff -u "$work/systemd.want" "$work/systemd.log" >&2 ||
    fail "$2: systemd was not asked for the above"
}

under_systemd dpkg -i "$deb" >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log" >&2; fail "dpkg -i failed"; }

# Files, and the binaries stripped (their symbols are in -dbgsym).
for f in /usr/sbin/awc-worker /usr/bin/awcctl \
         /etc/awc-worker/awc-worker.conf \
         /lib/systemd/system/awc-worker.service \
         /lib/systemd/system/awc-worker@.service \
         /usr/lib/sysusers.d/awc-worker.conf \
         /usr/lib/tmpfiles.d/awc-worker.conf \
         /usr/share/man/man8/awc-worker.8.gz \
         /usr/share/man/man1/awcctl.1.gz \
         /usr/share/man/man5/awc-worker.conf.5.gz \
         /usr/share/doc/awc-worker/copyright; do
  [ -e "$f" ] || fail "missing $f"
done
for b in /usr/sbin/awc-worker /usr/bin/awcctl; do
  if readelf -S "$b" | grep -q '\.debug_info'; then fail "$b is not stripped"; fi
done
/usr/sbin/awc-worker --version | grep -q '^awc-worker ' ||
  fail "the installed daemon does not run"
dpkg-query -W -f='${Conffiles}\n' awc-worker |
  grep -q '/etc/awc-worker/awc-worker.conf' ||
  fail "/etc/awc-worker/awc-worker.conf is not a conffile"

# The system user and its state directory.
entry=$(getent passwd awc-worker) || fail "no user awc-worker"
case $entry in
  *:/var/lib/awc-worker:/usr/sbin/nologin) ;;
  *) fail "unexpected account: $entry" ;;
esac
uid=$(id -u awc-worker)
[ "$uid" -lt 1000 ] || fail "awc-worker is not a system user (uid $uid)"
[ "$(stat -c '%U:%G %a' /var/lib/awc-worker)" = "awc-worker:awc-worker 750" ] ||
  fail "/var/lib/awc-worker: $(stat -c '%U:%G %a' /var/lib/awc-worker)"

# The units: valid, disabled until configured, hardened.
systemd-analyze verify --man=no /lib/systemd/system/awc-worker.service ||
  fail "systemd-analyze verify awc-worker.service"
(cd / && systemd-analyze verify --man=no awc-worker@main.service) ||
  fail "systemd-analyze verify awc-worker@main.service"
for unit in awc-worker.service awc-worker@main.service; do
  exposure=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null |
             sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
  [ -n "$exposure" ] || fail "no exposure level for $unit"
  awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e <= m) }' ||
    fail "$unit: exposure $exposure is above $max_exposure"
done
if [ -e /etc/systemd/system/multi-user.target.wants/awc-worker.service ]; then
  fail "the service is enabled before it is configured"
fi
systemd_asked "" "the first install"

# The installed daemon, as its user, on a database of its own.
db=awc_package_$$
psql -q -d postgres -c "CREATE DATABASE $db" || fail "cannot create $db"
port=$(shuf -i 40001-49999 -n 1)
# Replaces the calling (sub)shell, so a background one's pid is the daemon's.
exec_as_service() {
  exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    DATABASE_URL="postgresql://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/$db" \
    AWC_CAS_URL="file://$store" \
    AWC_WORKER_CONCURRENCY=2 AWC_METRICS_LISTEN="127.0.0.1:$port" \
    setpriv --reuid=awc-worker --regid=awc-worker --init-groups \
    --no-new-privs --bounding-set=-all --inh-caps=-all "$@"
}
(exec_as_service /usr/sbin/awc-worker -t) \
  >"$work/t.out" 2>&1 || { cat "$work/t.out" >&2; fail "awc-worker -t"; }
if grep -q "$PGPASSWORD" "$work/t.out"; then fail "-t shows the password"; fi
# Without -c, both programs read the package's settings file.
grep -q 'file /etc/awc-worker/awc-worker.conf' "$work/t.out" ||
  { cat "$work/t.out" >&2; fail "-t did not read /etc/awc-worker/awc-worker.conf"; }
# The daemon uses only a store made by `awcctl store init`, run as the
# service's user before the first start.
if (exec_as_service /usr/sbin/awc-worker) >"$work/nostore.out" 2>&1; then
  fail "the daemon started without its store"
fi
grep -q "create the store with \"awcctl store init file://$store\"" \
  "$work/nostore.out" ||
  { cat "$work/nostore.out" >&2; fail "no word of awcctl store init"; }
[ ! -e "$store" ] || fail "the daemon created $store"
(exec_as_service /usr/bin/awcctl store init "file://$store") \
  >"$work/init.out" 2>&1 || { cat "$work/init.out" >&2; fail "awcctl store init"; }
[ "$(stat -c %U "$store/.awc-store")" = awc-worker ] ||
  fail "$store/.awc-store is not the service's"
(exec_as_service /usr/sbin/awc-worker) \
  >"$work/daemon.out" 2>&1 &
daemon=$!
ready=
for _ in $(seq 1 300); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
    ready=yes
    break
  fi
  kill -0 "$daemon" 2>/dev/null || break
  sleep 0.1
done
[ -n "$ready" ] || { cat "$work/daemon.out" >&2; fail "the daemon never became ready"; }
# The scheduler child: it takes the leader lease and fires the built-in
# schedules (prune's deletions included) as the service's user.
fired=
for _ in $(seq 1 300); do
  n=$(psql -X -tA -d "$db" -c "SELECT count(*) FROM awc.schedules
        WHERE builtin AND last_result ->> 'result' = 'ok'" 2>/dev/null || true)
  if [ "$n" = 7 ] && pgrep -u awc-worker -f '^awc-worker: scheduler leader' \
       >/dev/null; then
    fired=yes
    break
  fi
  kill -0 "$daemon" 2>/dev/null || break
  sleep 0.1
done
[ -n "$fired" ] || { cat "$work/daemon.out" >&2; fail "the scheduler did not lead and fire the built-in schedules"; }
kill -TERM "$daemon"
code=0
wait "$daemon" || code=$?
daemon=
[ "$code" = 0 ] || { cat "$work/daemon.out" >&2; fail "the daemon exited $code after SIGTERM"; }
psql -q -d postgres -c "DROP DATABASE $db" || true

# An upgrade: the same files under a higher version.
version=$(dpkg-deb -f "$deb" Version)
dpkg-deb -R "$deb" "$work/next"
sed -i "s/^Version: .*/Version: $version+1/" "$work/next/DEBIAN/control"
dpkg-deb -b "$work/next" "$work/next.deb" >/dev/null
conf=/etc/awc-worker/awc-worker.conf
echo "# kept by upgrades ($$)" >>"$conf"
under_systemd dpkg -i "$work/next.deb" >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log" >&2; fail "the upgrade failed"; }
[ "$(dpkg-query -W -f='${Version}' awc-worker)" = "$version+1" ] ||
  fail "the upgrade did not install $version+1"
grep -qx "# kept by upgrades ($$)" "$conf" ||
  fail "the upgrade replaced the edited $conf"
[ "$(id -u awc-worker)" = "$uid" ] || fail "the upgrade changed the user's uid"
[ "$(stat -c '%U:%G %a' /var/lib/awc-worker)" = "awc-worker:awc-worker 750" ] ||
  fail "after the upgrade, /var/lib/awc-worker: $(stat -c '%U:%G %a' /var/lib/awc-worker)"
[ "$(stat -c %U "$store/.awc-store")" = awc-worker ] ||
  fail "the upgrade lost the store in the state directory"
systemd_asked "systemctl --system daemon-reload
deb-systemd-invoke try-restart awc-worker.service awc-worker@*.service" \
  "the upgrade"

# Removed: every instance stopped; the conffile stays until purged.
under_systemd dpkg -r awc-worker >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log" >&2; fail "dpkg -r failed"; }
[ -e "$conf" ] || fail "dpkg -r removed $conf"
systemd_asked "deb-systemd-invoke stop awc-worker.service awc-worker@*.service
systemctl --system daemon-reload" "the removal"

# Purged: the files go, the user stays (removing it could orphan files).
dpkg --purge awc-worker >/dev/null
for f in /usr/sbin/awc-worker /etc/awc-worker/awc-worker.conf \
         /lib/systemd/system/awc-worker.service; do
  [ ! -e "$f" ] || fail "$f is still there after purge"
done
echo "package ok: $(basename "$deb"), $(stat -c %s "$deb") bytes"
