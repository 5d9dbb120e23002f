#!/usr/bin/env bash
# Issue 25's requirement on the shipped estimation configs: with the
# estimate's own error in the LLRs' noise variance (channel/estimate.h), the
# GMI of every receiver curve is non-decreasing in SNR within its
# intervals, for consecutive SNRs the higher one's upper bound at or above
# the lower one's lower bound. Checked on both GMIs a row gives: `gmi`,
# the supremum over the LLR scaling with its interval gmi_ci95_*, and
# gmi_s1, the LLRs as they come (where an over-confident estimate once
# printed a GMI falling with SNR, down to -8.3 bit/RE), with the 95% t
# interval of its frames' losses (frame_gmi_loss_sq).
# Configs: estimation.cfg (the comb, LS nearest/linear/LMMSE/lmmse2d),
# dmrs.cfg (NR DMRS at 3 and 120 km/h) and cdl.cfg (CDL-C with DMRS at 30
# and 120 km/h, its MMSE curves with max-log LLRs), each point on a fixed
# number of frames.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1

frames=$(scaled 60 12)

# run NAME BITS_PER_FRAME_BOUND ARGS...: the config on `frames` frames a
# point (target_errors 1 once min_frames are done; max_bits a bound above
# what those frames hold, so that a point without an error stops too).
run() {
  local name=$1 bound=$2
  shift 2
  "$OFDMSIM" "configs/$name.cfg" -q -o "$tmp/$name.csv" --set simulation.backend=cpu \
    --set simulation.target_errors=1 --set simulation.min_frames="$frames" \
    --set simulation.max_bits="$((frames * bound))" "$@" >"$tmp/$name.out" 2>&1
}

# monotone CSV: every curve (rows of one label, in SNR order) non-decreasing
# within its intervals, gmi and gmi_s1; prints each curve.
monotone() {
  csv_cols "$1" snr_db gmi gmi_ci95_low gmi_ci95_high gmi_s1 frame_gmi_loss_sq frames modulation mimo.tx label |
    awk -F, '
    BEGIN { bps["bpsk"] = 1; bps["qpsk"] = 2; bps["16qam"] = 4; bps["64qam"] = 6; bps["256qam"] = 8 }
    {
      lab = $10; for (i = 11; i <= NF; i++) lab = lab "," $i
      full = $9 * bps[$8]; g1 = $5; nf = $7
      # the s = 1 interval: the t interval of the frames losses per data RE
      # (frame_gmi_loss_sq sums their squares; their mean is full - gmi_s1)
      m = full - g1
      v = ($6 - nf * m * m) / (nf - 1); if (v < 0) v = 0
      t = 1.96 + 2.37 / (nf - 1) + 2.8 / ((nf - 1) * (nf - 1))
      lo1 = g1 - t * sqrt(v / nf); hi1 = g1 + t * sqrt(v / nf)
      printf "  %s %5.1f dB: gmi %.4f [%.4f, %.4f], at s = 1 %.4f [%.4f, %.4f]\n", lab, $1, $2, $3, $4, g1, lo1, hi1
      if (lab in plo) {
        if ($4 + 0 < plo[lab]) { printf "FAILED: %s: gmi falls at %s dB\n", lab, $1; bad = 1 }
        if (hi1 < plo1[lab]) { printf "FAILED: %s: gmi at s = 1 falls at %s dB\n", lab, $1; bad = 1 }
      }
      plo[lab] = $3; plo1[lab] = lo1; rows++
    }
    END { if (rows < 6) { print "FAILED: only " rows " rows"; bad = 1 } exit bad }'
}

for cfg in "estimation 40000" "dmrs 40000"; do
  set -- $cfg
  run "$1" "$2"
  check "configs/$1.cfg runs" test $? -eq 0 -a -s "$tmp/$1.csv"
  echo "configs/$1.cfg, $frames frames a point:"
  check "configs/$1.cfg: GMI non-decreasing in SNR on every curve" monotone "$tmp/$1.csv"
done
run cdl 200000 --set receiver.llr=maxlog --set 'sweep=({key="channel.speed_kmh"; values=[30.0, 120.0];})'
check "configs/cdl.cfg runs" test $? -eq 0 -a -s "$tmp/cdl.csv"
echo "configs/cdl.cfg (MMSE, max-log LLRs), $frames frames a point:"
check "configs/cdl.cfg: GMI non-decreasing in SNR on every curve" monotone "$tmp/cdl.csv"
finish
