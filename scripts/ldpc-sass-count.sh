#!/usr/bin/env bash
# SASS instructions of the GPU nms16 decoder's row step (cuda/ldpc_gpu.cu),
# counted without a GPU: the single-block kernel's layer_row (global
# messages, as the default launch) and the pair kernel's pair_row (two code
# blocks as int16x2), each inlined into a throwaway kernel per row degree 3
# .. 19, compiled for sm_90 with the decoder's flags (-O3 -fmad=false) and
# counted with cuobjdump -sass (NOPs left out). Prints the count per degree
# and, over the rows of BG1 R 1/2 (rows 0..23) and BG2 R 1/3 (rows 0..21),
# the instructions per edge and lane, and per edge and code block (the
# pair's halved). Each count includes the throwaway kernel's own prologue
# (about 15 instructions); the loop around the rows (the messages' loads,
# the barriers) and the syndrome are not counted: this compares the per-edge
# work, which the decoder is bound by.
#
#   scripts/ldpc-sass-count.sh     (nvcc and cuobjdump on PATH or in
#                                   $CUDA_HOME/bin; a C compiler)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
export PATH=$PATH:$cuda/bin
for t in nvcc cuobjdump cc; do
  command -v $t > /dev/null || { echo "ldpc-sass-count: no $t" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
  echo '#include "cuda/ldpc_gpu.cu"'
  cat <<'EOF'
template <int N>
__global__ void cnt_pair(const kargs a, uint32_t *gm) {
  extern __shared__ float4 sm[];
  uint32_t *app = reinterpret_cast<uint32_t *>(sm);
  const uint2 *ent = reinterpret_cast<const uint2 *>(app + 8192);
  const int lane = threadIdx.x;
  const uint2 o = reinterpret_cast<uint2 *>(gm)[lane];
  pair_row<N>(app, ent, lane, a.z, a.zp, o, gm[1000 + lane], gm[1400 + lane], gm[1800 + lane], a.scale.k,
              reinterpret_cast<uint2 *>(gm + 4000) + lane, gm + 8000 + lane);
}
template <int N>
__global__ void cnt_single(const kargs a, uint32_t *gm) {
  extern __shared__ float4 sm[];
  int16_t *app = reinterpret_cast<int16_t *>(sm);
  const uint2 *ent = reinterpret_cast<const uint2 *>(reinterpret_cast<uint32_t *>(sm) + 8192);
  const int lane = threadIdx.x;
  const uint2 o = reinterpret_cast<uint2 *>(gm)[lane];
  layer_row<kNms16, true, N, false>(app, ent, N, lane, a.z, (int32_t)o.x, (int32_t)o.y, gm[1000 + lane], a.scale,
                                    reinterpret_cast<uint2 *>(gm + 4000) + lane, gm + 8000 + lane);
}
EOF
  for n in $(seq 3 19); do
    echo "template __global__ void cnt_pair<$n>(const kargs, uint32_t *);"
    echo "template __global__ void cnt_single<$n>(const kargs, uint32_t *);"
  done
} > "$tmp/count.cu"
nvcc -I"$root" -O3 -DNDEBUG -arch=sm_90 -fmad=false -cubin "$tmp/count.cu" -o "$tmp/count.cubin"
cuobjdump -sass "$tmp/count.cubin" |
  awk '/Function : /{ f = $3 } /\/\*[0-9a-f]+\*\// && f ~ /cnt_/ && $0 !~ /NOP/ { n[f]++ }
       END { for (k in n) { match(k, /cnt_[a-z]+ILi[0-9]+/); s = substr(k, RSTART + 4, RLENGTH - 4);
                            sub(/ILi/, " ", s); print s, n[k] } }' | sort -k1,1 -k2,2n > "$tmp/counts"

# the row degrees of both base graphs, from the library's tables
cat > "$tmp/deg.c" <<'EOF'
#include <stdio.h>
#include "coding/ldpc_graph.h"
int main(void) {
  for (int bg = 1; bg <= 2; bg++) {
    const ldpc_base_graph *g = ldpc_base_graph_get(bg);
    for (int r = 0; r < g->rows; r++) printf("%d %d %d\n", bg, r, g->row_start[r + 1] - g->row_start[r]);
  }
  return 0;
}
EOF
cc -std=c11 -O1 -I"$root" "$tmp/deg.c" "$root/coding/ldpc_graph.c" "$root/coding/ldpc_tables.c" -o "$tmp/deg"
"$tmp/deg" > "$tmp/degrees"

echo "degree  single  pair (instructions of the row step, one lane)"
join <(awk '$1 == "single" { print $2, $3 }' "$tmp/counts" | sort -k1,1) \
     <(awk '$1 == "pair" { print $2, $3 }' "$tmp/counts" | sort -k1,1) | sort -n |
  awk '{ printf "%6d  %6d  %4d\n", $1, $2, $3 }'
awk 'NR == FNR { c[$1, $2] = $3; next }
     ($1 == 1 && $2 < 24) || ($1 == 2 && $2 < 22) { for (k in kinds) t[$1, kinds[k]] += c[kinds[k], $3]; e[$1] += $3 }
     BEGIN { kinds[1] = "single"; kinds[2] = "pair" }
     END {
       for (bg = 1; bg <= 2; bg++) {
         name = bg == 1 ? "BG1 R 1/2 (rows 0..23)" : "BG2 R 1/3 (rows 0..21)"
         printf "%s, %d edges: single %.1f an edge; pair %.1f an edge of two blocks, %.1f an edge of one\n",
                name, e[bg], t[bg, "single"] / e[bg], t[bg, "pair"] / e[bg], t[bg, "pair"] / e[bg] / 2
       }
     }' "$tmp/counts" "$tmp/degrees"
