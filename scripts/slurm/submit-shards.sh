#!/usr/bin/env bash
# Submits a sweep as N independent shards (an array job) and their merge,
# which starts once every shard succeeded:
#   scripts/slurm/submit-shards.sh run.cfg 8 [extra ofdmsim arguments...]
# Without OFDMSIM it first builds ofdmsim portably (build-portable.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
config=${1:?usage: submit-shards.sh CONFIG N [ofdmsim arguments...]}
n=${2:?usage: submit-shards.sh CONFIG N [ofdmsim arguments...]}
shift 2
# the binary every node runs: a portable build unless OFDMSIM names one
if [ -z "${OFDMSIM:-}" ]; then
  OFDMSIM=$("$here/build-portable.sh" | tail -n 1)
  export OFDMSIM
fi
export OFDMSIM_CONFIG=$config OFDMSIM_SHARD_COUNT=$n OFDMSIM_ARGS="$*"
array=$(sbatch --parsable --array="1-$n" --export=ALL "$here/shards.sbatch")
merge=$(sbatch --parsable --dependency="afterok:${array%%;*}" --export=ALL "$here/merge.sbatch")
echo "shards: job $array (tasks 1-$n); merge: job $merge, after them"
