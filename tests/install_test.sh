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
         usr/lib/systemd/system/awc-worker.service \
         usr/share/bash-completion/completions/awcctl \
         usr/share/bash-completion/completions/awc-worker; do
  [ -f "$dest/$f" ] || { echo "missing: $f" >&2; exit 1; }
done
[ -x "$dest/usr/sbin/awc-worker" ] || { echo "awc-worker not executable" >&2; exit 1; }
grep -qx 'ExecStart=/usr/sbin/awc-worker' \
  "$dest/usr/lib/systemd/system/awc-worker.service" ||
  { echo "ExecStart does not follow the prefix" >&2; exit 1; }
"$dest/usr/sbin/awc-worker" --version | grep -q '^awc-worker ' ||
  { echo "installed binary does not run" >&2; exit 1; }
# The completions load, and complete from the installed binary's own help.
bash -c '
  . "$1/usr/share/bash-completion/completions/awc-worker"
  . "$1/usr/share/bash-completion/completions/awcctl"
  complete -p awcctl awc-worker >/dev/null || exit 1
  COMP_WORDS=("$1/usr/bin/awcctl" jobs ""); COMP_CWORD=2; _awcctl
  [ "${COMPREPLY[*]}" = "list show cancel retry" ] ||
    { echo "awcctl jobs completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=("$1/usr/bin/awcctl" dlq purge --o); COMP_CWORD=3; _awcctl
  [ "${COMPREPLY[*]}" = "--older-than" ] ||
    { echo "awcctl dlq purge --o completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=(awc-worker -); COMP_CWORD=1; _awc_worker
  [ "${COMPREPLY[*]}" = "-c -t -h --help -V --version" ] ||
    { echo "awc-worker - completes to: ${COMPREPLY[*]}" >&2; exit 1; }
' sh "$dest" || { echo "bash completion does not work" >&2; exit 1; }
echo "install layout ok"
