#!/usr/bin/env python3
"""The coded link, ofdmsim beside NVIDIA Sionna 2.2 (PyTorch) on the same GPU:
transport blocks a second, delivered information bits a second and the BLER
of each, with the same code, rate and decoder.

    bench/sionna_coded.py [--device cuda|cpu] [--ofdmsim PATH] [--seconds S]
                          [--cases 1,2] [--json PATH]

Installs nothing: the caller puts Sionna on the path (scripts/bench-sionna.sh
does it from the wheels of .deps/wheels and runs this with `coded`).

The link, both sides (the issue's coded benchmark):
  4x4, one frame = one slot of 144 subcarriers x 14 symbols at 30 kHz, every
  RE data (no pilots, perfect CSI), TR 38.901 TDL-A with 100 ns delay spread
  held over the frame (ofdmsim: channel.model = "tdl"; Sionna: TDL evaluated
  once a frame, cir_to_ofdm_channel, ApplyOFDMChannel), LMMSE equalisation
  with max-log LLRs (ofdmsim: equalizer = "mmse", receiver.llr = "maxlog";
  Sionna: LMMSEEqualizer + Demapper("maxlog")), one LDPC transport block a
  frame: TS 38.212 CRC, segmentation, LDPC, rate matching with rv 0 and the
  bit interleaver (ofdmsim: code.mcs of the 64QAM table; Sionna: TBEncoder
  with the TB size ofdmsim reports, no scrambling), the coded bits over the
  4 layers (symbol i on layer i mod 4, TS 38.211 7.3.1.3) and the data REs in
  frame order, and a layered normalised min-sum decoder, scale 0.75, 10
  iterations (Sionna: LDPC5GDecoder with cn_schedule = "layered" and a
  normalised min-sum check-node rule, inside TBDecoder; Sionna has no early
  stop, so ofdmsim runs twice: with early termination, its default, and
  without, the like-for-like figure).
  Noise: N0 = tx x 10^(-SNR/10) per receive antenna (ofdmsim's snr_kind
  "snr": total received SNR per antenna), the same value passed to Sionna.

Cases: 1 = 16-QAM, MCS 13 (R 490/1024) at 14 dB; 2 = 64-QAM, MCS 20
(R 567/1024) at 22 dB (both on the waterfall, so the BLERs test agreement).

Timing: ofdmsim through its CLI, one point, frames grown until its `seconds`
column is >= S/2 (TB/s = blocks / seconds); Sionna: frames a call doubled
until a call takes >= 0.5 s, then timed calls (synchronised) until >= S
seconds; TB/s = frames a call / median call time. BLER of each with a 95%
Wilson interval (one TB a frame: frames are independent), and z = the BLER
difference over its standard error (|z| < 3: agreement).
"""
import argparse
import csv
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {
    1: dict(mod="16qam", bps=4, mcs=13, rate=490 / 1024, snr=14.0),
    2: dict(mod="64qam", bps=6, mcs=20, rate=567 / 1024, snr=22.0),
}
TX = RX = 4
K, S, SCS = 144, 14, 30e3
ITER, SCALE = 10, 0.75


def wilson(k, n, z=1.959964):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def ofdmsim_cfg(c, seed):
    return f"""simulation = {{ seed = {seed}; snr_kind = "snr"; snr_db = {c['snr']:.1f};
               target_block_errors = 1000000000; }};
mimo = {{ tx = {TX}; rx = {RX}; }};
modulation = "{c['mod']}";
equalizer = "mmse";
receiver = {{ llr = "maxlog"; }};
channel = {{ model = "tdl"; profile = "tdl-a"; delay_spread_ns = 100.0; }};
ofdm = {{ subcarriers = {K}; symbols = {S}; subcarrier_spacing = {SCS:.1f}; }};
code = {{ type = "ldpc"; mcs = {c['mcs']}; mcs_table = "64qam"; decoder = "nms"; scale = {SCALE};
         max_iterations = {ITER}; }};
"""


