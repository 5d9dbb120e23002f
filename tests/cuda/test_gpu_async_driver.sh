#!/usr/bin/env bash
# The driver with GPU batches in flight (the next batch submitted before
# this one's counts are folded) against OFDMSIM_GPU_SYNC=1 (one batch at a
# time): the same counts on every point, the same stop rule at the same
# frame (target_errors reached inside a batch of thousands of frames, a
# precision rule, max_bits), the same chunks in the journal (frames, bits,
# errors, fallbacks, sums of squares and GMI losses, field by field), with
# soft outputs and on the coded link (in flight; with HARQ whole at their
# collect). Labelled gpu; skipped (77) without a usable GPU.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1
if ! "$OFDMSIM" configs/default.cfg -q --set simulation.backend=cuda --set simulation.max_bits=1 >/dev/null 2>&1; then
  echo "test_gpu_async_driver: skipped: no usable GPU"
  exit 77
fi

# journal_counts FILE: every chunk line's counts, without its times and check
# (fields 13-18 are the stage times, 12 the seconds, the last the check).
journal_counts() {
  awk '$1 == "chunk" { $12 = $13 = $14 = $15 = $16 = $17 = $18 = ""; $NF = ""; print }' "$1"
}

# both NAME ARGS...: the run in flight and the one-at-a-time run, compared.
both() {
  local name=$1
  shift
  "$OFDMSIM" "$@" -q --set simulation.backend=cuda -o "$tmp/$name.async.csv" >/dev/null 2>"$tmp/$name.async.err"
  check "$name: the run with batches in flight (exit $?)" test -s "$tmp/$name.async.csv"
  OFDMSIM_GPU_SYNC=1 "$OFDMSIM" "$@" -q --set simulation.backend=cuda -o "$tmp/$name.sync.csv" >/dev/null \
    2>"$tmp/$name.sync.err"
  check "$name: the run one batch at a time (exit $?)" test -s "$tmp/$name.sync.csv"
  check "$name: in flight = one at a time, every count" \
    cmp -s <(csv_counts "$tmp/$name.async.csv") <(csv_counts "$tmp/$name.sync.csv")
  check "$name: the same chunks in the journal" \
    cmp -s <(journal_counts "$tmp/$name.async.journal") <(journal_counts "$tmp/$name.sync.journal")
}

# Easy points stop within a few batches, hard ones after several at the
# backend's largest (2340 frames of 2x2 QPSK on 1024 x 14): target_errors
# fires inside a batch, and at 30 dB max_bits ends the point (BER there about
# 1e-4: 5e8 bits make some 60000 errors, short of the target).
both plain configs/default.cfg --set 'simulation.snr_db=[0.0, 6.0, 12.0, 30.0]' \
  --set simulation.target_errors=300000 --set simulation.max_bits=5e8
check "plain: stopped by target_errors and max_bits" \
  test "$(csv_cols "$tmp/plain.async.csv" stop | sort -u | tr '\n' ' ')" = "max_bits target_errors "
# A stop inside a frame range no batch boundary is near: the errors of the
# points where it fired are not a batch multiple of anything.
both odd configs/default.cfg --set 'simulation.snr_db=[2.0, 9.0]' --set simulation.target_errors=123457 \
  --set simulation.max_bits=5e9
# The precision rule (checked after every frame) and soft outputs with the
# GMI grid (their losses come back beside the counts).
both soft configs/default.cfg --set 'simulation.snr_db=[0.0, 8.0]' --set simulation.target_errors=100000000 \
  --set simulation.target_precision=0.01 --set simulation.max_bits=4e9 --set receiver.llr=\"maxlog\"
check "soft: stopped by target_precision" grep -q target_precision "$tmp/soft.async.csv"
# The coded link: its batches in flight (judged on the device), and with
# HARQ deferred (retransmitted from the host), the driver's queue as for any
# backend.
both coded configs/coded.cfg --set simulation.max_blocks=1000
both coded_harq configs/coded_harq.cfg

finish
