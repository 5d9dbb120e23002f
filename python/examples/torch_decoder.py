#!/usr/bin/env python3
"""ofdmsim's GPU LLRs straight into PyTorch (no copy through the host): a
tiny user-written decoder, a rate-1/3 repetition code decoded by summing
the LLRs of each bit's three copies, runs on the link's batches where they
are, in device memory the link owns.

    python3 python/examples/torch_decoder.py [--backend cuda|cpu] [--batches 20]
"""
import argparse

import torch

import ofdmsim

config = """
simulation = { seed = 3; snr_db = [2.0]; };
mimo = { tx = 4; rx = 4; };
modulation = "16qam";
equalizer = "mmse";
channel = { model = "rayleigh"; };
ofdm = { subcarriers = 1024; symbols = 14; };
receiver = { llr = "maxlog"; };
"""


def repetition_decode(llr, bits, n=3):
    """A rate-1/n repetition code over the link's i.i.d. bits: each group of
    n consecutive bits is read as its first bit sent n times under a known
    scrambling (the other bits' differences from it, which a receiver of a
    scrambled repetition code knows), so descrambled LLRs of a group add up
    and the decision is the sum's sign (positive: 1). Returns the bit errors
    before and after decoding, and the coded and information bit counts."""
    llr, bits = llr.reshape(-1), bits.reshape(-1)
    m = llr.numel() // n * n
    raw = ((llr > 0).to(torch.uint8) != bits).sum()
    groups = bits[:m].reshape(-1, n)
    sign = 1.0 - 2.0 * (groups != groups[:, :1]).to(llr.dtype)  # flip where the copy was another bit
    summed = (llr[:m].reshape(-1, n) * sign).sum(dim=1)
    decoded = ((summed > 0).to(torch.uint8) != groups[:, 0]).sum()
    return int(raw), int(decoded), m, m // n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--frames", type=int, default=32)
    a = ap.parse_args()
    raw = dec = coded = info = 0
    with ofdmsim.Link(config, backend=a.backend, max_frames=a.frames) as link:
        for _ in range(a.batches):
            b = link.batch(a.frames)
            # zero copy: the tensors view the link's device memory (a DLPack capsule)
            llr, bits = torch.from_dlpack(b.llr), torch.from_dlpack(b.bits)
            r, d, n, k = repetition_decode(llr, bits)
            raw, dec, coded, info = raw + r, dec + d, coded + n, info + k
        where = "GPU" if link.on_device else "CPU"
    print(f"{where}: {coded} coded bits, channel BER {raw / coded:.3e}; "
          f"after the repetition decoder {info} bits, BER {dec / info:.3e}")


if __name__ == "__main__":
    main()
