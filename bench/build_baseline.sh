#!/bin/bash
# Builds awc-bench-scale (the walk at scale) against the tree of an older
# commit, for the storage benchmark's part 4 to run beside this tree's
# (BENCH_BASELINE_BUILD; bench/README.md, "4. The walk at scale"), or
# other targets of it: part 6 runs the daemon and awcctl of the commit
# before the content DAG (BENCH_DEDUP_BASELINE_BUILD; "6. Shared content").
#
#   bench/build_baseline.sh REF DIR [TARGET...]
#
# REF is a commit of this repository's history: `make bench` passes the
# last one whose closure walk held the closure in memory. The commit's
# tree is exported into DIR/src, its bench/ replaced by this tree's bench
# sources (the walk program of both builds is then the same code), and
# the TARGETs (default awc-bench-scale) built in DIR/build
# (DIR/build/baseline-commit names the commit, for the report). A second
# call with the same REF, targets, bench sources and script builds nothing;
# targets outside bench/ do not depend on its sources, so for them the
# bench sources do not count. Prints DIR/build on success. Exits 3, with the
# reason on stderr, when REF cannot be read (no git, or a copy of the tree
# without its history): the benchmark then runs without a baseline and
# says so.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 REF DIR [TARGET...]" >&2
  exit 2
fi
ref=$1
dir=$2
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(awc-bench-scale)
fi
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

if ! command -v git >/dev/null ||
  ! git -C "$top" rev-parse --verify -q "$ref^{commit}" >/dev/null; then
  echo "$0: commit $ref is not in this tree's history (git history needed" \
    "for the baseline walk)" >&2
  exit 3
fi
commit=$(git -C "$top" rev-parse "$ref^{commit}")

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
sources=("$here"/CMakeLists.txt "$here"/*.cc "$here"/*.h)
counted=("$0")
built=()
for t in "${targets[@]}"; do
  case "$t" in
    awc-bench-*) counted=("$0" "${sources[@]}") built+=("$dir/build/bench/$t") ;;
    *) built+=("$dir/build/$t") ;;
  esac
done
stamp="$commit ${targets[*]} $(cat "${counted[@]}" | sha256sum | cut -d' ' -f1)"
fresh=1
for prog in "${built[@]}"; do
  [ -x "$prog" ] || fresh=0
done
if [ $fresh -eq 1 ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$dir/build"
  exit 0
fi

rm -rf "$dir/src" "$dir/stamp"
mkdir -p "$dir/src"
git -C "$top" archive "$commit" | tar -x -C "$dir/src"
rm -rf "$dir/src/bench"
mkdir "$dir/src/bench"
cp "${sources[@]}" "$dir/src/bench/"
{
  cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAWC_BUILD_BENCH=ON -DAWC_BUILD_TESTS=OFF
  cmake --build "$dir/build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"
} >&2
git -C "$top" log -1 --format='%h %s' "$commit" >"$dir/build/baseline-commit"
echo "$stamp" >"$dir/stamp"
echo "$dir/build"
