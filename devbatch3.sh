# device batch: benches
set -u
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=build-gpu/ofdmsim
echo "== ldpc"; build-gpu/tests/ldpc_gpu_speed 2>&1 | grep "10 it" | head -4
echo "== coded vs sionna"; OFDMSIM=$B SECONDS_PER_CASE=3 OUT=$OUT timeout 200 bash scripts/bench-sionna.sh coded 2>&1 | tail -8
echo "== kbest/ml"; CASES="4 16qam 14;2 16qam 14" DETECTORS="kbest maxlog;ml maxlog" SECONDS_PER_CASE=1.5 OFDMSIM=$B timeout 60 bash scripts/bench-detectors.sh cuda 2>&1 | tail -6
echo "== async"; for s in 1 0; do OFDMSIM_GPU_SYNC=$s /usr/bin/time -f "%e s wall sync=$s" $B configs/default.cfg -q --force --set simulation.backend=cuda --set 'simulation.snr_db=[30.0]' --set simulation.max_bits=1e12 --set simulation.target_errors=1000000000000 --set 'sweep=()' -o $OUT/a$s.csv; done 2>&1 | tail -4; $B compare --require-same-draws $OUT/a1.csv $OUT/a0.csv | tail -2
echo "== cdl vs tdl"; for m in tdl-a cdl-c; do if [ $m = tdl-a ]; then ch=(--set channel.model=\"tdl\" --set channel.profile=\"tdl-a\"); else ch=(--set channel.model=\"cdl-c\"); fi
  $B configs/default.cfg -q --force --set simulation.backend=${BE:-cuda} --set mimo.tx=4 --set mimo.rx=4 --set modulation=\"16qam\" --set 'simulation.snr_db=[30.0]' --set simulation.max_bits=${CDLBITS:-2e11} --set simulation.target_errors=1000000000000 --set 'sweep=()' --set equalizer=\"mmse\" "${ch[@]}" --set channel.delay_spread_ns=100 -o $OUT/c.csv && python3 -c "import csv;r=list(csv.DictReader(open('$OUT/c.csv')));print('$m', r[0]['mbit_per_s'], r[0]['ber'])"; done
