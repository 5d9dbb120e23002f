#!/usr/bin/env python3
"""Sionna (PyTorch port, sionna-no-rt 2.2.0) MIMO detector throughput + BER,
for side-by-side comparison with ofdmsim's receivers (issue "receivers").

This script installs nothing. The caller provides Sionna, e.g. offline from
the git-ignored wheel folder (torch and numpy must already be installed):

    pip install --no-index --no-deps --target /tmp/sionna_site .deps/wheels/*.whl
    PYTHONPATH=/tmp/sionna_site python3 bench/sionna_detectors.py --json results_sionna.json

(`pip install --no-index --find-links .deps/wheels sionna-no-rt` also works
when the local torch/numpy satisfy sionna's pins: torch>=2.9.1, numpy>=2.2.6.
h5py is deliberately not shipped: sionna.phy never imports it; matplotlib
is, at import time, so its wheels travel with the rest.)

Workload per resource element (RE), same end-to-end work as ofdmsim:
draw bits -> QAM map (unit energy) -> i.i.d. Rayleigh H (E|h|^2 = 1)
-> y = Hx + n, N0 = 1/(EbN0_lin * bps) -> detect (bit LLRs) -> count bit errors.
Throughput = REs * tx * bps / seconds  (simulated Mbit/s).
Eb/N0: 10 dB for QPSK, 14 dB for 16-QAM (override with --ebn0-qpsk/--ebn0-16qam).

Detectors: sionna.phy.mimo.KBestDetector(k=16, output="bit", hard_out=False),
MaximumLikelihoodDetector(output="bit", demapping_method="maxlog"),
LinearDetector("lmmse", output="bit", demapping_method="maxlog").

Output: one line per case
    sionna <detector> <tx>x<rx> <mod> <device> Mbit/s <x> ber <y>
and, with --json PATH, a JSON list with the same fields (+ N, reps, seconds).
"""
import argparse
import json
import math
import sys
import time


CASES = [(2, 2, "qpsk"), (2, 2, "16qam"), (4, 4, "qpsk"), (4, 4, "16qam")]
BPS = {"qpsk": 2, "16qam": 4}
DETECTORS = ["kbest", "ml", "lmmse"]


