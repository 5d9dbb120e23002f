#!/usr/bin/env python3
"""An independent reference of lmmse2d's tables (channel/estimate_2d.c) for
tests/channel/test_lmmse2d.c, in numpy from the point's own description: the
comb's pilots, the taps (delays in samples, powers, the LOS part on tap 0),
the Doppler and the pilots' noise. For every RE of every antenna it picks the
window by the documented rule (the T pilots nearest in frequency, centred,
never across the band edge; the Tt pilot symbols around the symbol), builds
the full covariance of the window's pilots A (no separability used) and
their correlation c with the RE's channel, solves A^T w = c, and takes the
exact error E|H - sum w h|^2 = R - 2 Re(w^H c) + w^T A conj(w). It checks
the C plan's windows, weights and error variance against these and exits 1
with the first difference, 0 with a summary line.

Correlations, per unit power: frequency, sum_l p_l exp(-j 2 pi dkc tau_l / K)
(kc the subcarrier's frequency in -K/2 .. K/2 - 1); time, the Jakes spectrum
seen through the symbol's FFT window, rho(t) = mean over arrival angles a of
D(nu cos a)^2 cos(2 pi nu cos a t), D(f) = sin(pi f K) / (K sin(pi f)) (J0(2 pi
nu t) for K = 1), by the midpoint rule on 20000 angles; the LOS path turns
at nu cos(pi/4): D^2 exp(j 2 pi f t)."""
import sys

import numpy as np


def read(path):
    d = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                d[parts[0]] = parts[1:]
    return d


def main():
    d = read(sys.argv[1])
    i1 = lambda k: int(d[k][0])
    f1 = lambda k: float(d[k][0])
    K, S, P, tx, cp, T, Tt = (i1(k) for k in ("K", "S", "P", "tx", "cp", "T", "Tt"))
    fd, scs, n0, los = f1("doppler_hz"), f1("scs"), f1("n0"), f1("los")
    delay = np.array([float(x) for x in d["delay"]])
    power = np.array([float(x) for x in d["power"]])
    psyms = [int(x) for x in d["pilot_symbols"]]
    n = len(psyms)
    first = np.array([int(x) for x in d["first"]]).reshape(tx, K)
    sym_lo = [int(x) for x in d["sym_lo"]]
    wv = np.array([float(x) for x in d["w"]])
    wc = (wv[0::2] + 1j * wv[1::2]).reshape(tx, S, K, Tt * T)
    error_var = f1("error_var")
    N = T * Tt

    nu = fd / (K * scs)  # cycles per sample
    step = K + cp  # samples from one symbol to the next

    def d2(f):
        f = np.atleast_1d(np.asarray(f, dtype=float))
        x = np.pi * f
        out = np.ones_like(f)
        nz = np.abs(x) > 1e-12
        out[nz] = (np.sin(x[nz] * K) / (K * np.sin(x[nz]))) ** 2
        return out

    a = (np.arange(20000) + 0.5) * np.pi / 20000
    fa = nu * np.cos(a)
    wa = d2(fa)
    f_los = nu * np.cos(np.pi / 4)
    g_los = d2(f_los)[0]

    def rho_n(lag):
        return float(np.mean(wa * np.cos(2 * np.pi * fa * lag))) if nu > 0 else 1.0

    def rho_l(lag):
        return g_los * np.exp(2j * np.pi * f_los * lag)

    kc = np.array([k if 2 * k < K else k - K for k in range(K)], dtype=float)
    dk = kc[:, None] - kc[None, :]
    Fn = np.zeros((K, K), complex)
    for tau, pw in zip(delay, power):
        Fn += pw * np.exp(-2j * np.pi * dk * tau / K)
    Fl = los * np.exp(-2j * np.pi * dk * delay[0] / K)
    lags = range(-S, S + 1)
    tn = {l: rho_n(l * step) for l in lags}
    tl = {l: rho_l(l * step) for l in lags}
    R = float(np.sum(power)) * tn[0] + los * tl[0].real

    worst_w, scale_w, mse_ref, mse_c, res = 0.0, 0.0, 0.0, 0.0, 0
    for t in range(tx):
        npil = (K - 1 - t) // P + 1
        pil = np.array([t + i * P for i in range(npil)])
        order = sorted(range(npil), key=lambda i: kc[pil[i]])  # frequency order
        cache = {}
        for s in range(S):
            below = 0
            while below + 1 < n and psyms[below + 1] <= s:
                below += 1
            g = min(max(below - Tt // 2 + 1, 0), n - Tt)
            if sym_lo[s] != g:
                print(f"symbol {s}: window from pilot symbol {sym_lo[s]}, the rule gives {g}")
                return 1
            js = psyms[g:g + Tt]
            for k in range(K):
                below = 0
                while below + 1 < npil and kc[pil[order[below + 1]]] <= kc[k]:
                    below += 1
                f = min(max(below - T // 2 + 1, 0), npil - T)
                idx = [order[f + i] for i in range(T)]
                if first[t, k] != idx[0] or any((first[t, k] + i) % npil != idx[i] for i in range(T)):
                    print(f"antenna {t}, subcarrier {k}: window from pilot {first[t, k]}, the rule gives {idx}")
                    return 1
                sc = pil[idx]
                key = (g, f)
                if key not in cache:
                    Tn = np.array([[tn[ja - jb] for jb in js] for ja in js])
                    Tl = np.array([[tl[ja - jb] for jb in js] for ja in js])
                    A = np.kron(Tn, Fn[np.ix_(sc, sc)]) + np.kron(Tl, Fl[np.ix_(sc, sc)]) + n0 * np.eye(N)
                    cache[key] = A
                A = cache[key]
                c = np.kron(np.array([tn[s - j] for j in js]), Fn[k, sc]) + np.kron(
                    np.array([tl[s - j] for j in js]), Fl[k, sc])
                w = np.linalg.solve(A.T, c)
                w_c = wc[t, s, k]
                worst_w = max(worst_w, float(np.max(np.abs(w - w_c))))
                scale_w = max(scale_w, float(np.max(np.abs(w))))
                if s in psyms and k % P < tx:
                    continue  # a pilot RE: no data
                err = lambda v: R - 2 * np.real(np.vdot(v, c)) + np.real(v @ A @ np.conj(v))
                mse_ref += err(w)
                mse_c += err(w_c.astype(complex))
                res += 1
    mse_ref /= res
    mse_c /= res
    print(f"lmmse2d reference: {res} data REs x antennas, weights within {worst_w:.2e} of the reference's "
          f"(largest {scale_w:.3f}); MSE {mse_ref:.6e} (reference), {mse_c:.6e} (the plan's float weights), "
          f"told {error_var:.6e}")
    if worst_w > 1e-5 * max(1.0, scale_w):
        print("FAIL: the weights differ from the reference's")
        return 1
    if abs(error_var - mse_ref) > 1e-6 * mse_ref or abs(mse_c - mse_ref) > 1e-5 * mse_ref:
        print("FAIL: the error variance differs from the reference's")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
