#!/usr/bin/env bash
# The Slurm scripts of scripts/slurm, run as Slurm would run them (a stand-in
# sbatch runs an array's tasks one after the other with their SLURM_ARRAY_*
# variables, then the dependent merge): submit-shards.sh's shards and merge
# give the plain run's counts; a missing shard stops the merge; mpi.sbatch
# (with mpirun as its launcher, when the build has the MPI engine) gives
# them too and continues rather than repeats when resubmitted.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1
slurm=$OFDMSIM_SOURCE_DIR/scripts/slurm

cat >"$tmp/run.cfg" <<'CFG'
simulation = { backend = "cpu"; threads = 1; snr_db = [0.0, 6.0, 12.0]; max_bits = 4.0e5; target_errors = 2000; };
ofdm = { subcarriers = 64; symbols = 14; };
sweep = ( { key = "equalizer"; values = ["zf", "mmse"]; } );
CFG
"$OFDMSIM" "$tmp/run.cfg" -q -o "$tmp/plain.csv" >/dev/null 2>&1
check "the plain run" test -s "$tmp/plain.csv"

# A stand-in sbatch: --array=1-N runs the tasks in turn; prints a job id.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/sbatch" <<'SH'
#!/usr/bin/env bash
array="" script=""
for a in "$@"; do
  case $a in
    --array=*) array=${a#--array=} ;;
    --*) ;;
    *) script=$a ;;
  esac
done
echo "sbatch $*" >>"$SBATCH_LOG"
if [ -n "$array" ]; then
  n=${array#1-}
  for i in $(seq 1 "$n"); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$n bash "$script" >>"$SBATCH_LOG" 2>&1 || exit 1
  done
else
  bash "$script" >>"$SBATCH_LOG" 2>&1 || exit 1
fi
echo $((RANDOM + 1000))
SH
chmod +x "$tmp/bin/sbatch"
export SBATCH_LOG=$tmp/sbatch.log OFDMSIM=$OFDMSIM
export OFDMSIM_SHARDS=$tmp/shards OFDMSIM_OUT=$tmp/merged.csv
PATH="$tmp/bin:$PATH" bash "$slurm/submit-shards.sh" "$tmp/run.cfg" 4 >"$tmp/submit.out" 2>&1
check "submit-shards.sh submits the array and the merge ($(tail -2 "$tmp/submit.out"))" \
  grep -q 'merge: job [0-9]*, after them' "$tmp/submit.out"
check "the merge waits for the array" grep -q -- '--dependency=afterok:[0-9]' "$SBATCH_LOG"
check "four shards written" test "$(ls "$tmp/shards"/shard-*.csv | wc -l)" -eq 4
check "shards merged = the plain run, every count" cmp -s <(csv_counts "$tmp/plain.csv") <(csv_counts "$tmp/merged.csv")

# A shard missing: the merge refuses, exit 2, nothing written.
rm "$tmp/shards/shard-3.csv"
OFDMSIM_CONFIG=$tmp/run.cfg OFDMSIM_SHARD_COUNT=4 OFDMSIM_OUT=$tmp/partial.csv bash "$slurm/merge.sbatch" \
  >/dev/null 2>"$tmp/missing.err"
check "a missing shard: exit 2" test $? -eq 2
check "a missing shard: named" grep -q 'shard 3 of 4 .* is missing' "$tmp/missing.err"
check "a missing shard: no merged file" test ! -e "$tmp/partial.csv"
# The task run again (a requeue) completes the set.
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4 OFDMSIM_CONFIG=$tmp/run.cfg bash "$slurm/shards.sbatch" >/dev/null 2>&1
OFDMSIM_CONFIG=$tmp/run.cfg OFDMSIM_SHARD_COUNT=4 OFDMSIM_OUT=$tmp/again.csv bash "$slurm/merge.sbatch" >/dev/null 2>&1
check "the requeued shard completes the merge" cmp -s <(csv_counts "$tmp/plain.csv") <(csv_counts "$tmp/again.csv")

if [ "${OFDMSIM_HAVE_MPI:-0}" = 1 ] && command -v mpirun >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/../support/mpi_env.sh"
  export OFDMSIM_LAUNCH="mpirun --oversubscribe -np 2"
  OFDMSIM_CONFIG=$tmp/run.cfg OFDMSIM_OUT=$tmp/mpi.csv bash "$slurm/mpi.sbatch" >"$tmp/mpi.out" 2>&1
  check "mpi.sbatch runs (exit $?)" test -s "$tmp/mpi.csv"
  check "mpi.sbatch on 2 ranks = the plain run" cmp -s <(csv_counts "$tmp/plain.csv") <(csv_counts "$tmp/mpi.csv")
  OFDMSIM_CONFIG=$tmp/run.cfg OFDMSIM_OUT=$tmp/mpi.csv bash "$slurm/mpi.sbatch" >"$tmp/mpi2.out" 2>&1
  check "mpi.sbatch resubmitted continues: every point from the journal" \
    grep -q '6 of 6 points in the journal, 6 of them finished' "$tmp/mpi2.out"
else
  echo "mpi.sbatch: not run (no MPI engine in this build)"
fi
finish
