#!/usr/bin/env bash
# No file of the tree names a repository path that does not exist
# (scripts/check-paths.sh), and the check fails, naming file and line, on a
# copy with a comment that points at a missing file.
set -euo pipefail
src=${OFDMSIM_SOURCE_DIR:?}
bash "$src/scripts/check-paths.sh" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" ls-files -co --exclude-standard -- scripts core | while read -r f; do
  [ -f "$src/$f" ] || continue
  mkdir -p "$tmp/$(dirname "$f")"
  cp "$src/$f" "$tmp/$f"
done
git -C "$tmp" init -q
missing=no_such_file # (spelt apart so that this script itself names no missing path)
printf '/* see core/%s.h for why */\n' "$missing" >>"$tmp/core/rng.h"
git -C "$tmp" add -A
if out=$(bash "$tmp/scripts/check-paths.sh" 2>&1); then
  echo "FAIL: a comment naming a missing file passed the check"; exit 1
fi
grep -q "core/rng.h:[0-9]*: names core/$missing.h" <<<"$out" || { echo "FAIL: unclear message: $out"; exit 1; }
echo "2 passed, 0 failed"
