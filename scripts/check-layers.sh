#!/usr/bin/env bash
# Fails on an #include that points up a layer (or sideways where no layer
# allows it). The layers, bottom first, and what each may include:
#
#   core       core
#   channel    channel core
#   equalizer  equalizer core
#   coding     coding core
#   cpu        cpu channel equalizer core
#   cuda       cuda channel equalizer core
#   sim        sim cpu cuda channel equalizer core
#   mpi        mpi sim cpu cuda channel equalizer core (a build with MPI)
#   app        app mpi sim cuda cpu channel equalizer core
#   tests/L    what L may include; tests/cuda and tests/support (the GPU
#              tests compare both backends; the point simulator uses the
#              backend registry) what sim may include
#
# The build enforces the same rule (each library sees only the folders of the
# libraries it links: CMakeLists.txt); this script checks the sources alone,
# so CI catches an upward include even in code that is not compiled here
# (e.g. .cu files without a CUDA compiler). Exit 0 when clean, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

allowed() {
  case "$1" in
    core) echo "core" ;;
    channel) echo "channel core" ;;
    equalizer) echo "equalizer core" ;;
    coding) echo "coding core" ;;
    cpu) echo "cpu channel equalizer coding core" ;;
    cuda) echo "cuda channel equalizer coding core" ;;
    sim) echo "sim cpu cuda channel equalizer coding core" ;;
    mpi) echo "mpi sim cpu cuda channel equalizer coding core" ;;
    app) echo "app mpi sim cuda cpu channel equalizer coding core" ;;
    *) return 1 ;;
  esac
}

layers="core channel equalizer coding cpu cuda sim mpi app"
bad=0
checked=0
while IFS= read -r file; do
  [ -f "$file" ] || continue
  top=${file%%/*}
  layer=$top
  if [ "$top" = tests ]; then
    rest=${file#tests/}
    layer=${rest%%/*}
    case "$layer" in support | cuda) layer=sim ;; esac
  fi
  ok=$(allowed "$layer") || continue
  checked=$((checked + 1))
  # Every quoted include of the form "folder/name.h" names a layer folder.
  while IFS=: read -r line inc; do
    dir=${inc%%/*}
    case " $layers " in *" $dir "*) ;; *) continue ;; esac
    case " $ok " in
      *" $dir "*) ;;
      *) echo "$file:$line: includes \"$inc\": layer $layer may use only: $ok" >&2; bad=1 ;;
    esac
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/[^"]+"' "$file" |
           sed -E 's/^([0-9]+):.*"([^"]+)".*/\1:\2/')
done < <(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cu' '*.cuh' | grep -v '^\.deps/')

if [ "$checked" -eq 0 ]; then
  echo "check-layers: no source files found" >&2
  exit 1
fi
if [ "$bad" -ne 0 ]; then
  echo "check-layers: upward includes found (see above)" >&2
  exit 1
fi
echo "check-layers: $checked files, no include points up a layer"
