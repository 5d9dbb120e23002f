"""Shared fixtures: the built program and library (ctest passes them as
OFDMSIM and OFDMSIM_LIBRARY), a small soft-output config, and the CLI."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "src"))

# QPSK 2x2 MMSE over Rayleigh with max-log LLRs: small frames, points that
# end by target_errors and by max_bits.
SMALL = """
simulation = { backend = "cpu"; seed = 11; snr_db = [0.0, 6.0, 12.0]; target_errors = 300;
               max_bits = 60000.0; threads = 1; };
mimo = { tx = 2; rx = 2; };
modulation = "qpsk";
equalizer = "mmse";
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 64; symbols = 2; };
receiver = { llr = "maxlog"; };
"""


def cli_path():
    p = os.environ.get("OFDMSIM") or str(REPO / "build" / "ofdmsim")
    if not os.path.exists(p):
        pytest.skip(f"no built ofdmsim at {p} (set OFDMSIM)")
    return p


@pytest.fixture
def small_cfg(tmp_path):
    p = tmp_path / "small.cfg"
    p.write_text(SMALL)
    return p


def run_cli(*args, check=True):
    r = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"ofdmsim {' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr}")
    return r


def cli_error(*args):
    """The CLI's message for a failing command line: its stderr's error line, without the lead."""
    r = run_cli(*args, check=False)
    lines = [l for l in r.stderr.splitlines() if l.startswith("ofdmsim: error: ")]
    assert r.returncode != 0 and lines, r.stderr
    return r.returncode, lines[0][len("ofdmsim: error: "):]
