#!/usr/bin/env python3
"""ofdmsim and NVIDIA Sionna (PyTorch port, sionna-no-rt 2.2) side by side on
the speed issue's end-to-end workloads and issue 25's CDL ones: rate, BER
and their ratio.

    bench/sionna_workloads.py [--device cpu|cuda] [--threads N] [--ofdmsim PATH]
                              [--seconds S] [--json PATH] [--cases 1,2,3,4]
    bench/sionna_workloads.py --device cuda --cases 3,5-12     # the CDL table

This script installs nothing. The caller provides Sionna, e.g. offline from
the git-ignored wheel folder (torch, numpy and scipy must already be there):

    pip install --no-index --no-deps --target /tmp/sionna_site .deps/wheels/*.whl
    PYTHONPATH=/tmp/sionna_site python3 bench/sionna_workloads.py --json out.json

`scripts/bench-sionna.sh` does both, on the GPU (when nvidia-smi shows one)
and on the CPU with one thread; `scripts/bench-sionna.sh cdl` runs cases 3
and 5-12 on the GPU only.

Workloads (each end to end: bits, Gray QAM mapping with unit energy, channel,
noise, LMMSE equalisation, hard decisions, bit-error count; the rate is
simulated bits per second = REs x tx x bits per symbol / s):

  1  2x2 QPSK,   i.i.d. Rayleigh per RE (no OFDM), Eb/N0 10 dB
  2  4x4 16-QAM, i.i.d. Rayleigh per RE (no OFDM), Eb/N0 14 dB
  3  4x4 16-QAM, TR 38.901 TDL-A, 100 ns RMS delay spread, OFDM frequency
     domain: 1024 subcarriers x 14 symbols, 30 kHz (fs = 30.72 MHz), CP 128,
     no pilots, perfect CSI, channel fixed over a frame (no Doppler),
     Eb/N0 14 dB
  4  the link of 3 in the time domain (IFFT, CP, convolution, noise on the
     samples, CP removal, FFT), the receiver knowing the response of the
     discrete channel that was applied
  5-12  CDL-C (TR 38.901 7.7.1, Table 7.7.1-3), 100 ns delay spread, between
     antenna arrays at both ends, 16-QAM, the grid of 3, Eb/N0 20 dB
     (scripts/bench-cdl.sh's rows):
       5  4x4 frequency            9  8x4 frequency
       6  4x4 frequency, Doppler  10  8x4 frequency, Doppler
       7  4x4 time                11  8x4 time
       8  4x4 time, Doppler       12  8x4 time, Doppler
     TXxRX: the transmitter (base station) a row of TX/2 cross-polarised
     (+-45 degree) pairs with the 38.901 element pattern, the receiver
     (terminal) a row of RX/2 cross-polarised isotropic pairs, half a
     wavelength apart (configs/cdl.cfg's panels); every antenna sends a
     stream (no precoding: 8x4 is 8 streams on 4 antennas, MMSE overloaded,
     a high BER that both sides must still agree on). Doppler: the terminal
     at 120 km/h along +x at 3.5 GHz (f_d = 389.2 Hz), each ray shifted by
     f_d times the cosine between its arrival direction and the travel.
     Without Doppler the channel holds over the frame.

The two sides, parameter for parameter:

  ofdmsim (CLI, one point, --set overrides)    Sionna 2.2
  -------------------------------------------  ---------------------------------
  mimo.tx / mimo.rx, modulation                Mapper("qam", bps), unit energy
  channel.model = "rayleigh"                   FlatFadingChannel(tx, rx)
  equalizer = "mmse" (bias-corrected)          LinearDetector("lmmse", "bit",
  receiver.llr = "off" (hard)                    "maxlog", hard_out=True)
  channel.model = "tdl", profile = "tdl-a"     TDL("A", ...): the same table
  channel.delay_spread_ns = 100                  (TR 38.901 7.7.2-1), 100e-9 s,
  channel.delays = "continuous" (default)        min_speed = 0
  ofdm.subcarriers / symbols / cp_length       ResourceGrid(14, 1024, 30e3,
  ofdm.subcarrier_spacing = 30000                num_streams_per_tx=tx,
  (no pilots.*: perfect CSI)                     cyclic_prefix_length=128), no
                                                 pilots; LMMSEEqualizer +
                                                 Demapper("maxlog", hard_out)
  ofdm.domain = "frequency"                    cir_to_ofdm_channel +
                                                 ApplyOFDMChannel
  ofdm.domain = "time": windowed-sinc taps     OFDMModulator, cir_to_time_channel
    (32 per off-grid path), FFTW modem,          (sinc taps, l_min = -6, l_max =
    the receiver knowing the discrete taps'      ceil(last delay x fs) + 6),
    response                                     ApplyTimeChannel,
                                                 OFDMDemodulator; the receiver
                                                 gets time_to_ofdm_channel of
                                                 the same taps
  snr_kind = "ebno", ebno_overhead = excluded  N0 = ebnodb2no(EbN0, bps, 1):
    N0 = 1 / (EbN0 x bps)                        1 / (EbN0 x bps)

The CDL cases (5-12), parameter for parameter:

  ofdmsim (CLI, one point, --set overrides)    Sionna 2.2
  -------------------------------------------  ---------------------------------
  channel.model = "cdl-c"                      CDL("C", ...): the same table
  channel.delay_spread_ns = 100                  (TR 38.901 7.7.1-3, 24
                                                 clusters of 20 rays, XPR 7 dB,
                                                 no angle scaling), 100e-9 s
  the transmitter is the base station, the     direction = "downlink":
    receiver the terminal (departure angles      bs_array the transmitter,
    at the transmitter, arrival angles at the    ut_array the receiver
    receiver)
  tx_array = { rows = 1; columns = TX/2;       PanelArray(num_rows_per_panel=1,
    polarisation = "x"; pattern = "38.901";      num_cols_per_panel=TX/2,
    spacing_h = 0.5; }                           polarization="dual",
                                                 polarization_type="cross",
                                                 antenna_pattern="38.901",
                                                 element_horizontal_spacing=0.5)
  rx_array = { ... columns = RX/2; pattern =   PanelArray(... RX/2, "dual",
    "isotropic"; }                               "cross", antenna_pattern="omni")
  38.901 element: Table 7.3-1, 8 dBi kept      the same table, 8 dBi kept (no
    (no normalisation)                           normalisation)
  *_array.bearing_deg = downtilt_deg = 0       bs_orientation = ut_orientation
    (both panels face +x)                        = [0, 0, 0] (Sionna's default
                                                 ut_orientation is [pi, 0, 0]:
                                                 set to ofdmsim's)
  channel.speed_kmh = 120, carrier_ghz = 3.5   ut_velocity = [120 / 3.6, 0, 0]
  travel_azimuth_deg = 0, travel_zenith_deg      m/s, carrier_frequency = 3.5e9
    = 90 (defaults: along +x)                    (wavelength c / 3.5 GHz)
  no Doppler: speed_kmh unset                  ut_velocity = [0, 0, 0]
  ofdm.domain = "frequency", Doppler: each     OFDMChannel(CDL): the CIR at
    tap averaged over the symbol's FFT           the start of each OFDM symbol
    window                                       (sampling 1 / symbol duration)
  ofdm.domain = "time", Doppler: the taps at   TimeChannel(CDL): the CIR at
    every sample                                 every sample (T + l_tot - 1)
  the receiver's channel with Doppler, time    time_to_ofdm_channel of the taps
    domain: each symbol's taps averaged over     averaged over each FFT window
    its FFT window (README, "Doppler")           here (Sionna's own reads the
                                                 window's first sample: a CSI
                                                 error of ~-31 dB of the channel
                                                 at 389 Hz, beside N0 at -26 dB,
                                                 that ofdmsim's receiver has not)

What the two cannot make identical, none of which moves the mean BER: the
element order (ofdmsim interleaves the pair of each position, element k the
slant k % 2 at position k / 2, +45 first; Sionna lists every -45 element,
then every +45 one: a relabelling of streams and receive antennas, which the
BER averaged over streams does not see); the array's origin (ofdmsim's first
element at the panel's origin, Sionna's array centred on it: a fixed phase a
ray, absorbed in the ray's uniform random initial phases); the random
coupling (ofdmsim couples AoD, ZoD, ZoA to the AoA, Sionna shuffles all four:
the same joint law); and with Doppler in the frequency domain the instant
of each symbol's channel (the window average beside the symbol's start:
a shift in time of a stationary channel, both receivers knowing the channel
applied; the average's Dirichlet loss is 0.0006 dB at 389 Hz). Every
realisation is drawn afresh a frame on both sides.

The noise variance: both sides use N0 = 1 / (Eb/N0 x bps) per receive antenna
and RE by default (each stream unit energy, E|h|^2 = 1). The script checks
Sionna's N0 against the `n0` column of ofdmsim's CSV and reports a mismatch.
`--ebno-overhead charged` switches ofdmsim to `simulation.ebno_overhead =
"charged"` (CP and pilots charged to the data bits) and Sionna to
ebnodb2no(..., resource_grid=rg) x num_streams_per_tx: Sionna's own
ebnodb2no with a resource grid also divides the symbol energy by the number
of streams per transmitter (N0 4x smaller for 4 streams), which ofdmsim's
"charged" does not do, so the factor is taken back out to keep one link.

Channel realisations (TDL, cases 3-4; CDL below). ofdmsim draws each TDL tap CN(0, p_l) once per frame
(no Doppler: fixed over the frame). Sionna's TDL draws a sum of 20 sinusoids
per tap and time step; with min_speed = 0 every time step has the same value,
so by default (`--sionna-channel static`) the script asks TDL for ONE time
step per frame and broadcasts it over the frame's symbols (case 3) or samples
(case 4), the same block fading ofdmsim simulates without paying for 14 or
16 170 identical evaluations. `--sionna-channel generic` runs Sionna's
standard classes instead (OFDMChannel: TDL at every OFDM symbol; TimeChannel:
TDL at every sample: ~2 GB and ~5 s of one CPU core per 4x4 frame). A
20-sinusoid tap is Rayleigh to within the central-limit approximation
(E|h|^4 = 1.95 p^2, not 2 p^2), which the BER does not resolve.

CDL (cases 5-12): without Doppler, as for TDL, `static` evaluates CDL at
ONE time step a frame and broadcasts it (`generic` runs OFDMChannel /
TimeChannel); with Doppler always the generic classes (the channel moves
within the frame): CDL at each of the 14 symbols (frequency domain) or at
each of the frame's 16 167 samples (time domain: ~1 GB of ray terms a 4x4
frame, 2 GB at 8x4, so the batch stays at a few frames on the GPU). The
Sionna CDL cases are meant for the GPU (scripts/bench-sionna.sh cdl).

Case 4 in Sionna is practical (ApplyTimeChannel multiplies the taps with a
gathered Toeplitz copy of the signal, ~0.1 GB per 4x4 frame, so batches stay
small; the time-domain BER is slightly above the frequency-domain one on
both sides, the band edges of the discrete channel); `--case4-sionna
freq` compares ofdmsim's time domain with Sionna's frequency-domain path
instead (labelled so in the output), as an earlier comparison did.

Timing. ofdmsim: one point through the CLI (as scripts/bench-lib.sh), backend
cuda with --device cuda, else cpu with simulation.threads = --threads,
max_bits grown until the point's `seconds` column is >= S/2; the rate is the
CSV's `mbit_per_s`. Sionna: torch.set_num_threads(--threads) on the CPU; the
batch (REs for 1-2, frames for 3-4) doubled from a small size until one call
takes >= --call-s seconds (halved on out-of-memory; the tuning's two calls at
the final size and one more are the warm-up), then timed calls (torch.cuda.synchronize() around each) until >= --reps
calls and >= S seconds; the rate is the bits of one call over the MEDIAN call
time. The BER counts every timed call. `--compile MODE` wraps the step in
torch.compile (Sionna's sim_ber offers the same through compile_mode; off by
default there and here: on the CPU it was slower than eager, Inductor does
not generate code for complex operators); compile time is excluded, and a
failure falls back to eager, recorded in the JSON.

Agreement. Each BER comes with a standard error from its independent units
(REs for Rayleigh, frames for TDL and CDL, as ofdmsim's `units`; ofdmsim's from its
95% interval), and the line shows z = (BER_sionna - BER_ofdmsim) / sqrt(se^2
+ se^2): |z| < 3 is agreement within sampling error.

Output: a header with versions and device, then one line per case
    case  ofdmsim Mbit/s  BER  |  sionna Mbit/s  BER  |  ratio  z
and with --json PATH every field (both sides' counts, batch, call times,
N0, commands, versions, device name, date).
"""
import argparse
import csv
import datetime
import json
import math
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BPS = {"qpsk": 2, "16qam": 4}
GRID = dict(subcarriers=1024, symbols=14, spacing=30e3, cp=128)
TDL = dict(profile="tdl-a", sionna_model="A", delay_spread_ns=100.0,
           last_delay=9.6586)  # TR 38.901 Table 7.7.2-1: last tap, normalised
