#!/usr/bin/env bash
# The MPI engine: `mpirun -np 1, 2, 3` give the plain run's counts, byte for
# byte, on a sweep with easy and hard points (many chunks each), under the
# target_errors, max_bits, stop_below_ber and target_precision rules; units
# that finish ahead of their prefix are saved in the journal at once; a
# coded sweep (target_block_errors, max_blocks) gives the plain run's coded
# counts on 1, 2 and 3 ranks too; a SIGINT to mpirun saves and says how to
# continue; a rank killed with -9 ends the run (mpirun names the rank);
# --resume with another rank count reaches the same totals; drops (units
# and chunks of whole drops, sums over drops) give the plain run's counts
# and intervals on 1, 2 and 3 ranks. Config and
# output errors exit 2 once, from rank 0.
# Skipped (77) in a build without the MPI engine or without mpirun.
set -u
: "${OFDMSIM:?set by ctest}" "${OFDMSIM_SOURCE_DIR:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1
source "$(dirname "${BASH_SOURCE[0]}")/../support/mpi_env.sh"
mpi_test_or_skip test_mpi

# Two ranks or three on CI's two cores: oversubscribed, one thread each.
mpi() { mpirun --oversubscribe -np "$@"; }
# The same in the background, $! being mpirun's pid.
mpi_bg() { mpirun --oversubscribe -np "$@" & }
common=(-q --set simulation.backend=cpu --set simulation.threads=1 --set ofdm.subcarriers=64 --set ofdm.symbols=14)
# A: easy points (stop on errors after a few chunks) and hard ones (max_bits
# after many), with stop_below_ber ending a curve; B: the precision rule.
# Under the sanitizers (OFDMSIM_TEST_SCALE) A's bits and C's blocks are
# scaled down; every stop rule still fires (checked below).
a=("${common[@]}" --set 'simulation.snr_db=[0.0, 8.0, 16.0, 40.0]' --set simulation.target_errors=4000
   --set simulation.max_bits="$(scaled 1.2e7)" --set simulation.stop_below_ber=5e-3)
b=("${common[@]}" --set 'simulation.snr_db=[4.0, 12.0]' --set simulation.target_errors=100000000
   --set simulation.max_bits=1e7 --set simulation.target_precision=0.04)

# C: the coded link (its per-frame TBs cross between ranks): points stopped
# by target_block_errors inside a chunk, others by max_blocks; without HARQ
# and with up to 3 transmissions (HARQ's outcome crosses with each frame).
cat >"$tmp/coded.cfg" <<CFG
simulation = { snr_db = [0.0, 1.0, 2.0, 3.0]; snr_kind = "esno"; target_block_errors = $(scaled 40 10);
               max_blocks = $(scaled 300 75);
               backend = "cpu"; threads = 1; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 72; symbols = 14; };
code = { type = "ldpc"; rate = 0.5; };
sweep = ( { key = "code.harq_transmissions"; values = [1, 3]; } );
CFG
coded_counts() {
  csv_counts "$1"
  csv_cols "$1" blocks block_errors bler bler_ci95_low bler_ci95_high code_blocks cb_errors cbler info_bits \
    info_bit_errors coded_ber iterations mean_iterations throughput throughput_ci95_low throughput_ci95_high \
    frame_cb_errors_sq frame_info_errors_sq harq_errors residual_bler residual_bler_ci95_low residual_bler_ci95_high transmissions mean_transmissions \
    mean_transmissions_ci95_low harq_throughput harq_throughput_ci95_low harq_throughput_ci95_high \
    frame_transmissions_sq delivered_transmissions
}
# D: drops (channel.drop_frames = 5, slowly fading TDL, HARQ): units and
# chunks hold whole drops, the intervals' sums are over drops.
cat >"$tmp/drops.cfg" <<CFG
simulation = { snr_db = [0.0, 2.0]; snr_kind = "esno"; target_block_errors = $(scaled 60 15);
               max_blocks = $(scaled 300 75); backend = "cpu"; threads = 1; };
