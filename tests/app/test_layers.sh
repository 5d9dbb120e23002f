#!/usr/bin/env bash
# The layering rule: scripts/check-layers.sh passes on the tree, and fails on a
# copy of it with one upward include planted (so the check can fail).
set -euo pipefail
src=${OFDMSIM_SOURCE_DIR:?}
bash "$src/scripts/check-layers.sh" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" ls-files -co --exclude-standard -- scripts core channel | while read -r f; do
  [ -f "$src/$f" ] || continue
  mkdir -p "$tmp/$(dirname "$f")"
  cp "$src/$f" "$tmp/$f"
done
git -C "$tmp" init -q
echo '#include "sim/driver.h"' >> "$tmp/channel/tdl.c"
git -C "$tmp" add -A
if out=$(bash "$tmp/scripts/check-layers.sh" 2>&1); then
  echo "FAIL: an upward include passed the check"; exit 1
fi
grep -q 'channel/tdl.c:.*sim/driver.h' <<<"$out" || { echo "FAIL: unclear message: $out"; exit 1; }
echo "1 passed, 0 failed"