CDL = dict(profile="cdl-c", sionna_model="C",
           last_delay=8.6523,  # TR 38.901 Table 7.7.1-3: last cluster, normalised
           carrier_ghz=3.5, speed_kmh=120.0)
CASES = {
    1: dict(tx=2, rx=2, mod="qpsk", ebno=10.0, channel="rayleigh", domain="frequency"),
    2: dict(tx=4, rx=4, mod="16qam", ebno=14.0, channel="rayleigh", domain="frequency"),
    3: dict(tx=4, rx=4, mod="16qam", ebno=14.0, channel="tdl", domain="frequency"),
    4: dict(tx=4, rx=4, mod="16qam", ebno=14.0, channel="tdl", domain="time"),
}
for _i, (_tx, _rx, _dom, _dop) in enumerate(
        (t, 4, d, v) for t in (4, 8) for d in ("frequency", "time") for v in (False, True)):
    CASES[5 + _i] = dict(tx=_tx, rx=_rx, mod="16qam", ebno=20.0, channel="cdl",
                         domain=_dom, doppler=_dop)


def case_label(c):
    if c["channel"] == "rayleigh":
        ch = "rayleigh"
    elif c["channel"] == "tdl":
        ch = f"tdl-a {c['domain'][:4]}"
    else:
        ch = f"cdl-c {c['domain'][:4]}" + (" 120kmh" if c["doppler"] else "")
    return f"{c['tx']}x{c['rx']} {c['mod']} {ch}"