receiver = { llr = "maxlog"; };
ofdm = { subcarriers = 72; symbols = 14; };
channel = { model = "tdl"; profile = "tdl-c"; delay_spread_ns = 100.0; doppler_hz = 20.0; drop_frames = 5; };
code = { type = "ldpc"; rate = 0.5; harq_transmissions = 3; };
CFG
drop_counts() {
  coded_counts "$1"
  drop_interval_cols "$1"
}
"$OFDMSIM" "$tmp/drops.cfg" -q -o "$tmp/d.csv" >/dev/null 2>&1
check "plain drops run D (exit $?)" test -s "$tmp/d.csv"
check "D: its units are drops" test -z "$(csv_cols "$tmp/d.csv" frames units | awk -F, '$2 != int(($1 + 4) / 5)')"

"$OFDMSIM" "$tmp/coded.cfg" -q -o "$tmp/c.csv" >/dev/null 2>&1
check "plain coded run C (exit $?)" test -s "$tmp/c.csv"
check "C: some TB took more than one transmission (HARQ's outcome crosses)" \
  test -n "$(csv_cols "$tmp/c.csv" transmissions blocks | awk -F, '$1 > $2')"
check "C has points stopped by block errors and by max_blocks" \
  test "$(csv_cols "$tmp/c.csv" stop | sort -u | tr '\n' ' ')" = "max_blocks target_block_errors "

"$OFDMSIM" configs/default.cfg "${a[@]}" -o "$tmp/a.csv" >/dev/null 2>"$tmp/a.err"
check "plain run A (exit $?)" test -s "$tmp/a.csv"
check "A has points stopped by errors, by max_bits and skipped" \
  test "$(csv_cols "$tmp/a.csv" stop | sort -u | tr '\n' ' ')" = "max_bits skipped target_errors "
"$OFDMSIM" configs/default.cfg "${b[@]}" -o "$tmp/b.csv" >/dev/null 2>&1
check "B stops by the precision rule" test "$(csv_cols "$tmp/b.csv" stop | sort -u)" = "target_precision"

for n in 1 2 3; do
  mpi "$n" "$OFDMSIM" configs/default.cfg "${a[@]}" -o "$tmp/a$n.csv" >"$tmp/a$n.out" 2>"$tmp/a$n.err"
  rc=$?
  check "A on $n ranks exits 0 (got $rc: $(tail -3 "$tmp/a$n.err"))" test $rc -eq 0
  check "A on $n ranks = the plain run, every count" cmp -s <(csv_counts "$tmp/a.csv") <(csv_counts "$tmp/a$n.csv")
  mpi "$n" "$OFDMSIM" configs/default.cfg "${b[@]}" -o "$tmp/b$n.csv" >/dev/null 2>&1
  check "B (precision) on $n ranks = the plain run" cmp -s <(csv_counts "$tmp/b.csv") <(csv_counts "$tmp/b$n.csv")
  mpi "$n" "$OFDMSIM" "$tmp/coded.cfg" -q -o "$tmp/c$n.csv" >/dev/null 2>"$tmp/c$n.err"
  rc=$?
  check "C (coded) on $n ranks exits 0 (got $rc: $(tail -3 "$tmp/c$n.err"))" test $rc -eq 0
  check "C (coded) on $n ranks = the plain run, every coded count" \
    cmp -s <(coded_counts "$tmp/c.csv") <(coded_counts "$tmp/c$n.csv")
  mpi "$n" "$OFDMSIM" "$tmp/drops.cfg" -q -o "$tmp/d$n.csv" >/dev/null 2>"$tmp/d$n.err"
  rc=$?
  check "D (drops) on $n ranks exits 0 (got $rc: $(tail -3 "$tmp/d$n.err"))" test $rc -eq 0
  check "D (drops) on $n ranks = the plain run, every count and interval" \
    cmp -s <(drop_counts "$tmp/d.csv") <(drop_counts "$tmp/d$n.csv")
  check "A on $n ranks: the report has a line per rank" test "$(grep -c '^# rank [0-9]* on ' "$tmp/a$n.out")" -eq "$n"
  check "A on $n ranks: the sidecar has the ranks' throughput" grep -q "\"ranks\": $n," "$tmp/a$n.json"