def initial_n(det, tx, rx, bps):
    """Starting batch size (REs per call); auto-tuned afterwards."""
    if det == "lmmse":
        return 1 << 20
    if det == "kbest":
        return 1 << 17
    # ML: memory ~ N * 2^(tx*bps) * rx * ~32 bytes
    nvec = 1 << (tx * bps)
    n = int(4e9 / (nvec * rx * 32))
    return max(256, min(1 << 20, 1 << int(math.log2(max(n, 1)))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", choices=["cpu", "cuda"], default=None,
                    help="default: cuda if available, else cpu")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--detectors", default=",".join(DETECTORS),
                    help="comma list of kbest,ml,lmmse")
    ap.add_argument("--cases", default="",
                    help="comma list like 2x2-qpsk,4x4-16qam (default: all)")
    ap.add_argument("--n", type=int, default=0,
                    help="fixed REs per call (disables auto-tuning)")
    ap.add_argument("--max-n", type=int, default=1 << 22)
    ap.add_argument("--target-s", type=float, default=0.3,
                    help="auto-tune N until one call takes >= this (s)")
    ap.add_argument("--min-time", type=float, default=2.0,
                    help="timed phase: repeat calls until this many seconds")
    ap.add_argument("--min-reps", type=int, default=3)
    ap.add_argument("--ebn0-qpsk", type=float, default=10.0)
    ap.add_argument("--ebn0-16qam", type=float, default=14.0)
    ap.add_argument("--k", type=int, default=16, help="K-best list size")
    ap.add_argument("--precision", choices=["single", "double"], default="single")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import torch
    import sionna
    import sionna.phy
    from sionna.phy import config
    from sionna.phy.mapping import BinarySource, Mapper
    from sionna.phy.mimo import (KBestDetector, LinearDetector,
                                 MaximumLikelihoodDetector)

    if args.device is None:
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("--device cuda requested but torch.cuda.is_available() is False")
    dev = "cuda:0" if args.device == "cuda" else "cpu"
    config.device = dev
    config.precision = args.precision
    config.seed = args.seed
    torch.manual_seed(args.seed)
    cdtype = config.cdtype
    is_cuda = dev.startswith("cuda")

    def sync():
        if is_cuda:
            torch.cuda.synchronize()

    info = (f"# sionna {sionna.__version__} torch {torch.__version__} device {dev}"
            + (f" ({torch.cuda.get_device_name(0)})" if is_cuda else
               f" (threads {torch.get_num_threads()})")
            + f" precision {args.precision}")
    print(info, flush=True)

    dets = [d.strip() for d in args.detectors.split(",") if d.strip()]
    for d in dets:
        if d not in DETECTORS:
            sys.exit(f"unknown detector {d}")
    want = {c.strip().lower() for c in args.cases.split(",") if c.strip()}
    results = []

    for tx, rx, mod in CASES:
        if want and f"{tx}x{rx}-{mod}" not in want:
            continue
        bps = BPS[mod]
        ebn0_db = args.ebn0_qpsk if mod == "qpsk" else args.ebn0_16qam
        n0 = 1.0 / (10 ** (ebn0_db / 10) * bps)
        source = BinarySource(device=dev)
        mapper = Mapper("qam", bps, device=dev)
        pts = mapper.constellation.points
        es = float((pts.abs() ** 2).mean())
        assert abs(es - 1.0) < 1e-3, f"constellation energy {es} != 1"
        eye = torch.eye(rx, dtype=cdtype, device=dev)

        for det_name in dets:
            if det_name == "kbest":
                det = KBestDetector("bit", tx, args.k, constellation_type="qam",
                                    num_bits_per_symbol=bps, hard_out=False,
                                    device=dev)
            elif det_name == "ml":
                det = MaximumLikelihoodDetector("bit", "maxlog", tx,
                                                constellation_type="qam",
                                                num_bits_per_symbol=bps,
                                                device=dev)
            else:
                det = LinearDetector("lmmse", "bit", "maxlog",
                                     constellation_type="qam",
                                     num_bits_per_symbol=bps, device=dev)

            def step(n):
                """One end-to-end batch of n REs; returns bit-error count (tensor)."""
                bits = source([n, tx * bps])
                x = mapper(bits)                                   # [n, tx]
                h = torch.randn(n, rx, tx, dtype=cdtype, device=dev)  # E|h|^2=1
                noise = math.sqrt(n0) * torch.randn(n, rx, dtype=cdtype, device=dev)
                y = (h @ x.unsqueeze(-1)).squeeze(-1) + noise       # [n, rx]
                s = (n0 * eye).expand(n, rx, rx)
                llr = det(y, h, s)                                  # [n, tx, bps]
                hard = (llr.reshape(n, tx * bps) > 0).to(bits.dtype)
                return (hard != bits).sum()

            def run(n):
                t0 = time.perf_counter()
                e = step(n)
                sync()
                return time.perf_counter() - t0, e

            n = args.n if args.n > 0 else initial_n(det_name, tx, rx, bps)
            n = min(n, args.max_n)
            err_msg = None
            with torch.inference_mode():
                # warm-up + auto-tune (halve on OOM, double while too fast)
                while True:
                    try:
                        dt, _ = run(n)
                        dt, _ = run(n)  # second call: post-warm-up timing
                    except torch.OutOfMemoryError:
                        if is_cuda:
                            torch.cuda.empty_cache()
                        if n <= 16:
                            err_msg = "OOM even at N=16"
                            break
                        n //= 2
                        continue
                    except RuntimeError as ex:  # CPU allocation failures
                        if "alloc" in str(ex).lower() or "memory" in str(ex).lower():
                            if n <= 16:
                                err_msg = str(ex)
                                break
                            n //= 2
                            continue
                        raise
                    if args.n > 0 or dt >= args.target_s or n * 2 > args.max_n:
                        break
                    grow = max(2, 1 << int(math.log2(max(1.0, args.target_s / max(dt, 1e-4)))))
                    n = min(n * grow, args.max_n)
                if err_msg:
                    print(f"sionna {det_name} {tx}x{rx} {mod} {args.device} "
                          f"FAILED {err_msg}", flush=True)
                    continue
                # timed phase
                errs = torch.zeros((), dtype=torch.float64, device=dev)
                reps = 0
                sync()
                t0 = time.perf_counter()
                while True:
                    errs += step(n)
                    reps += 1
                    if reps >= args.min_reps:
                        sync()
                        if time.perf_counter() - t0 >= args.min_time:
                            break
                sync()
                secs = time.perf_counter() - t0
            nbits = n * reps * tx * bps
            mbps = nbits / secs / 1e6
            ber = float(errs.item()) / nbits
            print(f"sionna {det_name} {tx}x{rx} {mod} {args.device} "
                  f"Mbit/s {mbps:.3f} ber {ber:.4e}", flush=True)
            results.append(dict(tool="sionna", detector=det_name, tx=tx, rx=rx,
                                mod=mod, device=args.device, mbit_s=mbps, ber=ber,
                                ebn0_db=ebn0_db, n_re=n, reps=reps, seconds=secs,
                                bits=nbits, k=args.k if det_name == "kbest" else None))
            del det
            if is_cuda:
                torch.cuda.empty_cache()

    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(info=info.lstrip("# "), results=results), f, indent=1)


if __name__ == "__main__":
    main()