def parse_cases(text):
    """'1,3,5-12' -> [1, 3, 5, ..., 12]; an unknown case exits with the list."""
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            continue
        lo, _, hi = tok.partition("-")
        try:
            ids = range(int(lo), int(hi or lo) + 1)
        except ValueError:
            sys.exit(f"--cases: '{tok}' is not a case number or range (e.g. 1,3,5-12)")
        for i in ids:
            if i not in CASES:
                sys.exit(f"--cases: unknown case {i} (1-{max(CASES)})")
            out.append(i)
    return out


def array_sets(end, n, pattern):
    """One end's panel: a row of n/2 cross-polarised pairs (configs/cdl.cfg's)."""
    return [f"{end}_array.rows=1", f"{end}_array.columns={n // 2}",
            f"{end}_array.polarisation=x",
            f'{end}_array.pattern="{pattern}"',  # quoted: 38.901 is no number
            f"{end}_array.spacing_h=0.5"]


# ----------------------------------------------------------------- ofdmsim --

def ofdmsim_sets(c, args):
    """The --set overrides of one case (the base config sets seed and ebno)."""
    s = [f"mimo.tx={c['tx']}", f"mimo.rx={c['rx']}", f"modulation={c['mod']}",
         "equalizer=mmse", f"receiver.llr={args.llr}",
         f"simulation.snr_db=[{c['ebno']:.1f}]",
         f"simulation.ebno_overhead={args.ebno_overhead}",
         f"ofdm.subcarriers={GRID['subcarriers']}", f"ofdm.symbols={GRID['symbols']}",
         f"ofdm.cp_length={GRID['cp']}", f"ofdm.subcarrier_spacing={GRID['spacing']:.1f}",
         f"ofdm.domain={c['domain']}",
         f"channel.model={CDL['profile'] if c['channel'] == 'cdl' else c['channel']}"]
    if c["channel"] == "tdl":
        s += [f"channel.profile={TDL['profile']}",
              f"channel.delay_spread_ns={args.delay_spread_ns:.1f}",
              "channel.delays=continuous", "channel.doppler_hz=0.0"]
    elif c["channel"] == "cdl":
        s += [f"channel.delay_spread_ns={args.delay_spread_ns:.1f}"]  # delays always continuous
        s += array_sets("tx", c["tx"], "38.901") + array_sets("rx", c["rx"], "isotropic")
        if c["doppler"]:
            s += [f"channel.speed_kmh={CDL['speed_kmh']:.1f}",
                  f"channel.carrier_ghz={CDL['carrier_ghz']:.1f}"]
    return s


