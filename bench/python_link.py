#!/usr/bin/env python3
"""Link.batch on the GPU delivering LLRs to PyTorch, against the command
line's rate on the same link (issue 27's benchmark, for BENCHMARKS.md).

For each link: the CLI runs the point with soft outputs to max_bits (its
mbit_per_s: simulated bits a second, one LLR a bit), then Link.batch hands
batches of the same point's frames to torch.from_dlpack (zero copy) and a
tiny decoder (the LLR signs against the bits, on the GPU) consumes each;
the rate is LLRs a second over the timed batches, after a warm-up.

    python3 bench/python_link.py --cli build/ofdmsim [--frames 256] [--batches 40] [--sionna]
Needs a CUDA build of libofdmsim (OFDMSIM_LIBRARY or the installed package) and PyTorch.

--sionna adds Sionna 2.2's equivalent Python pipeline on the same GPU (on the
path: scripts/sionna-site.sh puts it there from .deps/wheels): the same link
(i.i.d. Rayleigh per RE, unit-energy Gray QAM, N0 from the same Es/N0, LMMSE
with max-log LLRs: FlatFadingChannel + LinearDetector("lmmse", "bit",
"maxlog")), the same REs a batch, its LLRs consumed by the same tiny decoder;
the rate is LLRs a second over the timed batches after the same warm-up.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "src"))
import ofdmsim  # noqa: E402

BASE = """
simulation = {{ backend = "cuda"; seed = 1; snr_db = [{snr}]; target_errors = 1000000000000;
               max_bits = {max_bits}; }};
mimo = {{ tx = {tx}; rx = {rx}; }};
modulation = "{mod}";
equalizer = "mmse";
channel = {{ model = "rayleigh"; }};
ofdm = {{ subcarriers = 1024; symbols = 14; }};
receiver = {{ llr = "maxlog"; }};
"""

LINKS = [("2x2 QPSK", dict(tx=2, rx=2, mod="qpsk", snr=10.0)),
         ("4x4 16-QAM", dict(tx=4, rx=4, mod="16qam", snr=16.0))]


def cli_rate(cli, text):
    with tempfile.TemporaryDirectory() as d:
        cfg, out = os.path.join(d, "b.cfg"), os.path.join(d, "b.csv")
        with open(cfg, "w") as f:
            f.write(text)
        subprocess.run([cli, cfg, "-q", "-o", out], check=True, stdout=subprocess.DEVNULL)
        df = ofdmsim.read(out)
    return float(df["mbit_per_s"].iloc[0]) / 1e3, int(df["bits"].iloc[0])


def link_rate(text, frames, batches):
    with ofdmsim.Link(text, backend="cuda", max_frames=frames) as link:
        per_batch = frames * link.data_res_per_frame * link.tx * link.bps
        errors = torch.zeros((), dtype=torch.int64, device="cuda:0")
        for _ in range(3):  # warm-up: the pool's buffers, torch's kernels
            b = link.batch(frames)
            errors += ((torch.from_dlpack(b.llr) > 0).to(torch.uint8) != torch.from_dlpack(b.bits)).sum()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(batches):
            b = link.batch(frames)
            llr, bits = torch.from_dlpack(b.llr), torch.from_dlpack(b.bits)
            errors += ((llr > 0).to(torch.uint8) != bits).sum()
            del llr, bits, b
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
    return per_batch * batches / seconds / 1e9, int(errors)


def sionna_rate(kw, frames, batches):
    from sionna.phy.channel import FlatFadingChannel
    from sionna.phy.mapping import BinarySource, Mapper
    from sionna.phy.mimo import LinearDetector
    tx, rx = kw["tx"], kw["rx"]
    bps = {"qpsk": 2, "16qam": 4}[kw["mod"]]
    n = frames * 1024 * 14  # the REs of the Link's batch
    # ofdmsim's default snr_kind, Eb/N0 per stream: N0 = 1 / (Eb/N0 x bps)
    no = torch.tensor(1.0 / (10 ** (kw["snr"] / 10) * bps), device="cuda:0")
    source, mapper = BinarySource(device="cuda:0"), Mapper("qam", bps, device="cuda:0")
    channel = FlatFadingChannel(tx, rx, return_channel=True, device="cuda:0")
    det = LinearDetector("lmmse", "bit", "maxlog", constellation_type="qam", num_bits_per_symbol=bps,
                         hard_out=False, device="cuda:0")
    eye = torch.eye(rx, dtype=torch.complex64, device="cuda:0")
    errors = torch.zeros((), dtype=torch.int64, device="cuda:0")

    def batch():
        b = source([n, tx * bps])
        y, h = channel(mapper(b), no)
        llr = det(y, h, (no * eye).expand(n, rx, rx)).reshape(n, tx * bps)
        return ((llr > 0).to(b.dtype) != b).sum()

    with torch.no_grad():
        for _ in range(3):
            errors += batch()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(batches):
            errors += batch()
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
    return n * tx * bps * batches / seconds / 1e9, int(errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True, help="the built ofdmsim (the same build as the library)")
    ap.add_argument("--frames", type=int, default=256, help="frames a batch")
    ap.add_argument("--batches", type=int, default=40, help="timed batches")
    ap.add_argument("--max-bits", type=float, default=2e10, help="the CLI run's max_bits")
    ap.add_argument("--sionna", action="store_true", help="Sionna's pipeline beside it")
    ap.add_argument("--sionna-frames", type=int, default=16, help="frames a Sionna batch (its memory)")
    a = ap.parse_args()
    print(f"device: {torch.cuda.get_device_name()}  batches of {a.frames} frames x {a.batches}")
    print(f"{'link':12} {'CLI Gbit/s':>11} {'Link->torch Gbit/s':>19} {'share':>6}"
          + (f" {'Sionna Gbit/s':>14} {'Link/Sionna':>12} {'BER Link':>10} {'BER Sionna':>11}" if a.sionna else ""))
    for name, kw in LINKS:
        text = BASE.format(max_bits=a.max_bits, **kw)
        cli, _ = cli_rate(a.cli, text)
        got, err = link_rate(text, a.frames, a.batches)
        line = f"{name:12} {cli:11.1f} {got:19.1f} {100 * got / cli:5.0f}%"
        if a.sionna:
            bps = {"qpsk": 2, "16qam": 4}[kw["mod"]]
            sio, serr = sionna_rate(kw, a.sionna_frames, a.batches)
            bits = a.frames * 1024 * 14 * kw["tx"] * bps * (a.batches + 3)
            sbits = a.sionna_frames * 1024 * 14 * kw["tx"] * bps * (a.batches + 3)
            line += f" {sio:14.3f} {got / sio:11.0f}x {err / bits:10.3e} {serr / sbits:11.3e}"
        print(line)


if __name__ == "__main__":
    main()
