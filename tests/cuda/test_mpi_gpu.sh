#!/usr/bin/env bash
# The MPI engine on one GPU: two ranks share it (with the warning that says
# so) and give the counts of one plain CUDA run, point for point; each rank
# reports its throughput. On a machine with two GPUs or more, two ranks also
# run on two GPUs, one each (no warning), with the same counts. Labelled gpu;
# skipped (77) without the MPI engine, mpirun or a usable GPU.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/../support/mpi_env.sh"
mpi_test_or_skip test_mpi_gpu
if ! "$OFDMSIM" configs/default.cfg -q --set simulation.backend=cuda --set simulation.max_bits=1 >/dev/null 2>&1; then
  echo "test_mpi_gpu: skipped: no usable GPU"
  exit 77
fi

# A sweep with easy points and hard ones, several chunks each on the GPU too.
args=(-q --set simulation.backend=cuda --set 'simulation.snr_db=[0.0, 10.0, 30.0]' --set simulation.target_errors=200000
      --set simulation.max_bits=2e9)
t0=$(date +%s%N)
"$OFDMSIM" configs/default.cfg "${args[@]}" -o "$tmp/plain.csv" >"$tmp/plain.out" 2>"$tmp/plain.err"
check "the plain CUDA run (exit $?)" test -s "$tmp/plain.csv"
# One GPU for both ranks, whatever the machine has: the first one visible.
gpus=${CUDA_VISIBLE_DEVICES:-$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr '\n' ',')}
gpus=${gpus%,}
first=${gpus%%,*}
t1=$(date +%s%N)
CUDA_VISIBLE_DEVICES=${first:-0} mpirun --oversubscribe -x CUDA_VISIBLE_DEVICES -np 2 "$OFDMSIM" configs/default.cfg \
  "${args[@]}" -o "$tmp/two.csv" >"$tmp/two.out" 2>"$tmp/two.err"
rc=$?
t2=$(date +%s%N)
check "2 ranks on the GPU exit 0 (got $rc: $(tail -3 "$tmp/two.err"))" test $rc -eq 0
check "2 ranks sharing the GPU = the plain run, every count" cmp -s <(csv_counts "$tmp/plain.csv") <(csv_counts "$tmp/two.csv")
check "the ranks say they share the GPU" grep -q '2 ranks on this node share its 1 GPU' "$tmp/two.err"
check "both ranks computed on the GPU" test "$(grep -c '^# rank [01] on .*(cuda)' "$tmp/two.out")" -eq 2
bits=$(csv_cols "$tmp/plain.csv" bits | awk "{s += \$1} END {printf \"%.0f\", s}")
echo "plain: $(( (t1 - t0) / 1000000 )) ms, 2 ranks: $(( (t2 - t1) / 1000000 )) ms, $bits bits kept"
grep '^# rank' "$tmp/two.out"
if [ "$gpus" != "$first" ] && [ -n "$first" ]; then
  mpirun --oversubscribe -np 2 "$OFDMSIM" configs/default.cfg "${args[@]}" -o "$tmp/two_gpus.csv" \
    >"$tmp/two_gpus.out" 2>"$tmp/two_gpus.err"
  rc=$?
  check "2 ranks on 2 GPUs exit 0 (got $rc: $(tail -3 "$tmp/two_gpus.err"))" test $rc -eq 0
  check "2 ranks on 2 GPUs = the plain run, every count" cmp -s <(csv_counts "$tmp/plain.csv") <(csv_counts "$tmp/two_gpus.csv")
  check "2 ranks on 2 GPUs share none" bash -c "! grep -q 'share its' '$tmp/two_gpus.err'"
  grep '^# rank' "$tmp/two_gpus.out"
fi
finish
