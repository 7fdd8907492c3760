#!/bin/sh
# make install's layout: the Makefile's install recipe on the tree BUILD
# (not rebuilt) into a DESTDIR, under the prefix the tree was configured
# with (make passes PREFIX at configure time, so the binaries' default
# settings file matches where it is installed); then every file, the
# binaries stripped, the units' paths, and an operator's settings file kept
# on reinstall.
#
#   install_test.sh BUILD SOURCE
set -eu
build=$1
source=$2
dest=$(mktemp -d "${TMPDIR:-/tmp}/awc-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
case $prefix in
  /usr) etc=/etc ;;
  /opt/*) etc=/etc$prefix ;;
  *) etc=$prefix/etc ;;
esac
fail() {
  echo "install test: $*" >&2
  exit 1
}

# `make install`, with its `build` prerequisite taken as done (-o).
make_install() {
  env -u MAKEFLAGS -u MAKELEVEL make -s -C "$source" -o build install \
    BUILD="$build" DESTDIR="$dest" >/dev/null
}

make_install
for f in sbin/awc-worker bin/awcctl share/man/man8/awc-worker.8 \
         share/man/man1/awcctl.1 share/man/man5/awc-worker.conf.5 \
         lib/systemd/system/awc-worker.service \
         lib/systemd/system/awc-worker@.service \
         share/bash-completion/completions/awcctl \
         share/bash-completion/completions/awc-worker; do
  [ -f "$dest$prefix/$f" ] || fail "missing: $prefix/$f"
done
conf=$dest$etc/awc-worker/awc-worker.conf
[ -f "$conf" ] || fail "missing: $etc/awc-worker/awc-worker.conf"
[ -x "$dest$prefix/sbin/awc-worker" ] || fail "awc-worker not executable"
for b in sbin/awc-worker bin/awcctl; do
  if readelf -S "$dest$prefix/$b" | grep -Eq '\.(symtab|debug_info) '; then
    fail "$prefix/$b is not stripped"
  fi
done
"$dest$prefix/sbin/awc-worker" --version | grep -q '^awc-worker ' ||
  fail "installed binary does not run"

units=$dest$prefix/lib/systemd/system
grep -qx "ExecStart=$prefix/sbin/awc-worker" "$units/awc-worker.service" ||
  fail "ExecStart does not follow the prefix"
grep -qx "ExecStart=$prefix/sbin/awc-worker -c $etc/awc-worker/%i.conf" \
  "$units/awc-worker@.service" ||
  fail "the template's ExecStart does not follow the prefix"
if grep -q '/usr/sbin/' "$units/awc-worker.service" && [ "$prefix" != /usr ]; then
  fail "a unit still names /usr/sbin"
fi

# The completions load, and complete from the installed binary's own help.
bash -c '
  . "$1/share/bash-completion/completions/awc-worker"
  . "$1/share/bash-completion/completions/awcctl"
  complete -p awcctl awc-worker >/dev/null || exit 1
  COMP_WORDS=("$1/bin/awcctl" jobs ""); COMP_CWORD=2; _awcctl
  [ "${COMPREPLY[*]}" = "list show cancel retry" ] ||
    { echo "awcctl jobs completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=("$1/bin/awcctl" store ""); COMP_CWORD=2; _awcctl
  [ "${COMPREPLY[*]}" = "init reconcile" ] ||
    { echo "awcctl store completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=("$1/bin/awcctl" dlq purge --o); COMP_CWORD=3; _awcctl
  [ "${COMPREPLY[*]}" = "--older-than" ] ||
    { echo "awcctl dlq purge --o completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=("$1/bin/awcctl" workers --d); COMP_CWORD=2; _awcctl
  [ "${COMPREPLY[*]}" = "--database-url" ] ||
    { echo "awcctl workers --d completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=("$1/bin/awcctl" jobs list --state ""); COMP_CWORD=4; _awcctl
  [ "${COMPREPLY[*]}" = "PENDING RUNNING COMPLETED FAILED CANCELLED" ] ||
    { echo "awcctl jobs list --state completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=("$1/bin/awcctl" dlq list --reason s); COMP_CWORD=4; _awcctl
  [ "${COMPREPLY[*]}" = "subject_missing" ] ||
    { echo "awcctl dlq list --reason s completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=("$1/bin/awcctl" jobs --kind snapshot_v); COMP_CWORD=3; _awcctl
  [ "${COMPREPLY[*]}" = "snapshot_validate" ] ||
    { echo "awcctl jobs --kind snapshot_v completes to: ${COMPREPLY[*]}" >&2; exit 1; }
  COMP_WORDS=(awc-worker -); COMP_CWORD=1; _awc_worker
  [ "${COMPREPLY[*]}" = "-c -t -h --help -V --version" ] ||
    { echo "awc-worker - completes to: ${COMPREPLY[*]}" >&2; exit 1; }
' sh "$dest$prefix" || fail "bash completion does not work"

# A second install keeps the operator's settings file.
echo "[worker]" >"$conf"
make_install
[ "$(cat "$conf")" = "[worker]" ] || fail "reinstalling replaced the settings file"
echo "install layout ok ($prefix)"