def run_ofdmsim(binary, c, args, tmp, name):
    backend = "cuda" if args.device == "cuda" else "cpu"
    base = os.path.join(tmp, "point.cfg")
    with open(base, "w") as f:
        f.write(f'simulation = {{ seed = {args.seed}; snr_kind = "ebno"; }};\n'
                'channel = { model = "rayleigh"; };\n')
    csv_path = os.path.join(tmp, f"{name}.csv")
    bits = 1e8 if backend == "cuda" else 1e6
    row = None
    for _ in range(8):
        cmd = [binary, base, "-q", "--force", "-o", csv_path,
               "--set", f"simulation.backend={backend}",
               "--set", f"simulation.threads={args.threads if backend == 'cpu' else 0}",
               "--set", "simulation.target_errors=1000000000000",
               "--set", "simulation.min_frames=1",
               "--set", f"simulation.max_bits={bits:.4g}"]
        for s in ofdmsim_sets(c, args):
            cmd += ["--set", s]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"ofdmsim failed (exit {p.returncode}): "
                               + " ".join(p.stderr.strip().splitlines()[-2:]))
        with open(csv_path, newline="") as f:
            row = next(csv.DictReader(f))
        took = float(row["seconds"])
        if took >= 0.5 * args.seconds:
            break
        grow = args.seconds / took if took > 0 else 100.0
        bits *= min(100.0, max(2.0, grow))
    with open(os.path.join(tmp, f"{name}.json")) as f:
        side = json.load(f)
    lo, hi = float(row["ci95_low"]), float(row["ci95_high"])
    return dict(
        mbit_s=float(row["mbit_per_s"]), ber=float(row["ber"]),
        ber_se=(hi - lo) / (2 * 1.959964), ci95=[lo, hi],
        bits=int(float(row["bits"])), bit_errors=int(float(row["bit_errors"])),
        frames=int(float(row["frames"])), units=int(float(row["units"])),
        seconds=float(row["seconds"]), n0=float(row["n0"]), max_bits=bits,
        backend=row["backend"], device=side.get("device"), threads=side.get("threads"),
        version=side.get("version"), git_commit=side.get("build", {}).get("git_commit"),
        build_type=side.get("build", {}).get("build_type"),
        delay_spread_samples=row.get("channel.delay_spread") or None,
        command=" ".join(cmd), sets=ofdmsim_sets(c, args))


# ------------------------------------------------------------------ sionna --

