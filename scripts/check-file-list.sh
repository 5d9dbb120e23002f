#!/usr/bin/env bash
# docs/ARCHITECTURE.md's "Every file" list against the tree: every file git
# tracks in a folder the list covers (a "### dir/" heading) must have a line
# there, and every file a line names must exist in that folder. Configs,
# test data, seeds and prose are not listed (the list's own rule): files
# ending in .cfg, .csv, .json, .md, .txt, .journal, .png, .gp, .bin, and the
# folders under a listed folder that have no heading of their own (test
# data, seed corpora, generated tables). Prints one line per fault, file
# and what is wrong, and exits 1 on any.
#   scripts/check-file-list.sh [ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
doc=$root/docs/ARCHITECTURE.md
[ -f "$doc" ] || { echo "check-file-list: no $doc" >&2; exit 2; }

# "dir/name" for every name the list gives, from its "### dir/" sections;
# a line "- a.c, a.h: role" names a.c and a.h.
listed=$(awk '
  /^## Every file/ { on = 1; next }
  on && /^## / { on = 0 }
  !on { next }
  /^### / { dir = $2; next }
  /^- / && dir != "" {
    line = substr($0, 3); i = index(line, ": "); if (i == 0) next
    n = split(substr(line, 1, i - 1), names, /, /)
    for (k = 1; k <= n; k++) print dir names[k]
  }' "$doc" | sort)
dirs=$(awk '/^## Every file/ { on = 1; next } on && /^## / { on = 0 } on && /^### / { print $2 }' "$doc")
[ -n "$dirs" ] || { echo "check-file-list: $doc has no \"## Every file\" list with ### dir/ sections" >&2; exit 2; }

# What the tree holds in those folders (tracked, or new and not ignored),
# each folder's own files only, less what the list leaves out by rule.
tracked=$(for d in $dirs; do
  git -C "$root" ls-files -co --exclude-standard -- "$d" | awk -v d="$d" 'index($0, d) == 1 && index(substr($0, length(d) + 1), "/") == 0'
done | grep -Ev '\.(cfg|csv|json|md|txt|journal|png|gp|bin)$' | sort -u)

faults=0
while read -r f; do
  [ -n "$f" ] || continue
  [ -e "$root/$f" ] || continue # listed as git knows it but deleted in the work tree: named below
  echo "docs/ARCHITECTURE.md: $f is not in the \"Every file\" list (add a line under ### $(dirname "$f")/)"
  faults=$((faults + 1))
done < <(comm -23 <(printf '%s\n' "$tracked") <(printf '%s\n' "$listed"))
while read -r f; do
  [ -n "$f" ] || continue
  echo "docs/ARCHITECTURE.md: the \"Every file\" list names $f, which does not exist"
  faults=$((faults + 1))
done < <(printf '%s\n' "$listed" | while read -r f; do [ -n "$f" ] && [ ! -e "$root/$f" ] && echo "$f"; done)
[ "$faults" -eq 0 ] || exit 1
echo "check-file-list: $(printf '%s\n' "$listed" | grep -c .) files listed, every one there, none missing"
