#!/usr/bin/env bash
# Fails when a tracked text file names a repository path that does not exist:
# every token "top/.../name.ext" whose first folder is one of the repository's
# own top-level folders must be a file or folder of the tree, read from the
# repository root or from the naming file's folder. Comments and documents
# that point at moved or deleted files mislead the next reader; this keeps
# them true. Placeholders are written so they cannot match ("configs/<name>.cfg").
#   scripts/check-paths.sh        exit 0 when every named path exists, 1 otherwise
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
tops=$(git ls-files | grep / | cut -d/ -f1 | sort -u | tr '\n' '|' | sed 's/|$//; s/\./\\./g')
bad=0
n=0
while IFS=: read -r file line tok; do
  n=$((n + 1))
  [ -e "$tok" ] || [ -e "$(dirname "$file")/$tok" ] && continue
  echo "$file:$line: names $tok, which does not exist" >&2
  bad=1
done < <(git ls-files -co --exclude-standard |
         grep -E '\.(c|h|cu|cuh|sh|md|txt|cfg|py|in)$|CMakeLists\.txt$|^\.ci/' |
         grep -vE '^(tests/app/data|tests/bad|fuzz/seeds)/' |
         xargs grep -noE "(^|[^A-Za-z0-9_./~\$<-])($tops)/([A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.(c|h|cu|cuh|sh|md|cfg|py|txt|csv|json)\b" 2>/dev/null |
         sed -E 's/^([^:]+):([0-9]+):[^A-Za-z_.]?/\1:\2:/')
if [ "$n" -eq 0 ]; then
  echo "check-paths: no path tokens found (the pattern is broken)" >&2
  exit 1
fi
[ "$bad" -eq 0 ] || exit 1
echo "check-paths: $n paths named, every one exists"
