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
  # every module is a node, so tsort sees the folder whole
  for f in "$dir"/*.c "$dir"/*.h "$dir"/*.cu "$dir"/*.cuh; do
    [ -f "$f" ] || continue
    m=$(basename "$f")
    echo "$m $m" >>"$edges"
    { grep -hoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"'"$dir"'/[a-z0-9_]+\.(h|cuh)"' "$f" || true; } |
      sed -E 's#.*"'"$dir"'/([a-z0-9_]+\.[a-z]+)".*#\1#' |
      while read -r dep; do [ "$dep" = "$m" ] || echo "$m $dep"; done >>"$edges"
  done
  # calls: the objects this build compiled from the folder's sources
  objs=$(find "$build/CMakeFiles" -path "*.dir/$dir/*.o" 2>/dev/null | grep -E "\.dir/$dir/[^/]+\.o$" || true)
  if [ -n "$objs" ]; then
    defs=$(mktemp)
    for o in $objs; do
      m=$(basename "$o" .o)
      nm -g --defined-only "$o" 2>/dev/null | awk -v m="$m" 'NF == 3 { print $3, m }'
    done | sort -u >"$defs"
    objects_checked=$((objects_checked + $(echo "$objs" | wc -l)))
    for o in $objs; do
      m=$(basename "$o" .o)
      nm -u "$o" 2>/dev/null | awk '{ print $NF }' | sort -u |
        join - "$defs" | awk -v m="$m" '$2 != m { print m, $2 }' >>"$edges"
    done
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
