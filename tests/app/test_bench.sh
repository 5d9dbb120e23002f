#!/usr/bin/env bash
# `ofdmsim bench` on the CPU: it runs, prints its table, writes JSON with a
# positive rate for every size, and rejects bad options with exit 2.
set -u
: "${OFDMSIM:?set by ctest}"
source "$(dirname "${BASH_SOURCE[0]}")/../support/harness.sh"

"$OFDMSIM" bench --small --cpu-only --reps 2 --json "$tmp/b.json" >"$tmp/out" 2>"$tmp/err"
check "bench exits 0" test $? -eq 0
check "bench prints the inversion table" grep -qE '^2x2 ' "$tmp/out"
check "bench prints the pipeline table" grep -qE '^2x2 QPSK +cpu' "$tmp/out"
check "bench prints the time-domain ratio" grep -qE 'TDL-A 4x4, continuous delays, on cpu: time domain .* = [0-9]+%' "$tmp/out"
check "bench writes its JSON" test -s "$tmp/b.json"
if command -v python3 >/dev/null; then
  check "every CPU inversion: ok, positive rate, small residual" python3 - "$tmp/b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
inv = d["cpu_invert"]
good = len(inv) == 4 and all(r["ok"] and r["minv_s"] > 0 and r["max_residual"] < 1e-3 for r in inv)
sys.exit(0 if good else 1)
PY
  check "the JSON keys scripts read: every pipeline column, the GPU's absence, the CPU's direct time-domain row" python3 - "$tmp/b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cols = {"draw", "channel", "gram", "invert", "equalize", "demap", "stages", "wall"}
top = {"program", "tool", "build", "started", "written", "version", "date", "host", "command", "cpu_threads", "reps", "seed", "small", "cpu_invert", "gpu", "pipeline"}
pipe = d["pipeline"]
good = (top <= set(d) and d["command"].startswith("ofdmsim bench --small") and d["tool"] == "bench" and
        d["gpu"]["present"] is False and d["gpu"]["why"] and len(pipe) == 5 and
        [(p["channel"], p["domain"]) for p in pipe] ==
        [("rayleigh", "frequency")] * 2 + [("tdl-a", "frequency"), ("tdl-a", "time"), ("tdl-a", "time")] and
        pipe[3]["convolution"] in ("CP-aligned transform", "sample by sample") and
        pipe[4]["convolution"] == "sample by sample" and pipe[4]["link"].endswith("direct") and
        all({"link", "backend", "mode", "available", "ok", "why", "ber"} <= set(p) and
            set(p["seconds"]) == cols and set(p["gbit_s"]) == cols and p["gbit_s"]["wall"] > 0
            for p in pipe))
sys.exit(0 if good else 1)
PY
fi
"$OFDMSIM" bench --sizes 9 >/dev/null 2>"$tmp/err9"
check "bench --sizes 9 exits 2" test $? -eq 2
check "bench --sizes 9 says why" grep -q 'sizes' "$tmp/err9"
"$OFDMSIM" bench --bogus >/dev/null 2>"$tmp/errb"
check "bench --bogus exits 2" test $? -eq 2
check "bench --bogus says which option" grep -q "unknown option '--bogus'" "$tmp/errb"
"$OFDMSIM" bench --bogus --help >"$tmp/help" 2>&1
check "bench --help wins anywhere" test $? -eq 0
check "bench --help prints the usage" grep -q 'usage: ofdmsim bench' "$tmp/help"

finish
