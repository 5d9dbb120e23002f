# shellcheck shell=bash
# Issue 26's paths as one list, for scripts/bench-paths.sh (their rates)
# and scripts/gpu-profile.sh (where the GPU's time goes on each): the base
# link's options in base, each case as "NAME|EXTRA OPTIONS" in cases (a case
# without channel.model= runs TDL-A: paths_case_args adds it).
# shellcheck disable=SC2034
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
  "comb, LS lmmse2d|$comb $ls --set receiver.interpolation=lmmse2d"
  "DMRS, LS linear|$dmrs $ls --set receiver.interpolation=linear"
  "DMRS, LS lmmse2d|$dmrs $ls --set receiver.interpolation=lmmse2d"
  "comb, LS lmmse, max-log|$comb $ls --set receiver.interpolation=lmmse --set receiver.llr=maxlog"
  "Doppler (frequency)|$dop"
  "time domain|$time"
  "time domain, Doppler|$time $dop"
  "MMSE-SIC|--set equalizer=mmse-sic"
  "K-best K=16, max-log|--set equalizer=kbest --set receiver.llr=maxlog"
  "K-best K=16, max-log, no GMI|--set equalizer=kbest --set receiver.llr=maxlog --set receiver.gmi=none"
  "CDL-C (4x4 arrays)|--set channel.model=cdl-c"
)

# The options of case entry $1 after the base link's, into the array paths_args.
paths_case_args() {
  local extra=${1#*|}
  case $extra in *channel.model=*) ;; *) extra="--set channel.model=tdl --set channel.profile=tdl-a $extra" ;; esac
  read -r -a paths_args <<< "$extra"
}
