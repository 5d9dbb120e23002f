#!/usr/bin/env bash
# Fails on an #include that points up a layer (or sideways where no layer
# allows it), and on backend knowledge above the backend registry. The layers,
# bottom first, and what each may include:
#
#   core       core
#   channel    channel core
#   equalizer  equalizer core
#   coding     coding core
#   cpu        cpu channel equalizer coding core
#   cuda       cuda channel equalizer coding core
#   config     config channel equalizer coding core
#   results    results config channel equalizer coding core
#   sim        sim results config cpu cuda channel equalizer coding core
#   mpi        mpi sim results config channel equalizer coding core (a build with MPI)
#   api        api sim results config channel equalizer coding core (libofdmsim, api/ofdmsim.h)
#   app        app api mpi sim results config channel equalizer coding core
#   app/bench  what app may, and cuda/ (the bench times the backends' raw kernels)
#   tests/L    what L may include; tests/cuda and tests/support (the GPU
#              tests compare both backends; the point simulator uses the
#              backend registry) what sim may include
#
# Above the registry (sim/backends.c) nothing names a backend: mpi/, api/ and
# app/ (but app/bench) include neither cpu/ nor cuda/ and test no
# OFDMSIM_HAVE_CUDA.
#
# The build enforces the include rule too (each library sees only the folders
# of the libraries it links: CMakeLists.txt); this script checks the sources
# alone, so CI catches an upward include even in code that is not compiled
# here (e.g. .cu files without a CUDA compiler). Exit 0 when clean, 1 otherwise.
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
    config) echo "config channel equalizer coding core" ;;
    results) echo "results config channel equalizer coding core" ;;
    sim) echo "sim results config cpu cuda channel equalizer coding core" ;;
    mpi) echo "mpi sim results config channel equalizer coding core" ;;
    api) echo "api sim results config channel equalizer coding core" ;;
    app) echo "app api mpi sim results config channel equalizer coding core" ;;
    bench) echo "app api mpi sim results config cuda channel equalizer coding core" ;;
    *) return 1 ;;
  esac
}

layers="core channel equalizer coding cpu cuda config results sim mpi api app"
bad=0
checked=0
while IFS= read -r file; do
  [ -f "$file" ] || continue
  top=${file%%/*}
  layer=$top
  case "$file" in app/bench/*) layer=bench ;; esac
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

# Backend knowledge stays in the registry: the build flag of the CUDA backend
# is tested nowhere above it (the bench aside, as above).
while IFS=: read -r file line _; do
  echo "$file:$line: tests OFDMSIM_HAVE_CUDA above the backend registry (sim/backends.c)" >&2
  bad=1
done < <(git ls-files -co --exclude-standard -- 'app/*.c' 'app/*.h' 'mpi/*.c' 'mpi/*.h' 'api/*.c' 'api/*.h' |
         grep -v '^app/bench/' | xargs -r grep -nE 'OFDMSIM_HAVE_CUDA' || true)

if [ "$checked" -eq 0 ]; then
  echo "check-layers: no source files found" >&2
  exit 1
fi
if [ "$bad" -ne 0 ]; then
  echo "check-layers: upward includes found (see above)" >&2
  exit 1
fi
echo "check-layers: $checked files, no include points up a layer"