class SionnaCase:
    """One workload in Sionna: step(n) runs n units (REs or frames) end to end
    and returns the bit-error count of each unit."""

    def __init__(self, c, args, dev):
        import torch
        from sionna.phy.mapping import BinarySource, Mapper
        from sionna.phy.utils import ebnodb2no
        self.torch = torch
        self.c, self.dev = c, dev
        tx, rx, bps = c["tx"], c["rx"], BPS[c["mod"]]
        self.tx, self.rx, self.bps = tx, rx, bps
        self.hard_out = args.llr == "off"
        self.source = BinarySource(device=dev)
        self.mapper = Mapper("qam", bps, device=dev)
        es = float((self.mapper.constellation.points.abs() ** 2).mean())
        assert abs(es - 1.0) < 1e-3, f"constellation energy {es} != 1"
        self.notes = []
        if c["channel"] == "rayleigh":
            self._rayleigh(args)
            self.n0 = float(ebnodb2no(c["ebno"], bps, 1.0, device=dev))
        else:
            self._ofdm(args)
            if args.ebno_overhead == "charged":
                self.n0 = float(ebnodb2no(c["ebno"], bps, 1.0, resource_grid=self.rg,
                                          device=dev)) * self.rg.num_streams_per_tx
            else:
                self.n0 = float(ebnodb2no(c["ebno"], bps, 1.0, device=dev))
        self.no = torch.tensor(self.n0, dtype=self.mapper.constellation.points.real.dtype,
                               device=dev)

    def _decide(self, out):
        return out if self.hard_out else (out > 0).to(out.dtype)

    # cases 1-2 ------------------------------------------------------------
    def _rayleigh(self, args):
        torch = self.torch
        from sionna.phy.channel import FlatFadingChannel
        from sionna.phy.mimo import LinearDetector
        tx, rx, bps, dev = self.tx, self.rx, self.bps, self.dev
        self.unit, self.bits_per_unit = "RE", tx * bps
        self.n_start, self.n_max = 1 << 14, args.max_res
        self.bytes_per_unit = 64 * (rx * tx + rx + tx) * 8  # rough peak, for the CPU cap
        self.channel = FlatFadingChannel(tx, rx, return_channel=True, device=dev)
        self.det = LinearDetector("lmmse", "bit", "maxlog", constellation_type="qam",
                                  num_bits_per_symbol=bps, hard_out=self.hard_out,
                                  device=dev)
        self.eye = torch.eye(rx, dtype=self.mapper.constellation.points.dtype, device=dev)
        self.path = ("FlatFadingChannel + LinearDetector(lmmse, maxlog, "
                     + ("hard_out)" if self.hard_out else "LLR sign)"))

        def step(n):
            b = self.source([n, tx * bps])
            x = self.mapper(b)                              # [n, tx]
            y, h = self.channel(x, self.no)                 # [n, rx], [n, rx, tx]
            s = (self.no * self.eye).expand(n, rx, rx)
            out = self._decide(self.det(y, h, s))           # [n, tx, bps]
            return (out.reshape(n, tx * bps) != b).sum(dim=-1)
        self.step = step

    # cases 3-12 -----------------------------------------------------------
    def _channel_model(self, args):
        """TDL-A (cases 3-4) or CDL-C between the arrays (5-12), the last
        delay (s), and whether it moves within a frame."""
        from sionna.phy.channel.tr38901 import CDL as SionnaCDL
        from sionna.phy.channel.tr38901 import TDL as SionnaTDL
        from sionna.phy.channel.tr38901 import PanelArray
        c, dev = self.c, self.dev
        ds = args.delay_spread_ns * 1e-9
        if c["channel"] == "tdl":
            tdl = SionnaTDL(TDL["sionna_model"], delay_spread=ds,
                            carrier_frequency=3.5e9, min_speed=0.0,
                            num_rx_ant=self.rx, num_tx_ant=self.tx, device=dev)
            last = float(tdl.delays.max())
            assert abs(last - TDL["last_delay"] * ds) < 1e-12, "TDL-A table differs"
            return tdl, last, False
        fc = CDL["carrier_ghz"] * 1e9

        def panel(n, pattern):
            a = PanelArray(num_rows_per_panel=1, num_cols_per_panel=n // 2,
                           polarization="dual", polarization_type="cross",
                           antenna_pattern=pattern, carrier_frequency=fc,
                           element_vertical_spacing=0.5, element_horizontal_spacing=0.5,
                           device=dev)
            if a.num_ant != n:
                raise RuntimeError(f"PanelArray has {a.num_ant} elements, wanted {n}")
            return a
        v = CDL["speed_kmh"] / 3.6 if c["doppler"] else 0.0
        cdl = SionnaCDL(CDL["sionna_model"], delay_spread=ds, carrier_frequency=fc,
                        ut_array=panel(self.rx, "omni"), bs_array=panel(self.tx, "38.901"),
                        direction="downlink", ut_orientation=[0.0, 0.0, 0.0],
                        bs_orientation=[0.0, 0.0, 0.0], ut_velocity=[v, 0.0, 0.0],
                        device=dev)
        # CDL keeps its scaled delays in _delays (no public property in 2.2)
        delays = getattr(cdl, "delays", None)
        if delays is None:
            delays = getattr(cdl, "_delays", None)
        last = CDL["last_delay"] * ds
        if delays is not None:
            got = float(delays.max())
            assert abs(got - last) < 1e-12, f"CDL-C last delay {got} s, table {last} s"
        self.notes.append(f"CDL-C, ut_velocity [{v:.4f}, 0, 0] m/s at {fc:.3g} Hz "
                          f"(f_d {v * fc / 299792458.0:.1f} Hz)")
        return cdl, last, c["doppler"]

    def _ofdm(self, args):
        import numpy as np
        from sionna.phy.channel import (ApplyOFDMChannel, ApplyTimeChannel,
                                        OFDMChannel, TimeChannel,
                                        cir_to_ofdm_channel, cir_to_time_channel,
                                        subcarrier_frequencies,
                                        time_lag_discrete_time_channel,
                                        time_to_ofdm_channel)
        from sionna.phy.mapping import Demapper
        from sionna.phy.mimo import StreamManagement
        from sionna.phy.ofdm import (LMMSEEqualizer, OFDMDemodulator, OFDMModulator,
                                     ResourceGrid, ResourceGridMapper)
        c, dev = self.c, self.dev
        tx, rx, bps = self.tx, self.rx, self.bps
        S, K, CP = GRID["symbols"], GRID["subcarriers"], GRID["cp"]
        domain = c["domain"]
        if c["id"] == 4 and args.case4_sionna == "freq":
            domain = "frequency"
            self.notes.append("sionna runs the frequency-domain path for this case")
        self.sionna_domain = domain
        tdl, last, moving = self._channel_model(args)
        # a channel that moves within the frame needs Sionna's generic classes
        variant = "generic" if moving else args.sionna_channel
        self.variant = variant
        self.rg = rg = ResourceGrid(num_ofdm_symbols=S, fft_size=K,
                                    subcarrier_spacing=GRID["spacing"], num_tx=1,
                                    num_streams_per_tx=tx, cyclic_prefix_length=CP,
                                    device=dev)
        sm = StreamManagement(np.ones([1, 1], int), tx)
        name = "TDL" if c["channel"] == "tdl" else "CDL"
        n_paths = 23 if c["channel"] == "tdl" else 24
        rg_mapper = ResourceGridMapper(rg, device=dev)
        eq = LMMSEEqualizer(rg, sm, device=dev)
        demap = Demapper("maxlog", "qam", bps, hard_out=self.hard_out, device=dev)
        nds = rg.num_data_symbols
        self.unit, self.bits_per_unit = "frame", int(nds) * tx * bps
        self.n_start, self.n_max = 1, args.max_frames
        fs = rg.bandwidth                                     # 30.72 MHz
        sym_rate = 1.0 / rg.ofdm_symbol_duration

        if domain == "frequency":
            self.bytes_per_unit = S * K * rx * tx * 8 * 12
            if variant == "static":
                freqs = subcarrier_frequencies(K, GRID["spacing"], device=dev)
                apply = ApplyOFDMChannel(device=dev)

                def channel(x_rg, no):
                    a, tau = tdl(x_rg.shape[0], 1, sym_rate)
                    h = cir_to_ofdm_channel(freqs, a, tau)    # [B,1,rx,1,tx,1,K]
                    h = h.expand(-1, -1, -1, -1, -1, S, -1)
                    return apply(x_rg, h, no), h
                self.path = (f"{name}(1 step) + cir_to_ofdm_channel + ApplyOFDMChannel + "
                             "LMMSEEqualizer + Demapper(maxlog)")
            else:
                ofdm_ch = OFDMChannel(tdl, rg, normalize_channel=False,
                                      return_channel=True, device=dev)
                channel = ofdm_ch
                self.path = f"OFDMChannel({name}) + LMMSEEqualizer + Demapper(maxlog)"
        else:
            l_min, l_max = time_lag_discrete_time_channel(fs, maximum_delay_spread=last)
            l_tot = l_max - l_min + 1
            T = rg.num_time_samples
            self.bytes_per_unit = (T + l_tot) * l_tot * rx * tx * 8 * 3
            self.l_min, self.l_max = l_min, l_max
            assert l_tot - 1 <= CP, "discrete channel longer than the CP"
            mod = OFDMModulator(CP, device=dev)
            demod = OFDMDemodulator(K, l_min, CP, device=dev)
            if variant == "static":
                apply_t = ApplyTimeChannel(T, l_tot, device=dev)

                def time_channel(x_time, no):
                    a, tau = tdl(x_time.shape[0], 1, fs)
                    h_t = cir_to_time_channel(fs, a, tau, l_min, l_max)  # [...,1,l_tot]
                    return apply_t(x_time, h_t, no), h_t.expand(
                        -1, -1, -1, -1, -1, T + l_tot - 1, -1)
                self.path = (f"OFDMModulator + {name}(1 step) + cir_to_time_channel + "
                             "ApplyTimeChannel + OFDMDemodulator + time_to_ofdm_channel + "
                             "LMMSEEqualizer + Demapper(maxlog)")
            else:
                time_channel = TimeChannel(tdl, fs, T, l_min=l_min, l_max=l_max,
                                           normalize_channel=False, return_channel=True,
                                           device=dev)
                self.bytes_per_unit += (T + l_tot) * rx * tx * n_paths * 20 * 4 * 4
                self.path = (f"OFDMModulator + TimeChannel({name}) + OFDMDemodulator + "
                             "time_to_ofdm_channel + LMMSEEqualizer + Demapper(maxlog)")

            def window_average(h_t):
                # ofdmsim's receiver knows each symbol's taps averaged over
                # its FFT window; time_to_ofdm_channel reads the window's
                # first sample (index CP + s (K + CP)), so every sample of
                # symbol s is given the window's average for it to read
                L, n_l = K + CP, h_t.shape[-1]
                h = h_t[..., :S * L, :].reshape(*h_t.shape[:-2], S, L, n_l)
                avg = h[..., CP:, :].mean(dim=-2, keepdim=True)     # [..., S, 1, l_tot]
                return avg.expand(*avg.shape[:-2], L, n_l).reshape(*h_t.shape[:-2], S * L, n_l)

            def channel(x_rg, no):
                y_t, h_t = time_channel(mod(x_rg), no)
                if moving:
                    h_t = window_average(h_t)
                return demod(y_t), time_to_ofdm_channel(h_t, rg, l_min)
            if moving:
                self.path += " (receiver: taps averaged over each FFT window)"

        def step(n):
            b = self.source([n, 1, tx, nds * bps])
            x_rg = rg_mapper(self.mapper(b))                   # [n,1,tx,S,K]
            y, h = channel(x_rg, self.no)                      # [n,1,rx,S,K]
            x_hat, no_eff = eq(y, h, 0.0, self.no)
            out = self._decide(demap(x_hat, no_eff))           # [n,1,tx,nds*bps]
            return (out != b).sum(dim=(1, 2, 3))
        self.step = step