done
check "the header says how many ranks" grep -q '^# 3 ranks' "$tmp/a3.out"
check "each rank line says where the rank's time went" test "$(grep -c \
  '^# rank [0-9]* on .*; wall [0-9.]* s: start-up [0-9.]*, busy [0-9.]*, set-up [0-9.]*, idle [0-9.]*, tail [0-9.]* s' \
  "$tmp/a3.out")" -eq 3
check "rank 0's line has the coordinator's time per message" \
  grep -q '^# rank 0 on .*; coordinator [0-9.]* s CPU for [0-9]* messages ([0-9]* us each)$' "$tmp/a3.out"
check "the sidecar has every rank's times, the wall covering the rest" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["rank_stats"]
keys = ("startup_s", "setup_s", "idle_s", "tail_s", "wall_s", "coordinator_s", "messages")
assert len(r) == 3 and all(k in x for x in r for k in keys), r
assert all(x["wall_s"] >= x["startup_s"] + x["seconds"] + x["idle_s"] + x["tail_s"] - 0.01 > 0 for x in r), r
assert r[0]["messages"] > 0 and r[0]["coordinator_s"] > 0, r[0]' "$tmp/a3.json"
check "three ranks saved units ahead of their prefix in the journal" grep -q ' ahead ' "$tmp/a3.journal"
check "only rank 0 writes: one CSV, one sidecar, one journal" \
  test "$(ls "$tmp" | grep -c '^a3\.\(csv\|json\|journal\)$')" -eq 3

