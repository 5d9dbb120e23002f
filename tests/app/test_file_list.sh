#!/usr/bin/env bash
# docs/ARCHITECTURE.md's "Every file" list is whole and true
# (scripts/check-file-list.sh), and the check fails, naming the file, on a
# copy of the tree with a source file the list lacks and on one whose list
# names a file that is gone.
set -u
src=${OFDMSIM_SOURCE_DIR:?set by ctest}
source "$src/tests/support/harness.sh"

out=$(bash "$src/scripts/check-file-list.sh" "$src" 2>&1)
check "the tree's list is whole and true ($out)" test $? -eq 0

# A copy of the tree as git sees it (tracked, and new files not ignored).
(cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$tmp"
git -C "$tmp" init -q
git -C "$tmp" add -A
fresh=unlisted_file # (spelt apart: this script names no missing path itself)
printf '/* a new file nobody listed */\n' >"$tmp/core/$fresh.h"
out=$(bash "$tmp/scripts/check-file-list.sh" "$tmp" 2>&1)
check "an unlisted source file fails the check (exit $?)" test $? -eq 1
check "the message names it ($out)" grep -q "core/$fresh.h is not in the \"Every file\" list" <<<"$out"

rm "$tmp/core/$fresh.h"
git -C "$tmp" rm -qf core/rng.h
out=$(bash "$tmp/scripts/check-file-list.sh" "$tmp" 2>&1)
check "a listed file that is gone fails the check (exit $?)" test $? -eq 1
check "the message names it ($out)" grep -q "names core/rng.h, which does not exist" <<<"$out"
finish