def cpu_mem_budget():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 // 3
    except OSError:
        pass
    return 4 << 30


def run_sionna(c, args, dev):
    import torch
    is_cuda = dev.startswith("cuda")

    def sync():
        if is_cuda:
            torch.cuda.synchronize()

    sc = SionnaCase(c, args, dev)
    n_max = sc.n_max
    if not is_cuda:
        n_max = max(sc.n_start, min(n_max, cpu_mem_budget() // sc.bytes_per_unit))

    def is_oom(ex):
        if isinstance(ex, torch.OutOfMemoryError):
            return True
        m = str(ex).lower()
        return isinstance(ex, RuntimeError) and ("out of memory" in m or "alloc" in m)

    fn = sc.step
    res = dict(path=sc.path, unit=sc.unit, bits_per_unit=sc.bits_per_unit, n0=sc.n0,
               domain=getattr(sc, "sionna_domain", c["domain"]),
               channel_variant=getattr(sc, "variant", None),
               notes=sc.notes, compile=None)
    if hasattr(sc, "l_min"):
        res.update(l_min=sc.l_min, l_max=sc.l_max)
    with torch.no_grad():
        # auto-tune the batch on the eager step: double until a call takes
        # >= call_s, halve on out-of-memory
        n, fits = sc.n_start, None
        while True:
            try:
                t0 = time.perf_counter(); fn(n); sync()
                t0 = time.perf_counter(); fn(n); sync()
                dt = time.perf_counter() - t0
            except (torch.OutOfMemoryError, RuntimeError) as ex:
                if not is_oom(ex):
                    raise
                if is_cuda:
                    torch.cuda.empty_cache()
                if n <= 1:
                    raise RuntimeError("out of memory at a batch of one " + sc.unit)
                n //= 2
                n_max = n
                continue
            fits = n
            if dt >= args.call_s or n * 2 > n_max:
                break
            grow = 1 << max(1, int(math.log2(max(1.0, args.call_s / max(dt, 1e-4)))))
            n = min(n * grow, n_max)
        n = fits
        if args.compile != "none":
            try:
                cfn = torch.compile(sc.step, mode=None if args.compile == "default"
                                    else args.compile, dynamic=False)
                cfn(n); sync(); cfn(n); sync()
                fn = cfn
                res["compile"] = args.compile
            except Exception as ex:  # pragma: no cover - depends on the toolchain
                res["compile"] = f"failed, eager: {type(ex).__name__}: {str(ex)[:200]}"
                print(f"# case {c['id']}: torch.compile failed, eager ({type(ex).__name__})",
                      flush=True)
        fn(n); sync()                                        # warm-up
        s1 = torch.zeros((), dtype=torch.float64, device=dev)
        s2 = torch.zeros((), dtype=torch.float64, device=dev)
        times, start = [], time.perf_counter()
        while len(times) < args.reps or time.perf_counter() - start < args.seconds:
            sync()
            t0 = time.perf_counter()
            e = fn(n)
            sync()
            times.append(time.perf_counter() - t0)
            e = e.to(torch.float64)
            s1 += e.sum()
            s2 += (e * e).sum()
    units = n * len(times)
    bits = units * sc.bits_per_unit
    errs, sq = float(s1.item()), float(s2.item())
    ber = errs / bits
    var_units = (sq - errs * errs / units) / (units - 1) if units > 1 else float("nan")
    se = math.sqrt(max(var_units, 0.0) / units) / sc.bits_per_unit if units > 1 else float("nan")
    med = statistics.median(times)
    res.update(mbit_s=n * sc.bits_per_unit / med / 1e6,
               mbit_s_mean=bits / sum(times) / 1e6, ber=ber, ber_se=se,
               bits=bits, bit_errors=int(round(errs)), units=units, batch=n,
               reps=len(times), call_seconds=times, median_call_s=med,
               seconds=sum(times))
    if is_cuda:
        res["peak_mem_gib"] = torch.cuda.max_memory_allocated() / 2**30
        torch.cuda.reset_peak_memory_stats()
        torch.cuda.empty_cache()
    return res


# -------------------------------------------------------------------- main --

def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "cpu"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda"], default=None,
                    help="default: cuda if torch sees a GPU, else cpu")
    ap.add_argument("--threads", type=int, default=0,
                    help="CPU threads for both (0: all cores); ignored on cuda")
    ap.add_argument("--ofdmsim", default=os.environ.get("OFDMSIM",
                                                         os.path.join(REPO, "build", "ofdmsim")))
    ap.add_argument("--seconds", type=float, default=2.0,
                    help="per case and side: ofdmsim grows max_bits until a point "
                         "takes >= S/2, Sionna times calls for >= S (default 2)")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--cases", default="1,2,3,4",
                    help="case numbers and ranges, e.g. 3,5-12 (the CDL table)")
    ap.add_argument("--reps", type=int, default=5, help="least timed Sionna calls")
    ap.add_argument("--call-s", type=float, default=0.25,
                    help="Sionna batch grown until one call takes this long")
    ap.add_argument("--max-res", type=int, default=1 << 24,
                    help="largest Sionna batch in REs (cases 1-2)")
    ap.add_argument("--max-frames", type=int, default=512,
                    help="largest Sionna batch in frames (cases 3-4)")
    ap.add_argument("--sionna-channel", choices=["static", "generic"], default="static",
                    help="TDL once per frame, broadcast (static), or Sionna's "
                         "OFDMChannel/TimeChannel at every symbol/sample (generic)")
    ap.add_argument("--case4-sionna", choices=["time", "freq"], default="time")
    ap.add_argument("--ebno-overhead", choices=["excluded", "charged"], default="excluded")
    ap.add_argument("--llr", choices=["off", "maxlog"], default="off",
                    help="off: hard decisions (Sionna hard_out); maxlog: bit LLRs "
                         "on both sides, decided by their sign")
    ap.add_argument("--delay-spread-ns", type=float, default=TDL["delay_spread_ns"],
                    help="TDL-A's and CDL-C's RMS delay spread (default 100)")
    ap.add_argument("--compile", default="none",
                    choices=["none", "default", "reduce-overhead", "max-autotune"])
    ap.add_argument("--precision", choices=["single", "double"], default="single",
                    help="Sionna's precision (ofdmsim computes in float, double "
                         "for ill-conditioned REs)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--skip-ofdmsim", action="store_true")
    ap.add_argument("--skip-sionna", action="store_true")
    args = ap.parse_args()

    cases = parse_cases(args.cases)

    # --skip-sionna needs no torch: the ofdmsim half runs anywhere
    torch = None
    if not args.skip_sionna:
        try:
            import torch
        except ImportError as ex:
            sys.exit(f"torch is not importable ({ex}): Sionna needs it (--skip-sionna "
                     "runs the ofdmsim half alone)")
    if args.device is None:
        args.device = "cuda" if torch is not None and torch.cuda.is_available() else "cpu"
    if torch is not None and args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("--device cuda requested but torch.cuda.is_available() is False")
    dev = "cuda:0" if args.device == "cuda" else "cpu"
    if torch is not None and args.device == "cpu" and args.threads > 0:
        torch.set_num_threads(args.threads)
    versions = dict(python=platform.python_version())
    if torch is not None:
        versions["torch"] = torch.__version__
    try:
        import numpy
        versions["numpy"] = numpy.__version__
    except ImportError:
        pass
    if not args.skip_sionna:
        import sionna
        import sionna.phy
        from sionna.phy import config
        versions["sionna"] = sionna.__version__
        config.device = dev
        config.precision = args.precision
        config.seed = args.seed
    if torch is None:
        device_name = "cuda" if args.device == "cuda" else cpu_name()
    elif args.device == "cuda":
        torch.manual_seed(args.seed)
        device_name = torch.cuda.get_device_name(0)
        versions["cuda"] = torch.version.cuda
    else:
        torch.manual_seed(args.seed)
        device_name = f"{cpu_name()}, {torch.get_num_threads()} torch threads"
    if not args.skip_ofdmsim:
        if not os.access(args.ofdmsim, os.X_OK):
            sys.exit(f"ofdmsim binary not found: {args.ofdmsim} (--ofdmsim PATH)")
        v = subprocess.run([args.ofdmsim, "--version"], stdout=subprocess.PIPE, text=True)
        versions["ofdmsim"] = v.stdout.strip()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"# {date} host {socket.gethostname()} device {args.device} ({device_name})"
          + (f" threads {args.threads or os.cpu_count()}" if args.device == "cpu" else ""),
          flush=True)
    print("# " + " ".join(f"{k} {v}" for k, v in versions.items()), flush=True)
    print(f"# Eb/N0 N0 = 1/(EbN0 bps) x overhead ({args.ebno_overhead}); llr {args.llr}; "
          f"sionna channel {args.sionna_channel}; compile {args.compile}; "
          f"{args.seconds:g} s per side and case", flush=True)
    hdr = (f"{'case':<30} {'ofdmsim Mbit/s':>14} {'BER':>10}  | {'sionna Mbit/s':>13} "
           f"{'BER':>10}  | {'ratio':>8} {'z':>6}")
    print(hdr, flush=True)

    results = []
    tmp = tempfile.mkdtemp(prefix="sionna_workloads.")
    try:
        for cid in cases:
            c = dict(CASES[cid], id=cid)
            label = f"{cid} {case_label(c)}"
            r = dict(case=cid, label=label, tx=c["tx"], rx=c["rx"], modulation=c["mod"],
                     ebno_db=c["ebno"], channel=c["channel"], domain=c["domain"],
                     grid=GRID if c["channel"] != "rayleigh" else None,
                     delay_spread_ns=args.delay_spread_ns if c["channel"] != "rayleigh" else None,
                     doppler_speed_kmh=CDL["speed_kmh"] if c.get("doppler") else None,
                     sets=ofdmsim_sets(c, args))
            o = s = None
            if not args.skip_ofdmsim:
                try:
                    o = run_ofdmsim(args.ofdmsim, c, args, tmp, f"case{cid}")
                except Exception as ex:
                    o = dict(error=str(ex))
            if not args.skip_sionna:
                try:
                    s = run_sionna(c, args, dev)
                except Exception as ex:
                    s = dict(error=f"{type(ex).__name__}: {ex}")
                    if args.device == "cuda":
                        torch.cuda.empty_cache()
            r["ofdmsim"], r["sionna"] = o, s
            ok_o = o is not None and "error" not in o
            ok_s = s is not None and "error" not in s
            if ok_o and ok_s:
                r["ratio"] = o["mbit_s"] / s["mbit_s"] if s["mbit_s"] > 0 else None
                den = math.hypot(o["ber_se"], s["ber_se"])
                r["z"] = (s["ber"] - o["ber"]) / den if den > 0 else None
                r["n0_match"] = abs(s["n0"] - o["n0"]) <= 1e-6 * o["n0"]
                if not r["n0_match"]:
                    print(f"# case {cid}: N0 differs: ofdmsim {o['n0']:.6g}, "
                          f"sionna {s['n0']:.6g}", flush=True)
            if ok_s and s.get("domain") != c["domain"]:
                label += " (sionna: freq)"
            fo = (f"{o['mbit_s']:14.2f} {o['ber']:10.3e}" if ok_o else
                  f"{'failed' if o else '-':>14} {'':>10}")
            fs = (f"{s['mbit_s']:13.2f} {s['ber']:10.3e}" if ok_s else
                  f"{'failed' if s else '-':>13} {'':>10}")
            fr = (f"{r['ratio']:7.1f}x {r['z']:+6.1f}" if r.get("ratio") and r.get("z") is not None
                  else f"{'':>8} {'':>6}")
            print(f"{label:<30} {fo}  | {fs}  | {fr}", flush=True)
            for side, d in (("ofdmsim", o), ("sionna", s)):
                if d is not None and "error" in d:
                    print(f"#   {side} failed: {d['error']}", flush=True)
            results.append(r)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if args.json:
        out = dict(date=date, host=socket.gethostname(), device=args.device,
                   device_name=device_name,
                   threads=(args.threads or os.cpu_count()) if args.device == "cpu" else None,
                   versions=versions, command=" ".join(sys.argv),
                   settings=dict(seconds=args.seconds, reps=args.reps, call_s=args.call_s,
                                 sionna_channel=args.sionna_channel,
                                 case4_sionna=args.case4_sionna,
                                 ebno_overhead=args.ebno_overhead, llr=args.llr,
                                 compile=args.compile, seed=args.seed, precision=args.precision),
                   results=results)
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
        print(f"# wrote {args.json}", flush=True)


if __name__ == "__main__":
    main()
