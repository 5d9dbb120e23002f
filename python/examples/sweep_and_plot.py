#!/usr/bin/env python3
"""A notebook-style sweep: BER and GMI of 2x2 QPSK and 16-QAM over Rayleigh,
ZF beside MMSE, into a DataFrame and two plots.

    python3 python/examples/sweep_and_plot.py [OUT.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import ofdmsim  # noqa: E402

config = """
simulation = { seed = 1; snr_db = { from = 0.0; to = 20.0; step = 4.0; };
               target_errors = 500; max_bits = 2e6; };
mimo = { tx = 2; rx = 2; };
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 256; symbols = 14; };
receiver = { llr = "maxlog"; };
sweep = ( { key = "modulation"; values = ["qpsk", "16qam"]; },
          { key = "equalizer"; values = ["zf", "mmse"]; } );
"""

# One row per point, the CSV's columns typed; a tqdm bar when tqdm is installed.
df = ofdmsim.run(config, backend="auto")
print(df[["modulation", "equalizer", "snr_db", "bits", "bit_errors", "ber", "gmi"]].to_string(index=False))

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
ofdmsim.plot(df, x="snr_db", y="ber", ax=left, title="BER, 95% intervals, theory dashed")
ofdmsim.plot(df, x="snr_db", y="gmi", ax=right, title="GMI")
out = sys.argv[1] if len(sys.argv) > 1 else "sweep.png"
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"plotted to {out}")
