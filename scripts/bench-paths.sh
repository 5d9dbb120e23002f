#!/usr/bin/env bash
# Issue 26's table: every realistic path of one link beside the ideal rate of
# the same link, on one backend, in one run. Link: 4x4 16-QAM, TDL-A at
# 100 ns, 1024 x 14 REs a frame at 30 kHz, Eb/N0 20 dB, MMSE with perfect
# CSI and hard decisions in the frequency domain (the "ideal" row, 100%).
# Each other row changes one thing: LLRs with the GMI (its supremum over the
# scalings, at s = 1 only, or none: receiver.gmi), pilots (comb 4 on
# symbols 2 and 9, or NR DMRS type 1 with one additional position on 85
# resource blocks, 1020 subcarriers) with LS
# estimation, Doppler (389 Hz: 120 km/h at 3.5 GHz), the time domain,
# MMSE-SIC, K-best (K = 16), a CDL-C channel. Rows in the time domain are
# also given as a share of the frequency domain with the same Doppler.
#   scripts/bench-paths.sh cuda
#   scripts/bench-paths.sh cpu [THREADS]     (THREADS 1: the per-core rate)
# OFDMSIM (default build/ofdmsim) is the binary; SECONDS_PER_CASE (default 2).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_setup "${1:?usage: bench-paths.sh cpu|cuda [THREADS]}" "${2:-0}"

base=(--set mimo.tx=4 --set mimo.rx=4 --set modulation=16qam --set equalizer=mmse --set simulation.snr_db=20.0
      --set channel.delay_spread_ns=100.0
      --set ofdm.subcarriers=1024 --set ofdm.symbols=14 --set ofdm.subcarrier_spacing=30000.0)
comb="--set pilots.spacing=4 --set pilots.first_symbol=2 --set pilots.symbol_spacing=7"
dmrs="--set pilots.type=dmrs --set dmrs.additional_positions=1 --set ofdm.subcarriers=1020"
ls="--set receiver.channel_estimation=ls"
dop="--set channel.doppler_hz=389.0"
time="--set ofdm.domain=time"
cases=(
  "ideal (hard, perfect CSI)|"
  "max-log LLRs, GMI|--set receiver.llr=maxlog"
  "max-log LLRs, GMI at s=1|--set receiver.llr=maxlog --set receiver.gmi=s1"
  "max-log LLRs, no GMI|--set receiver.llr=maxlog --set receiver.gmi=none"
  "exact LLRs, GMI|--set receiver.llr=exact"
  "exact LLRs, no GMI|--set receiver.llr=exact --set receiver.gmi=none"
  "exact LLRs, GMI at s = 1|--set receiver.llr=exact --set receiver.gmi=s1"
  "comb pilots, perfect CSI|$comb"
  "comb, LS nearest|$comb $ls --set receiver.interpolation=nearest"
  "comb, LS linear|$comb $ls --set receiver.interpolation=linear"
  "comb, LS lmmse|$comb $ls --set receiver.interpolation=lmmse"
  "DMRS, LS linear|$dmrs $ls --set receiver.interpolation=linear"
  "comb, LS lmmse, max-log|$comb $ls --set receiver.interpolation=lmmse --set receiver.llr=maxlog"
  "Doppler (frequency)|$dop"
  "time domain|$time"
  "time domain, Doppler|$time $dop"
  "MMSE-SIC|--set equalizer=mmse-sic"
  "K-best K=16, max-log|--set equalizer=kbest --set receiver.llr=maxlog"
  "K-best K=16, max-log, no GMI|--set equalizer=kbest --set receiver.llr=maxlog --set receiver.gmi=none"
  "CDL-C (4x4 arrays)|--set channel.model=cdl-c"
)
# One unrecorded run of the ideal link first: the first point of a process
# pays the device's clocks ramping up and the first launches, which would
# make the 100% row slow and every share too high.
bench_point warmup "${base[@]}" --set channel.model=tdl --set channel.profile=tdl-a >/dev/null || true
printf '%-28s %10s %8s %11s\n' case Gbit/s share ber
ideal="" doppler=""
for c in "${cases[@]}"; do
  name=${c%%|*}
  extra=${c#*|}
  case $extra in *channel.model=*) ;; *) extra="--set channel.model=tdl --set channel.profile=tdl-a $extra" ;; esac
  read -r -a extra <<< "$extra"
  bench_point case "${base[@]}" "${extra[@]}" || { printf '%-28s %10s\n' "$name" failed; continue; }
  r=$(rate_gbit "$tmp/case.csv")
  [ -z "$ideal" ] && ideal=$r
  [ "$name" = "Doppler (frequency)" ] && doppler=$r
  share=$(awk -v r="$r" -v i="$ideal" 'BEGIN { printf "%.0f%%", 100 * r / i }')
  [ "$name" = "time domain, Doppler" ] && [ -n "$doppler" ] &&
    share="$share ($(awk -v r="$r" -v d="$doppler" 'BEGIN { printf "%.0f%%", 100 * r / d }') of Doppler freq.)"
  printf '%-28s %10.3f %8s %11.4e\n' "$name" "$r" "$share" "$(col "$tmp/case.csv" ber)"
done
