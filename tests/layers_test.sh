#!/bin/sh
# The module layering of src/: every folder has the layer given in the table
# of docs/ARCHITECTURE.md, "Module map", and a file may include headers only
# from folders of lower layers (never its own layer's siblings, never above),
# so the folders cannot form a cycle. Unit tests (*_test.cc) are exempt:
# they are not part of the library.
set -eu
root=$1
doc="$root/docs/ARCHITECTURE.md"

# "folder layer" for every row "| N | `folder/` | ... |" of the section.
layers=$(awk '
  /^## / { in_map = ($0 == "## Module map") }
  in_map && match($0, /^\| *[0-9]+ *\| *`[a-z0-9_]+\/` *\|/) {
    row = substr($0, 1, RLENGTH)
    gsub(/[|`\/]/, " ", row)
    split(row, f, " ")
    print f[2], f[1]
  }' "$doc")
[ -n "$layers" ] || { echo "no layer table in $doc, \"Module map\"" >&2; exit 1; }

layer_of() {
  printf '%s\n' "$layers" | awk -v m="$1" '$1 == m { print $2; exit }'
}

# Includes that still go against the layering while they are being removed.
# Each line is "file folder": `file` may include headers of `folder`. An
# entry that is no longer needed fails the check, so the list only shrinks.
exceptions="
"

status=0
used=""
for dir in "$root"/src/*/; do
  module=$(basename "$dir")
  [ -n "$(layer_of "$module")" ] || {
    echo "src/$module/ has no layer in $doc, \"Module map\"" >&2
    status=1
  }
done
[ "$status" = 0 ] || exit 1

# Test-only interfaces (docs/ARCHITECTURE.md, "Where code goes") are in
# headers named *_testing.h. Production code may not include one, except
# foo.cc its own foo_testing.h (the seam it implements); the test-only code
# itself (src/testing/, *_testing.*) may.
for file in $(cd "$root" && find src -name '*.h' -o -name '*.cc' | sort); do
  case $file in *_test.cc | *_testing.h | *_testing.cc | src/testing/*) continue ;; esac
  own_seam=${file%.cc}_testing.h
  for header in $(sed -n 's|^#include "\([a-z0-9_/]*_testing\.h\)".*|\1|p' \
                    "$root/$file"); do
    [ "src/$header" = "$own_seam" ] && continue
    echo "$file includes the test-only $header" >&2
    status=1
  done
done

for file in $(cd "$root" && find src -name '*.h' -o -name '*.cc' | sort); do
  case $file in *_test.cc) continue ;; esac
  module=$(printf '%s\n' "$file" | cut -d/ -f2)
  own=$(layer_of "$module")
  for dep in $(sed -n 's|^#include "\([a-z0-9_]*\)/.*|\1|p' "$root/$file" |
               sort -u); do
    [ "$dep" = "$module" ] && continue
    theirs=$(layer_of "$dep")
    [ -n "$theirs" ] || continue  # not a folder of src/ (e.g. tests/)
    [ "$theirs" -lt "$own" ] && continue
    if printf '%s\n' "$exceptions" | grep -qx "$file $dep"; then
      used="$used
$file $dep"
      continue
    fi
    echo "$file (layer $own, $module/) includes $dep/ (layer $theirs)" >&2
    status=1
  done
done

printf '%s\n' "$exceptions" | while read -r entry; do
  [ -n "$entry" ] || continue
  printf '%s\n' "$used" | grep -qx "$entry" ||
    { echo "exception no longer needed, remove it: $entry" >&2; exit 1; }
done || status=1

[ "$status" = 0 ] && echo "layering ok: $(printf '%s\n' "$layers" | wc -l) folders"
exit "$status"
