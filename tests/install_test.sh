#!/bin/sh
# make install's layout: cmake --install into a DESTDIR with a prefix other
# than the unit's default, then check every file and the unit's ExecStart.
set -eu
build=$1
dest=$(mktemp -d "${TMPDIR:-/tmp}/awc-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT
DESTDIR="$dest" cmake --install "$build" --prefix /usr >/dev/null
for f in usr/sbin/awc-worker usr/bin/awcctl usr/share/man/man8/awc-worker.8 \
         usr/share/man/man1/awcctl.1 usr/share/man/man5/awc-worker.conf.5 \
         usr/lib/systemd/system/awc-worker.service; do
  [ -f "$dest/$f" ] || { echo "missing: $f" >&2; exit 1; }
done
[ -x "$dest/usr/sbin/awc-worker" ] || { echo "awc-worker not executable" >&2; exit 1; }
grep -qx 'ExecStart=/usr/sbin/awc-worker' \
  "$dest/usr/lib/systemd/system/awc-worker.service" ||
  { echo "ExecStart does not follow the prefix" >&2; exit 1; }
"$dest/usr/sbin/awc-worker" --version | grep -q '^awc-worker ' ||
  { echo "installed binary does not run" >&2; exit 1; }
echo "install layout ok"