# Waits until no process holds the journal $1, however long that takes:
# mpirun may return while a killed job's ranks are still going. A lock never
# released hangs here until ctest's time limit fails the test.
unlocked() {
  until flock -n "$1" true 2>/dev/null; do sleep 0.1; done
}
# The pids of mpirun $1's ranks, with their ranks: "PID RANK" lines.
ranks_of() {
  local c r
  for c in $(pgrep -P "$1"); do
    r=$(tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    [ -n "$r" ] && echo "$c $r"
  done
}
# The runs to interrupt: A with more errors, so that it ends on a long point
# (40 dB ZF) of about ten seconds of one core, five on two ranks, whatever
# this build's speed (a sanitizer build is some twenty times slower). mpirun
# passes a SIGINT on as a SIGTERM one second later, then a SIGKILL a second
# after that, so the signal must go out well before the end: a fixed point
# of 6e8 bits had shrunk to under two seconds with the vectorised CPU
# backend, and a loaded CI machine finished the run inside that second.
# The errors come from A's rate at that point (ten seconds at BER 2.5e-5:
# 250 errors per Mbit/s), the faster of its plain and one-rank runs, so that
# a moment of load does not shorten the point much.
long_point=3
rate=$(for f in "$tmp/a.csv" "$tmp/a1.csv"; do csv_cols "$f" mbit_per_s | sed -n "$((long_point + 1))p"; done |
  sort -g | tail -1)
errors=$(awk -v r="$rate" -v least="$(scaled 8000)" 'BEGIN { e = int(r * 250); print (e < least ? least : e > 80000 ? 80000 : e) }')
l=("${a[@]}" --set simulation.target_errors="$errors" --set simulation.max_bits=2.4e10)
"$OFDMSIM" configs/default.cfg "${l[@]}" -o "$tmp/l.csv" >/dev/null 2>&1
check "the long run's long point has over 90% of its bits ($errors errors)" \
  awk -v p="$((long_point + 1))" '{ s += $1 } NR == p { b = $1 } END { exit !(b > 0.9 * s) }' \
  <(csv_cols "$tmp/l.csv" bits)
# (The long run is not run whole on ranks as well: that ranks give the plain
# run's counts is A's check above, on this sweep under the same stop rules,
# and the long point's counts from ranks are compared with l.csv below: the
# SIGINT lands early in it and 3 ranks run the rest on --resume. A whole
# 2-rank run of it cost 10 core-seconds more, some 40 under the sanitizers.)
# Waits until the job's journal $1 has a chunk of the long point, then 0 to
# 0.4 s more (at random): the job is under way and far from its end.
# (No cap on the first wait: the job $pid's start may take any time.)
nap() {
  while kill -0 "$pid" 2>/dev/null && ! grep -q "^chunk $long_point " "$1" 2>/dev/null; do sleep 0.02; done
  sleep "0.$((RANDOM % 5))"
}

# SIGINT to mpirun: every rank stops, rank 0 saves, --resume on 3 ranks completes.
mpi_bg 2 "$OFDMSIM" configs/default.cfg "${l[@]}" -o "$tmp/int.csv" >/dev/null 2>"$tmp/int.err"
pid=$!
nap "$tmp/int.journal"
kill -INT "$pid"
wait "$pid"
rc=$?
check "SIGINT: mpirun exits non-zero (got $rc)" test $rc -ne 0
# (rank 0 prints "interrupted ... --resume continues", but mpirun, shutting
# the job down, may drop a rank's last output: the files tell.)
check "SIGINT: rank 0 saved the partial point as interrupted" \
  test "$(csv_cols "$tmp/int.csv" stop | tail -1)" = "interrupted"
check "SIGINT: the JSON parses" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/int.json"
unlocked "$tmp/int.journal"
mpi 3 "$OFDMSIM" configs/default.cfg "${l[@]}" -o "$tmp/int.csv" --resume >/dev/null 2>"$tmp/int2.err"
check "SIGINT, then --resume on 3 ranks exits 0 ($(tail -2 "$tmp/int2.err"))" test $? -eq 0
check "SIGINT, then --resume on 3 ranks = the plain run" cmp -s <(csv_counts "$tmp/l.csv") <(csv_counts "$tmp/int.csv")

# kill -9 of one rank, a worker then the coordinator: the job ends with an
# error naming the rank; --resume (plain, then 2 ranks) reaches the same totals.
for victim in 1 0; do
  out="$tmp/kill$victim"
  mpi_bg 3 "$OFDMSIM" configs/default.cfg "${l[@]}" -o "$out.csv" >/dev/null 2>"$out.err"
  pid=$!
  nap "$out.journal"
  killed=0
  while read -r c r; do
    [ "$r" = "$victim" ] && kill -9 "$c" && killed=1
  done < <(ranks_of "$pid")
  wait "$pid"
  rc=$?
  check "rank $victim killed mid-run (killed $killed, mpirun exit $rc)" test $killed = 1 -a $rc -ne 0
  check "rank $victim killed: mpirun names it" grep -q "process rank $victim .*signal 9" "$out.err"
  unlocked "$out.journal" # the journal is released
  "$OFDMSIM" configs/default.cfg "${l[@]}" -o "$out.csv" --resume >/dev/null 2>"$out.r1"
  check "rank $victim killed: a plain --resume = the plain run" \
    cmp -s <(csv_counts "$tmp/l.csv") <(csv_counts "$out.csv")
  mpi 2 "$OFDMSIM" configs/default.cfg "${l[@]}" -o "$out.csv" --resume >/dev/null 2>"$out.r2"
  check "rank $victim killed: --resume on 2 ranks after it changes nothing" \
    cmp -s <(csv_counts "$tmp/l.csv") <(csv_counts "$out.csv")
done

# A config error: exit 2, said once (by rank 0), nothing written.
mpi 2 "$OFDMSIM" configs/default.cfg -q --set mimo.tx=0 -o "$tmp/bad.csv" >/dev/null 2>"$tmp/bad.err"
rc=$?
check "config error under mpirun: exit 2 (got $rc)" test $rc -eq 2
check "config error under mpirun: said once" test "$(grep -c '^ofdmsim: error:' "$tmp/bad.err")" -eq 1
check "config error under mpirun: no file" test ! -e "$tmp/bad.csv" -a ! -e "$tmp/bad.journal"
# An existing result without --force: exit 2, the file untouched.
cp "$tmp/a.csv" "$tmp/keep.csv"
mpi 2 "$OFDMSIM" configs/default.cfg "${a[@]}" -o "$tmp/a.csv" >/dev/null 2>"$tmp/exists.err"
check "existing output under mpirun: exit 2" test $? -eq 2
check "existing output under mpirun: said once" test "$(grep -c 'already exists' "$tmp/exists.err")" -eq 1
check "existing output under mpirun: untouched" cmp -s "$tmp/a.csv" "$tmp/keep.csv"
finish
