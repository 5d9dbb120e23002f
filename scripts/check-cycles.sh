#!/usr/bin/env bash
# Fails on a cycle among the files of one folder: file a depends on file b
# of the same folder when a includes "dir/b.h", or when a.c's object calls a
# function (or uses a variable) that b.c's object defines. A folder whose
# files form no cycle reads bottom-up, file by file, and each file can be
# tested and replaced on its own; a cycle says two files are one job, or
# that a function sits in the wrong one.
#   scripts/check-cycles.sh [BUILD_DIR]
# Includes are read from the sources; calls from the objects of BUILD_DIR
# (default build/), so a build must exist (folders not compiled there, e.g.
# cuda/ without nvcc, are checked on their includes alone). Exit 0 when
# clean, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
cd "$root"

folders="core channel equalizer coding cpu cuda cuda/bench config results sim mpi api app app/bench"
bad=0
objects_checked=0
for dir in $folders; do
  [ -d "$dir" ] || continue
  edges=$(mktemp)
  # every module is a node, so tsort sees the folder whole; one awk for the
  # folder's includes, one nm for its objects' symbols (a process a file
  # made this check most of test_layers' time)
  files=$(ls "$dir"/*.c "$dir"/*.h "$dir"/*.cu "$dir"/*.cuh 2>/dev/null || true)
  if [ -n "$files" ]; then
    # shellcheck disable=SC2086
    awk -v dir="$dir" '
      FNR == 1 { m = FILENAME; sub(".*/", "", m); print m, m }
      /^[ \t]*#[ \t]*include[ \t]+"/ {
        if (match($0, "\"" dir "/[a-z0-9_]+\\.(h|cuh)\"")) {
          dep = substr($0, RSTART + length(dir) + 2, RLENGTH - length(dir) - 3)
          if (dep != m) print m, dep
        }
      }' $files >>"$edges"
  fi
  # calls: the objects this build compiled from the folder's sources
  objs=$(find "$build/CMakeFiles" -path "*.dir/$dir/*.o" 2>/dev/null | grep -E "\.dir/$dir/[^/]+\.o$" || true)
  if [ -n "$objs" ]; then
    defs=$(mktemp)
    # nm -A: each line starts with its object's path and a colon
    # shellcheck disable=SC2086
    nm -A -g --defined-only $objs 2>/dev/null | awk '{ o = $1; sub(/:.*/, "", o); sub(".*/", "", o); sub(/\.o$/, "", o); print $NF, o }' |
      sort -u >"$defs"
    objects_checked=$((objects_checked + $(echo "$objs" | wc -l)))
    # shellcheck disable=SC2086
    nm -A -u $objs 2>/dev/null | awk '{ o = $1; sub(/:.*/, "", o); sub(".*/", "", o); sub(/\.o$/, "", o); print $NF, o }' |
      sort -u | join - "$defs" | awk '$2 != $3 { print $2, $3 }' >>"$edges"
    rm -f "$defs"
  fi
  if ! out=$(tsort "$edges" 2>&1 >/dev/null) || [ -n "$out" ]; then
    echo "check-cycles: $dir/: its files depend on each other in a cycle:" >&2
    loop=$(echo "$out" | grep -v 'input contains a loop' | sed 's/^tsort: //' | sort -u)
    # the edges among the loop's files, each with why (an include or a call)
    sort -u "$edges" | while read -r a b; do
      [ "$a" != "$b" ] && echo "$loop" | grep -qx "$a" && echo "$loop" | grep -qx "$b" && echo "  $a -> $b"
    done >&2 || true
    bad=1
  fi
  rm -f "$edges"
done
if [ "$objects_checked" -eq 0 ]; then
  echo "check-cycles: no objects under $build: build first" >&2
  exit 1
fi
[ "$bad" -eq 0 ] || exit 1
echo "check-cycles: no include or call cycle among the files of any folder ($objects_checked objects)"