def run_ofdmsim(binary, c, args, tmp, name, early):
    cfg = os.path.join(tmp, f"{name}.cfg")
    with open(cfg, "w") as f:
        f.write(ofdmsim_cfg(c, args.seed))
    backend = "cuda" if args.device == "cuda" else "cpu"
    frames = 2000 if backend == "cuda" else 50
    out = os.path.join(tmp, f"{name}.csv")
    for _ in range(8):
        cmd = [binary, cfg, "-q", "--force", "-o", out, "--set", f"simulation.backend={backend}",
               "--set", f"simulation.min_frames={frames}", "--set", f"simulation.max_blocks={frames}",
               "--set", f"code.early_termination={1 if early else 0}"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            raise RuntimeError(f"ofdmsim exit {p.returncode}: {p.stderr.strip()[-400:]}")
        with open(out, newline="") as f:
            row = next(csv.DictReader(l for l in f if not l.startswith("#")))
        secs = float(row["seconds"])
        if secs >= 0.5 * args.seconds:
            break
        frames = int(frames * min(50.0, max(2.0, args.seconds / max(secs, 1e-3))))
    blocks, errs = int(row["blocks"]), int(row["block_errors"])
    tbs = int(row["info_bits"]) // max(1, blocks)
    return dict(blocks=blocks, block_errors=errs, bler=errs / blocks, ci95=wilson(errs, blocks),
                tb_size=tbs, seconds=secs, tb_per_s=blocks / secs,
                info_mbit_s=(blocks - errs) * tbs / secs / 1e6, mean_iterations=float(row["mean_iterations"]),
                n0=float(row["n0"]), early_termination=early, command=" ".join(cmd))


def sionna_link(c, tb_size, n0, dev):
    import numpy as np
    import torch
    from sionna.phy.channel import ApplyOFDMChannel, cir_to_ofdm_channel, subcarrier_frequencies
    from sionna.phy.channel.tr38901 import TDL
    from sionna.phy.fec.ldpc import LDPC5GDecoder
    from sionna.phy.fec.ldpc.decoding import cn_update_minsum
    from sionna.phy.mapping import BinarySource, Demapper, Mapper
    from sionna.phy.mimo import StreamManagement
    from sionna.phy.nr import TBDecoder, TBEncoder
    from sionna.phy.ofdm import LMMSEEqualizer, ResourceGrid, ResourceGridMapper

    bps = c["bps"]
    n = K * S * TX * bps
    enc = TBEncoder(target_tb_size=tb_size, num_coded_bits=n, target_coderate=c["rate"], num_bits_per_symbol=bps,
                    num_layers=TX, use_scrambler=False, device=dev)
    if enc.tb_size != tb_size:  # Sionna pads the difference with known zeros
        print(f"# note: Sionna's TB size {enc.tb_size} != ofdmsim's {tb_size}", file=sys.stderr)
    dec = TBDecoder(enc, num_bp_iter=ITER, device=dev)

    def nms(msg, mask, llr_clipping=None):  # normalised min-sum, ofdmsim's "nms"
        return SCALE * cn_update_minsum(msg, mask, llr_clipping)

    # the same TBDecoder with its inner decoder layered (Sionna's TBDecoder
    # takes no schedule argument)
    dec._decoder = LDPC5GDecoder(encoder=enc.ldpc_encoder, num_iter=ITER, cn_update=nms, cn_schedule="layered",
                                 hard_out=True, return_infobits=True, device=dev)
    rg = ResourceGrid(num_ofdm_symbols=S, fft_size=K, subcarrier_spacing=SCS, num_tx=1, num_streams_per_tx=TX,
                      cyclic_prefix_length=0, device=dev)
    sm = StreamManagement(np.ones([1, 1], int), TX)
    tdl = TDL("A", delay_spread=100e-9, carrier_frequency=3.5e9, min_speed=0.0, num_rx_ant=RX, num_tx_ant=TX,
              device=dev)
    freqs = subcarrier_frequencies(K, SCS, device=dev)
    apply = ApplyOFDMChannel(device=dev)
    source = BinarySource(device=dev)
    mapper = Mapper("qam", bps, device=dev)
    rgm = ResourceGridMapper(rg, device=dev)
    eq = LMMSEEqualizer(rg, sm, device=dev)
    demap = Demapper("maxlog", "qam", bps, device=dev)
    no = torch.tensor(n0, dtype=torch.float32, device=dev)
    nsym = K * S

    def step(B):
        b = source([B, tb_size])
        cw = enc(b)                                           # [B, n]
        x = mapper(cw)                                        # [B, n / bps], symbol i
        x = x.reshape(B, nsym, TX).transpose(1, 2)            # layer i mod 4, RE i / 4
        x_rg = rgm(x.reshape(B, 1, TX, nsym))                 # [B, 1, TX, S, K]
        a, tau = tdl(B, 1, 1.0 / rg.ofdm_symbol_duration)
        h = cir_to_ofdm_channel(freqs, a, tau).expand(-1, -1, -1, -1, -1, S, -1)
        y = apply(x_rg, h, no)
        x_hat, no_eff = eq(y, h, 0.0, no)
        llr = demap(x_hat, no_eff).reshape(B, TX, nsym, bps)  # [B, layer, RE, bit]
        llr = llr.transpose(1, 2).reshape(B, n)               # back to codeword order
        b_hat, crc_ok = dec(llr)
        return (b_hat != b).any(dim=-1) | ~crc_ok.bool()

    return step


def run_sionna(c, tb_size, n0, args):
    import torch
    dev = "cuda:0" if args.device == "cuda" else "cpu"  # Sionna takes "cuda:N", not "cuda"
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    step = sionna_link(c, tb_size, n0, dev)
    with torch.no_grad():
        B = 8
        while True:
            try:
                step(B); sync()
                t0 = time.perf_counter(); step(B); sync()
                dt = time.perf_counter() - t0
            except torch.OutOfMemoryError:
                B //= 2
                break
            if dt >= 0.5 or B >= args.max_frames:
                break
            B *= 2
        times, errs, blocks = [], 0, 0
        t_all = time.perf_counter()
        while len(times) < 3 or time.perf_counter() - t_all < args.seconds:
            t0 = time.perf_counter()
            e = step(B)
            sync()
            times.append(time.perf_counter() - t0)
            errs += int(e.sum())
            blocks += B
    med = statistics.median(times)
    return dict(frames_per_call=B, calls=len(times), median_call_s=med, blocks=blocks, block_errors=errs,
                bler=errs / blocks, ci95=wilson(errs, blocks), tb_per_s=B / med,
                info_mbit_s=B * (1 - errs / blocks) * tb_size / med / 1e6)


def z_score(a, b):
    se2 = a["bler"] * (1 - a["bler"]) / a["blocks"] + b["bler"] * (1 - b["bler"]) / b["blocks"]
    return (b["bler"] - a["bler"]) / math.sqrt(se2) if se2 > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--ofdmsim", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                      "build", "ofdmsim"))
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--cases", default="1,2")
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--max-frames", type=int, default=4096)
    ap.add_argument("--json")
    args = ap.parse_args()
    import sionna
    import torch
    info = dict(date=datetime.datetime.now(datetime.timezone.utc).isoformat(), host=platform.node(),
                sionna=getattr(sionna, "__version__", "?"), torch=torch.__version__,
                device=torch.cuda.get_device_name(0) if args.device == "cuda" else platform.processor())
    print(f"# sionna {info['sionna']}, torch {info['torch']}, {info['device']}")
    print(f"{'case':<22} {'side':<22} {'TB/s':>10} {'info Mbit/s':>12} {'iters':>6} {'BLER [95%]':>28} {'ratio':>7} {'z':>6}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in [int(x) for x in args.cases.split(",")]:
            c = CASES[i]
            label = f"{TX}x{RX} {c['mod']} MCS {c['mcs']} {c['snr']:.0f} dB"
            et = run_ofdmsim(args.ofdmsim, c, args, tmp, f"c{i}et", True)
            fixed = run_ofdmsim(args.ofdmsim, c, args, tmp, f"c{i}fix", False)
            sio = run_sionna(c, fixed["tb_size"], fixed["n0"], args)
            for side, r in (("ofdmsim (early stop)", et), ("ofdmsim (10 iterations)", fixed), ("sionna", sio)):
                ratio = r["tb_per_s"] / sio["tb_per_s"]
                it = f"{r['mean_iterations']:.2f}" if "mean_iterations" in r else "10"
                print(f"{label:<22} {side:<22} {r['tb_per_s']:10.1f} {r['info_mbit_s']:12.2f} {it:>6} "
                      f"{r['bler']:.4f} [{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}] {ratio:7.1f} "
                      f"{z_score(fixed, r) if side == 'sionna' else 0.0:6.2f}")
            results.append(dict(case=i, label=label, **c, ofdmsim_early=et, ofdmsim_fixed=fixed, sionna=sio,
                                ratio_fixed=fixed["tb_per_s"] / sio["tb_per_s"],
                                ratio_early=et["tb_per_s"] / sio["tb_per_s"], z=z_score(fixed, sio)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(info=info, results=results), f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
